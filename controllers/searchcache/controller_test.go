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

package searchcache

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/search/store"
)

func TestDesiredMergesNamespacesIntoOneSource(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	deploys := schema.GroupResource{Group: "apps", Resource: "deployments"}
	src := func(cluster string, gr schema.GroupResource, ns string) store.Source {
		return store.Source{Cluster: cluster, Resource: gr, Namespace: ns}
	}
	wants := []want{
		{cluster: "member1", source: src("member1", pods, "a")},
		{cluster: "member1", source: src("member1", pods, "")}, // another registry wants them all
		{cluster: "member2", source: src("member2", pods, "a")},
		{cluster: "member2", source: src("member2", pods, "b")},
		{cluster: "member2", source: src("member2", pods, "a")}, // twice
		{cluster: "member3", source: src("member3", deploys, "")},
		{cluster: "member3", err: errors.New("cluster member3 does not serve example.com/v1, Kind=Widget")},
	}
	got := desired(wants)
	want := []store.Source{src("member1", pods, ""), src("member2", pods, "a"), src("member2", pods, "b"), src("member3", deploys, "")}
	if len(got) != len(want) {
		t.Fatalf("sources %v, want %v", got, want)
	}
	for _, s := range want {
		if _, ok := got[s]; !ok {
			t.Errorf("no source %s in %v", s, got)
		}
	}
	// member1's namespace a is held by its all-namespaces source; member2's by its own.
	for _, tc := range []struct {
		src, holder store.Source
		ok          bool
	}{
		{src("member1", pods, "a"), src("member1", pods, ""), true},
		{src("member2", pods, "b"), src("member2", pods, "b"), true},
		{src("member2", pods, "c"), src("member2", pods, ""), false},
		{src("member3", pods, ""), src("member3", pods, ""), false},
	} {
		if holder, ok := covering(got, tc.src); ok != tc.ok || (ok && holder != tc.holder) {
			t.Errorf("covering(%s) = %s, %v; want %s, %v", tc.src, holder, ok, tc.holder, tc.ok)
		}
	}
}

func TestUndecidedKeepsWhatAFailedWantMayAskFor(t *testing.T) {
	apps := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	core := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	unread := errors.New("cluster member1 does not serve apps/v1, Kind=Deployment: discovery not read")
	wants := []want{
		{cluster: "member1", gvk: apps, err: unread},
		{cluster: "member1", gvk: core, source: store.Source{Cluster: "member1", Resource: schema.GroupResource{Resource: "pods"}}},
	}
	for _, tc := range []struct {
		src  store.Source
		kept bool
	}{
		// The failed want may still ask for it once member1's discovery is read.
		{store.Source{Cluster: "member1", Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}, Namespace: "a"}, true},
		// No want of member2 failed, none of member1's core group: no longer wanted.
		{store.Source{Cluster: "member2", Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}}, false},
		{store.Source{Cluster: "member1", Resource: schema.GroupResource{Resource: "configmaps"}}, false},
	} {
		if got := undecided(wants, tc.src); got != tc.kept {
			t.Errorf("undecided(%s) = %v, want %v", tc.src, got, tc.kept)
		}
	}
}
