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

// shopComponents are the example TieredGuestbook's: two frontends of 1 CPU, a store of 10.
func shopComponents() []federationv1alpha1.Component {
	return []federationv1alpha1.Component{
		{Name: "frontend", Replicas: 2, ReplicaRequirements: requirements(resources("cpu", "1"), nil)},
		{Name: "store", Replicas: 1, ReplicaRequirements: requirements(resources("cpu", "10"), nil)},
	}
}

// TestComponentSets: a multi-component workload fits where its components fit together, node
// by node: three nodes of 16 CPU hold three sets of two 1-CPU frontends and a 10-CPU store
// (not 48/12 = 4), nodes of 4 CPU none; what the scheduler placed of it is assumed whole.
// Schedule places it whole: Divided on the one cluster that holds the most (or runs it
// already), Duplicated on each cluster with room; with room nowhere, it says so.
func TestComponentSets(t *testing.T) {
	store := noderoom.NewStore()
	now := time.Now()
	store.Set("member3", sixteens(), now)
	store.Set("member1", []noderoom.Node{node("small", resources("cpu", "4", "pods", "110"))}, now)
	clusters := rooms(4, 48, 48) // member2: no picture, its summary holds 48 CPU: 4 sets of 12
	a := newAssumed()
	sets := nodeSets(store, a, shopComponents())
	for _, c := range clusters {
		want := map[string]int64{"member1": 0, "member2": 4, "member3": 3}[c.Name]
		if got := sets(c); got != want {
			t.Errorf("%s holds %d sets, want %d", c.Name, got, want)
		}
	}
	shop := key{Namespace: "ns", Name: "shop"}
	a.placeWhole(shop, nil, on("member3", 0), shopComponents(), nil)
	if got := sets(clusters[2]); got != 2 {
		t.Errorf("member3 with one set assumed: %d, want 2", got)
	}
	a.placeWhole(shop, on("member3", 0), on("member2", 0), shopComponents(), nil)
	if got := sets(clusters[2]); got != 3 {
		t.Errorf("member3 after the set moved away: %d, want 3", got)
	}

	divided := &federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
		ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided}}
	for _, tc := range []struct {
		name      string
		placement *federationv1alpha1.Placement
		previous  []federationv1alpha1.TargetCluster
		want      string
	}{
		{"divided: the cluster that holds the most", divided, nil, "member2=0"},
		{"divided: where it runs", divided, on("member3", 0), "member3=0"},
		{"duplicated: each cluster with room", nil, nil, "member2=0 member3=0"},
	} {
		got, err := Schedule(clusters, Input{Placement: tc.placement, Previous: tc.previous, Sets: nodeSets(store, nil, shopComponents())})
		if err != nil || targets(got.Clusters) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, targets(got.Clusters), err, tc.want)
		}
	}
	_, err := Schedule(clusters[:1], Input{Placement: divided, Sets: nodeSets(store, nil, shopComponents())})
	if err == nil || err.Error() != "no cluster fits the placement: member1 have no room for the workload's components together" {
		t.Errorf("no room: %v", err)
	}
}
