/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/fedhq/fed/search/store"
)

func pod(name, rv, phase string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{
			"name": name, "namespace": "a", "resourceVersion": rv, "labels": map[string]any{"app": "web"},
			"managedFields": []any{map[string]any{"manager": "kubectl"}},
			"annotations":   map[string]any{"note": "x"},
		},
		"spec":   map[string]any{"nodeName": "node-1", "hostNetwork": true},
		"status": map[string]any{"phase": phase},
	}}
}

var podFields = map[string][]string{"spec.nodeName": {"spec", "nodeName"}, "status.phase": {"status", "phase"}, "spec.hostNetwork": {"spec", "hostNetwork"}}

func TestConverter(t *testing.T) {
	c := &Converter{Cluster: "member1", Resource: schema.GroupResource{Resource: "pods"}, Fields: podFields}
	o, err := c.Object(pod("p", "12", "Running"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(o.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	if _, ok := meta["resourceVersion"]; ok {
		t.Errorf("metadata keeps the member's resourceVersion: %s", o.Meta)
	}
	if _, ok := meta["managedFields"]; ok {
		t.Errorf("metadata keeps managedFields: %s", o.Meta)
	}
	if a := meta["annotations"].(map[string]any); a[AnnotationCluster] != "member1" || a["note"] != "x" {
		t.Errorf("annotations %v", a)
	}
	want := map[string]string{"metadata.name": "p", "metadata.namespace": "a", "spec.nodeName": "node-1", "status.phase": "Running", "spec.hostNetwork": "true"}
	if fmt.Sprint(o.Fields) != fmt.Sprint(want) {
		t.Errorf("fields %v, want %v", o.Fields, want)
	}
}

// member is a member's pods as a Client: a list, then watches that send what the test
// pushes; a watch from a resourceVersion in gone answers 410.
type member struct {
	mu      sync.Mutex
	pods    []*unstructured.Unstructured
	rv      string
	lists   int
	gone    map[string]bool
	watches chan chan watch.Event
}

func (m *member) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lists++
	l := &unstructured.UnstructuredList{Object: map[string]any{}}
	l.SetResourceVersion(m.rv)
	for _, p := range m.pods {
		l.Items = append(l.Items, *p.DeepCopy())
	}
	return l, nil
}

func (m *member) listed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lists
}

func (m *member) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	m.mu.Lock()
	gone := m.gone[opts.ResourceVersion]
	m.mu.Unlock()
	if gone {
		return nil, apierrors.NewResourceExpired("too old resource version")
	}
	ch := make(chan watch.Event, 10)
	m.watches <- ch
	return watch.NewProxyWatcher(ch), nil
}

func podNames(t *testing.T, s *store.Store) []string {
	t.Helper()
	var out []string
	_, err := s.List(context.Background(), store.Query{Resource: schema.GroupResource{Resource: "pods"}}, 0, "", func(raw []byte) error {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return err
		}
		out = append(out, u.GetName()+"="+u.Object["status"].(map[string]any)["phase"].(string))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func eventually(t *testing.T, f func() error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReflectorListsWatchesAndResumes(t *testing.T) {
	dir := t.TempDir()
	opts := store.DefaultOptions(dir)
	s, err := store.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	src := store.Source{Cluster: "member1", Resource: schema.GroupResource{Resource: "pods"}}
	conv := &Converter{Cluster: "member1", Resource: src.Resource, Fields: podFields}
	m := &member{pods: []*unstructured.Unstructured{pod("a", "5", "Running"), pod("b", "6", "Pending")}, rv: "10",
		gone: map[string]bool{}, watches: make(chan chan watch.Event, 10)}
	run := func(s *store.Store) (context.CancelFunc, *Reflector) {
		ctx, cancel := context.WithCancel(context.Background())
		r := NewReflector(s, src, m, conv, nil)
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		return func() { cancel(); <-done }, r
	}
	stop, r := run(s)
	w := <-m.watches
	if !r.Status().Synced {
		t.Error("not synced after the list")
	}
	eventually(t, func() error {
		if got := podNames(t, s); !slices.Equal(got, []string{"a=Running", "b=Pending"}) {
			return fmt.Errorf("after the list: %v", got)
		}
		return nil
	})
	w <- watch.Event{Type: watch.Modified, Object: pod("b", "11", "Running")}
	w <- watch.Event{Type: watch.Deleted, Object: pod("a", "12", "Running")}
	w <- watch.Event{Type: watch.Added, Object: pod("c", "13", "Pending")}
	eventually(t, func() error {
		if got := podNames(t, s); !slices.Equal(got, []string{"b=Running", "c=Pending"}) {
			return fmt.Errorf("after the events: %v", got)
		}
		return nil
	})
	w <- watch.Event{Type: watch.Bookmark, Object: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "20"}}}}
	eventually(t, func() error {
		if cp, _ := s.Checkpoint(src); cp != "20" {
			return fmt.Errorf("checkpoint %q after a bookmark, want 20", cp)
		}
		return nil
	})
	stop()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Started again on the same cache, the reflector watches from 20 without a list.
	if s, err = store.Open(opts); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop, _ = run(s)
	w = <-m.watches
	if m.listed() != 1 {
		t.Errorf("%d lists, want the first one only", m.listed())
	}
	// The member forgot 20 meanwhile: the watch ends with 410, and the reflector lists
	// again, which removes what the member no longer has.
	m.mu.Lock()
	m.pods, m.rv, m.gone["20"] = []*unstructured.Unstructured{pod("d", "30", "Running")}, "31", true
	m.mu.Unlock()
	w <- watch.Event{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old").ErrStatus}
	<-m.watches
	eventually(t, func() error {
		if got := podNames(t, s); !slices.Equal(got, []string{"d=Running"}) {
			return fmt.Errorf("after the relist: %v", got)
		}
		return nil
	})
	if m.listed() != 2 {
		t.Errorf("%d lists, want 2", m.listed())
	}
	stop()
}
