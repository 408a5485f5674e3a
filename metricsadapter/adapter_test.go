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

package metricsadapter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

type members struct{ ready, notReady []string }

func (m members) Ready() []string                     { return m.ready }
func (m members) NotReady() []string                  { return m.notReady }
func (m members) Config(string) (*rest.Config, error) { return nil, errors.New("not used") }

func pod(ns, name string, lbls map[string]string) metricsv1beta1.PodMetrics {
	return metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

// fakeFetch answers from pods per cluster, counting the reads; failing clusters fail.
type fakeFetch struct {
	pods    map[string][]metricsv1beta1.PodMetrics
	failing map[string]bool
	reads   atomic.Int32
	delay   time.Duration
}

func (f *fakeFetch) fetch(_ context.Context, key cacheKey) (*answer, error) {
	f.reads.Add(1)
	time.Sleep(f.delay)
	if f.failing[key.cluster] {
		return nil, fmt.Errorf("connection refused")
	}
	var out []metricsv1beta1.PodMetrics
	for _, p := range f.pods[key.cluster] {
		if key.namespace == "" || p.Namespace == key.namespace {
			out = append(out, p)
		}
	}
	return &answer{read: time.Now(), pods: out}, nil
}

func names(items []metricsv1beta1.PodMetrics) []string {
	var out []string
	for _, p := range items {
		out = append(out, p.Labels[LabelCluster]+"/"+p.Namespace+"/"+p.Name)
	}
	return out
}

func TestPodMetrics(t *testing.T) {
	f := &fakeFetch{
		pods: map[string][]metricsv1beta1.PodMetrics{
			"member1": {pod("a", "web-1", map[string]string{"app": "web"}), pod("b", "db-1", map[string]string{"app": "db"})},
			"member2": {pod("a", "web-1", map[string]string{"app": "web"}), pod("a", "web-2", map[string]string{"app": "web"})},
			"member3": {pod("a", "web-9", map[string]string{"app": "web"})},
		},
		failing: map[string]bool{"member3": true},
	}
	a := New(members{ready: []string{"member2", "member1", "member3"}, notReady: []string{"member4"}}, Options{})
	a.fetch = f.fetch
	must := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	tests := []struct {
		name         string
		q            Query
		want         []string
		wantWarnings []string
	}{
		{name: "all namespaces, members in order of name", q: Query{},
			want:         []string{"member1/a/web-1", "member1/b/db-1", "member2/a/web-1", "member2/a/web-2"},
			wantWarnings: []string{"cluster member4 is not Ready", "cluster member3: its pod metrics could not be read: connection refused"}},
		{name: "a namespace and a label", q: Query{Namespace: "a", Labels: must("app=web")},
			want: []string{"member1/a/web-1", "member2/a/web-1", "member2/a/web-2"}},
		{name: "the cluster label picks the members asked", q: Query{Labels: must(LabelCluster + "=member2")},
			want: []string{"member2/a/web-1", "member2/a/web-2"}},
		{name: "a name", q: Query{Fields: fields.OneTermEqualSelector("metadata.name", "web-1")},
			want: []string{"member1/a/web-1", "member2/a/web-1"}},
		{name: "clusters", q: Query{Clusters: []string{"member1"}}, want: []string{"member1/a/web-1", "member1/b/db-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := a.PodMetrics(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Items); !slices.Equal(got, tc.want) {
				t.Errorf("items %v, want %v", got, tc.want)
			}
			for _, w := range tc.wantWarnings {
				if !slices.ContainsFunc(res.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("warnings %q lack %q", res.Warnings, w)
				}
			}
			if tc.q.Labels != nil && strings.Contains(tc.q.Labels.String(), LabelCluster) && len(res.Warnings) > 0 {
				t.Errorf("members the selector leaves out were warned of: %q", res.Warnings)
			}
		})
	}
}

func TestAllFail(t *testing.T) {
	f := &fakeFetch{failing: map[string]bool{"member1": true}}
	a := New(members{ready: []string{"member1"}}, Options{})
	a.fetch = f.fetch
	_, err := a.PodMetrics(context.Background(), Query{})
	var all *AllFailedError
	if !errors.As(err, &all) {
		t.Fatalf("err %v, want AllFailedError", err)
	}
}

func TestCacheAndSharedReads(t *testing.T) {
	f := &fakeFetch{pods: map[string][]metricsv1beta1.PodMetrics{"member1": {pod("a", "web-1", nil)}}, delay: 50 * time.Millisecond}
	a := New(members{ready: []string{"member1"}}, Options{TTL: time.Minute})
	a.fetch = f.fetch
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.PodMetrics(context.Background(), Query{Namespace: "a"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.reads.Load(); n != 1 {
		t.Errorf("10 concurrent queries made %d reads, want 1", n)
	}
	if _, err := a.PodMetrics(context.Background(), Query{Namespace: "a"}); err != nil {
		t.Fatal(err)
	}
	if n := f.reads.Load(); n != 1 {
		t.Errorf("a query within the TTL read again (%d reads)", n)
	}
	// Past the TTL, the member is asked again.
	a.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, err := a.PodMetrics(context.Background(), Query{Namespace: "a"}); err != nil {
		t.Fatal(err)
	}
	if n := f.reads.Load(); n != 2 {
		t.Errorf("a query past the TTL: %d reads, want 2", n)
	}
	// Items handed out are copies: changing one does not change the cache.
	res, _ := a.PodMetrics(context.Background(), Query{Namespace: "a"})
	res.Items[0].Labels["x"] = "y"
	again, _ := a.PodMetrics(context.Background(), Query{Namespace: "a"})
	if _, ok := again.Items[0].Labels["x"]; ok {
		t.Error("a caller's change reached the cache")
	}
}
