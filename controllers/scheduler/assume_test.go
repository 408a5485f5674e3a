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

package scheduler

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/noderoom"
)

func on(cluster string, replicas int32) []federationv1alpha1.TargetCluster {
	return []federationv1alpha1.TargetCluster{{Name: cluster, Replicas: replicas}}
}

func healthy(cluster, status string) []federationv1alpha1.AggregatedStatusItem {
	return []federationv1alpha1.AggregatedStatusItem{{ClusterName: cluster, Applied: true, Health: federationv1alpha1.ResourceHealthy,
		Status: &runtime.RawExtension{Raw: []byte(status)}}}
}

// TestAssumedRoom: replicas the scheduler placed take room in their member's picture until
// a picture read after their binding's status told of them running, or for assumeTTL;
// less of them placed, less is assumed; a failed write undoes; a binding gone takes its
// assumptions with it. member3 has three nodes of 16 CPU: nine replicas of 5 CPU fit.
func TestAssumedRoom(t *testing.T) {
	clock := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	a := newAssumed()
	a.now = func() time.Time { return clock }
	store := noderoom.NewStore()
	store.Set("member3", sixteens(), clock)
	member3 := &clusterv1alpha1.Cluster{}
	member3.Name = "member3"
	five := requirements(resources("cpu", "5"), nil)
	room := func() int64 { return nodeAvailable(store, a, five)(member3) }
	if got := room(); got != 9 {
		t.Fatalf("nothing assumed: %d, want 9", got)
	}
	web, api := key{Namespace: "ns", Name: "web"}, key{Namespace: "ns", Name: "api"}
	old := healthy("member3", `{"replicas":1}`)
	a.place(web, on("member3", 1), on("member3", 5), newNodeEstimate(five), old)
	if got := room(); got != 5 { // 4 assumed: three on the first node, one on the second
		t.Errorf("4 more of web assumed: %d, want 5", got)
	}
	undo := a.place(api, nil, on("member3", 5), newNodeEstimate(five), nil)
	if got := room(); got != 0 {
		t.Errorf("and 5 of api: %d, want 0", got)
	}
	undo()
	if got := room(); got != 5 {
		t.Errorf("api's write failed, undone: %d, want 5", got)
	}
	a.place(api, nil, on("member3", 5), newNodeEstimate(five), nil)

	clock = clock.Add(time.Second)
	a.observe(web, old)
	store.Set("member3", sixteens(), clock)
	if got := room(); got != 0 {
		t.Errorf("web's status as when it was placed (not running yet): %d, want 0", got)
	}
	a.observe(web, healthy("member3", `{"replicas":5}`))
	if got := room(); got != 0 {
		t.Errorf("web running, the picture read before: %d, want 0", got)
	}
	clock = clock.Add(time.Second)
	store.Set("member3", sixteens(), clock) // (the probe would count web's pods)
	if got := room(); got != 4 {
		t.Errorf("web running, a picture read after: %d, want 4 (api's 5 assumed)", got)
	}

	a.place(api, on("member3", 5), on("member3", 2), newNodeEstimate(five), nil)
	if got := room(); got != 7 {
		t.Errorf("api down to 2: %d, want 7", got)
	}
	a.place(api, on("member3", 2), on("member3", 4), newNodeEstimate(five), nil)
	clock = clock.Add(assumeTTL + time.Second)
	if got := room(); got != 9 {
		t.Errorf("after assumeTTL: %d, want 9", got)
	}
	a.place(api, on("member3", 4), on("member3", 6), newNodeEstimate(five), nil)
	if got := room(); got != 7 {
		t.Errorf("api up by 2 again: %d, want 7", got)
	}
	a.forget(api)
	if got := room(); got != 9 || len(a.bindings) != 0 {
		t.Errorf("api gone: %d and %d bindings assumed, want 9 and none", got, len(a.bindings))
	}
	// A workload that requests nothing takes a pod each, of 110 on each node: the first
	// two nodes have none left, the third 30.
	a.place(api, nil, on("member3", 250), newNodeEstimate(nil), nil)
	if got := room(); got != 3 {
		t.Errorf("250 pods assumed: %d, want 3 (all on the third node)", got)
	}
}
