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

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var pods = schema.GroupResource{Resource: "pods"}

func open(t *testing.T, dir string) *Store {
	t.Helper()
	opts := DefaultOptions(dir)
	if dir == "" {
		opts.InMemory = true
	}
	opts.WatchEvents = 100
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pod(cluster, ns, name string, labels map[string]string, phase string) *Object {
	meta, _ := json.Marshal(map[string]any{"name": name, "namespace": ns, "labels": labels})
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "status": map[string]any{"phase": phase}})
	return &Object{
		Cluster: cluster, Resource: pods, Namespace: ns, Name: name, Labels: labels,
		Fields: map[string]string{"metadata.name": name, "metadata.namespace": ns, "status.phase": phase},
		Meta:   meta, Body: body,
	}
}

// names lists q and returns "cluster/namespace/name" of each object, in order.
func names(t *testing.T, s *Store, q Query, limit int64, cont string) ([]string, Page) {
	t.Helper()
	var out []string
	page, err := s.List(context.Background(), q, limit, cont, func(raw []byte) error {
		var o struct {
			Metadata struct {
				Name, Namespace, ResourceVersion string
				Labels                           map[string]string
			}
			Kind string
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return fmt.Errorf("%v: %s", err, raw)
		}
		if o.Metadata.ResourceVersion == "" || o.Kind != "Pod" {
			return fmt.Errorf("object without resourceVersion or kind: %s", raw)
		}
		out = append(out, o.Metadata.Labels["cluster"]+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, page
}

func fill(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []string{"member1", "member2", "member10", "m-a"} {
		src := Source{Cluster: c, Resource: pods}
		for _, ns := range []string{"a", "b"} {
			for i := range 3 {
				phase := "Running"
				if i == 2 {
					phase = "Pending"
				}
				l := map[string]string{"cluster": c, "app": fmt.Sprint("app", i)}
				if err := s.Put(ctx, src, pod(c, ns, fmt.Sprint("p", i), l, phase), "7"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestList(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	fill(t, s)
	sel := func(l string) labels.Selector { x, _ := labels.Parse(l); return x }
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"all of a kind, grouped by cluster", Query{Resource: pods}, nil},
		{"one namespace", Query{Resource: pods, Namespace: "b"}, []string{
			"m-a/b/p0", "m-a/b/p1", "m-a/b/p2", "member1/b/p0", "member1/b/p1", "member1/b/p2",
			"member10/b/p0", "member10/b/p1", "member10/b/p2", "member2/b/p0", "member2/b/p1", "member2/b/p2"}},
		{"clusters", Query{Resource: pods, Namespace: "a", Clusters: []string{"member10", "member1"}}, []string{
			"member1/a/p0", "member1/a/p1", "member1/a/p2", "member10/a/p0", "member10/a/p1", "member10/a/p2"}},
		{"labels", Query{Resource: pods, Labels: sel("app in (app1),cluster!=m-a")}, []string{
			"member1/a/p1", "member1/b/p1", "member10/a/p1", "member10/b/p1", "member2/a/p1", "member2/b/p1"}},
		{"fields", Query{Resource: pods, Clusters: []string{"member2"}, Fields: fields.OneTermEqualSelector("status.phase", "Pending")}, []string{
			"member2/a/p2", "member2/b/p2"}},
		{"metadata.name", Query{Resource: pods, Namespace: "a", Fields: fields.OneTermEqualSelector("metadata.name", "p0")}, []string{
			"m-a/a/p0", "member1/a/p0", "member10/a/p0", "member2/a/p0"}},
		{"another kind", Query{Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := names(t, s, tc.q, 0, "")
			if tc.want == nil {
				if len(got) != 24 {
					t.Fatalf("got %d objects, want 24: %v", len(got), got)
				}
				return
			}
			if len(got) == 0 {
				got = []string{}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestPaginationIsOneSnapshot(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	fill(t, s)
	ctx := context.Background()
	q := Query{Resource: pods, Namespace: "a"}
	all, _ := names(t, s, q, 0, "")
	first, page := names(t, s, q, 5, "")
	if len(first) != 5 || page.Continue == "" {
		t.Fatalf("first page: %v, continue %q", first, page.Continue)
	}
	// Writes between pages: a new object, one deleted, one changed.
	src := Source{Cluster: "member2", Resource: pods}
	_ = s.Put(ctx, src, pod("member2", "a", "p00", map[string]string{"cluster": "member2"}, "Running"), "")
	_ = s.Delete(ctx, src, "a", "p1", "")
	_ = s.Put(ctx, Source{Cluster: "m-a", Resource: pods}, pod("m-a", "a", "p0", map[string]string{"cluster": "m-a", "new": "x"}, "Running"), "")
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := first
	for cont := page.Continue; cont != ""; {
		var more []string
		var p Page
		more, p = names(t, s, q, 5, cont)
		if p.Revision != page.Revision {
			t.Errorf("page at revision %d, the list started at %d", p.Revision, page.Revision)
		}
		got, cont = append(got, more...), p.Continue
	}
	if !slices.Equal(got, all) {
		t.Errorf("pages %v\nwant the snapshot %v", got, all)
	}
	now, _ := names(t, s, q, 0, "")
	if len(now) != len(all) || slices.Equal(now, all) {
		t.Errorf("a new list %v should show the writes (one more, one less)", now)
	}
}

func TestContinueErrors(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	fill(t, s)
	q := Query{Resource: pods}
	if _, err := s.List(context.Background(), q, 1, "garbage", func([]byte) error { return nil }); !errors.Is(err, ErrInvalid) {
		t.Errorf("garbage token: %v, want ErrInvalid", err)
	}
	_, page := names(t, s, q, 1, "")
	s.oldest.Store(page.Revision + 1) // as if the history were discarded
	if _, err := s.List(context.Background(), q, 1, page.Continue, func([]byte) error { return nil }); !errors.Is(err, ErrExpired) {
		t.Errorf("expired token: %v, want ErrExpired", err)
	}
}

func TestWatch(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src := Source{Cluster: "member1", Resource: pods}
	_ = s.Put(ctx, src, pod("member1", "a", "x", map[string]string{"app": "web"}, "Running"), "")
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	from := s.Revision()
	events := make(chan Event, 20)
	sel, _ := labels.Parse("app=web")
	go func() { _ = s.Watch(ctx, Query{Resource: pods, Namespace: "a", Labels: sel}, from, false, events) }()
	_ = s.Put(ctx, src, pod("member1", "a", "y", map[string]string{"app": "web"}, "Running"), "")   // ADDED
	_ = s.Put(ctx, src, pod("member1", "b", "z", map[string]string{"app": "web"}, "Running"), "")   // other namespace
	_ = s.Put(ctx, src, pod("member1", "a", "x", map[string]string{"app": "web"}, "Succeeded"), "") // MODIFIED
	_ = s.Put(ctx, src, pod("member1", "a", "y", map[string]string{"app": "db"}, "Running"), "")    // stops matching: DELETED
	_ = s.Put(ctx, src, pod("member1", "a", "q", map[string]string{"app": "db"}, "Running"), "")    // never matches
	_ = s.Delete(ctx, src, "a", "x", "")                                                            // DELETED
	_ = s.Put(ctx, src, pod("member1", "a", "y", map[string]string{"app": "web"}, "Running"), "")   // matches again: ADDED
	var got []string
	for len(got) < 5 {
		select {
		case e := <-events:
			var o struct{ Metadata struct{ Name string } }
			_ = json.Unmarshal(e.Object, &o)
			got = append(got, string(e.Type)+" "+o.Metadata.Name)
		case <-ctx.Done():
			t.Fatalf("events so far: %v", got)
		}
	}
	want := []string{"ADDED y", "MODIFIED x", "DELETED y", "DELETED x", "ADDED y"}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	// A watch from before what the ring holds is told to list again.
	for i := range 150 {
		_ = s.Put(ctx, src, pod("member1", "c", fmt.Sprint("n", i), nil, "Running"), "")
	}
	_ = s.Sync(ctx)
	if err := s.Watch(ctx, Query{Resource: pods}, from, false, make(chan Event)); !errors.Is(err, ErrExpired) {
		t.Errorf("watch from an old revision: %v, want ErrExpired", err)
	}
}

func TestSweepDropCountAndCheckpointSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	fill(t, s)
	ctx := context.Background()
	src := Source{Cluster: "member1", Resource: pods}
	if n := s.Count(src); n != 6 {
		t.Errorf("count %d, want 6", n)
	}
	// A relist of member1 that found only a/p0 and b/p2.
	if err := s.Sweep(ctx, src, map[string]struct{}{"a/p0": {}, "b/p2": {}}, "42"); err != nil {
		t.Fatal(err)
	}
	_ = s.Sync(ctx)
	got, _ := names(t, s, Query{Resource: pods, Clusters: []string{"member1"}}, 0, "")
	if !slices.Equal(got, []string{"member1/a/p0", "member1/b/p2"}) {
		t.Errorf("after the sweep: %v", got)
	}
	if n := s.Count(src); n != 2 {
		t.Errorf("count %d, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir)
	defer s.Close()
	if cp, err := s.Checkpoint(src); err != nil || cp != "42" {
		t.Errorf("checkpoint after reopening: %q, %v; want 42", cp, err)
	}
	all, _ := names(t, s, Query{Resource: pods}, 0, "")
	if len(all) != 20 {
		t.Errorf("%d objects after reopening, want 20", len(all))
	}
	// A write after reopening is at a revision after all the earlier ones.
	before := s.Revision()
	_ = s.Put(ctx, src, pod("member1", "a", "new", nil, "Running"), "")
	_ = s.Sync(ctx)
	if s.Revision() <= before {
		t.Errorf("revision %d after a write, was %d", s.Revision(), before)
	}
	// Dropping one namespace's source leaves the cluster's others.
	if err := s.Drop(ctx, Source{Cluster: "member2", Resource: pods, Namespace: "a"}); err != nil {
		t.Fatal(err)
	}
	_ = s.Sync(ctx)
	got, _ = names(t, s, Query{Resource: pods, Clusters: []string{"member2"}}, 0, "")
	if !slices.Equal(got, []string{"member2/b/p0", "member2/b/p1", "member2/b/p2"}) {
		t.Errorf("after dropping member2's namespace a: %v", got)
	}
	if cp, _ := s.Checkpoint(Source{Cluster: "member2", Resource: pods, Namespace: "a"}); cp != "" {
		t.Errorf("a dropped source keeps its checkpoint %q", cp)
	}
}

func TestAnnotate(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	fill(t, s)
	s.Annotate("member2", map[string]string{"search.fedhq.io/stale": "true"})
	var stale, fresh int
	_, err := s.List(context.Background(), Query{Resource: pods}, 0, "", func(raw []byte) error {
		var o struct {
			Metadata struct {
				Annotations map[string]string
				Labels      map[string]string
			}
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return err
		}
		if o.Metadata.Annotations["search.fedhq.io/stale"] == "true" {
			if o.Metadata.Labels["cluster"] != "member2" {
				t.Errorf("%s marked stale", o.Metadata.Labels["cluster"])
			}
			stale++
		} else {
			fresh++
		}
		return nil
	})
	if err != nil || stale != 6 || fresh != 18 {
		t.Errorf("stale %d, fresh %d, %v; want 6 and 18", stale, fresh, err)
	}
}

func TestLocate(t *testing.T) {
	s := open(t, "")
	defer s.Close()
	fill(t, s)
	ctx := context.Background()
	_ = s.Delete(ctx, Source{Cluster: "member10", Resource: pods}, "b", "p1", "")
	_ = s.Sync(ctx)
	for _, tc := range []struct {
		ns, name string
		want     []string
	}{
		{"a", "p1", []string{"m-a", "member1", "member10", "member2"}},
		{"b", "p1", []string{"m-a", "member1", "member2"}},
		{"b", "p9", nil},
	} {
		got, err := s.Locate(pods, tc.ns, tc.name)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Locate(%s/%s) = %v, %v; want %v", tc.ns, tc.name, got, err, tc.want)
		}
	}
}

func TestAnotherFormatIsDropped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	fill(t, s)
	// As if written by the format before this one (which may hold what this one drops
	// of a Secret): neither its objects nor where its sources stopped are kept.
	wb := s.db.NewManagedWriteBatch()
	_ = wb.SetEntryAt(badgerEntry(formatKey, string([]byte{valueFormat - 1})), s.Revision()+1)
	_ = wb.Flush()
	_ = s.Close()
	s = open(t, dir)
	defer s.Close()
	if got, _ := names(t, s, Query{Resource: pods}, 0, ""); len(got) != 0 {
		t.Errorf("%d objects of another format kept", len(got))
	}
	if cp, _ := s.Checkpoint(Source{Cluster: "member1", Resource: pods}); cp != "" {
		t.Errorf("checkpoint %q of another format kept", cp)
	}
}

func badgerEntry(k, v string) *badger.Entry { return badger.NewEntry([]byte(k), []byte(v)) }
