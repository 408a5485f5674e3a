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
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/noderoom"
)

// node is a node of a member's picture with what is free on it ("cpu", "16", ...); options
// label and taint it.
func node(name string, free corev1.ResourceList, opts ...func(*noderoom.Node)) noderoom.Node {
	n := noderoom.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}, Free: free}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func nodeLabel(key, value string) func(*noderoom.Node) {
	return func(n *noderoom.Node) { n.Labels[key] = value }
}

func nodeTaint(key string, effect corev1.TaintEffect) func(*noderoom.Node) {
	return func(n *noderoom.Node) {
		n.Taints = append(n.Taints, corev1.Taint{Key: key, Value: "x", Effect: effect})
	}
}

// sixteens is member3 of the lab: three nodes of 16 CPU, 64Gi and 110 pods.
func sixteens() []noderoom.Node {
	var out []noderoom.Node
	for i := range 3 {
		out = append(out, node(fmt.Sprintf("member3-node-%d", i), resources("cpu", "16", "memory", "64Gi", "pods", "110"),
			nodeLabel("topology.kubernetes.io/zone", fmt.Sprintf("z%d", i))))
	}
	return out
}

func requirements(request corev1.ResourceList, claim *federationv1alpha1.NodeClaim) *federationv1alpha1.ReplicaRequirements {
	return &federationv1alpha1.ReplicaRequirements{ResourceRequest: request, NodeClaim: claim}
}

func inZones(op corev1.NodeSelectorOperator, zones ...string) *federationv1alpha1.NodeClaim {
	return &federationv1alpha1.NodeClaim{HardNodeAffinity: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: op, Values: zones}}}}}}
}

func TestNodeAvailable(t *testing.T) {
	// The resource summary of a cluster without a picture: 48 CPU in all.
	summarized := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member3"}, Status: clusterv1alpha1.ClusterStatus{
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: resources("cpu", "48", "memory", "192Gi", "pods", "330")}}}
	tolerate := func(key string, effect corev1.TaintEffect) *federationv1alpha1.NodeClaim {
		return &federationv1alpha1.NodeClaim{Tolerations: []corev1.Toleration{{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}}}
	}
	for _, c := range []struct {
		name  string
		nodes []noderoom.Node // nil: no picture of the cluster
		rr    *federationv1alpha1.ReplicaRequirements
		want  int64
	}{
		{"resources split across nodes: one 10-CPU replica per node, not 48/10", sixteens(), requirements(resources("cpu", "10"), nil), 3},
		{"each node's own share adds up", sixteens(), requirements(resources("cpu", "5"), nil), 9},
		{"the least over the requested resources, per node",
			[]noderoom.Node{node("a", resources("cpu", "8", "memory", "4Gi")), node("b", resources("cpu", "2", "memory", "64Gi"))},
			requirements(resources("cpu", "1", "memory", "2Gi"), nil), 4},
		{"fractions of a CPU are exact", []noderoom.Node{node("a", resources("cpu", "1200m"))}, requirements(resources("cpu", "100m"), nil), 12},
		{"what is used on a node is not free", []noderoom.Node{node("a", resources("cpu", "-1")), node("b", resources("cpu", "3"))},
			requirements(resources("cpu", "1"), nil), 3},
		{"a node lacking a requested resource holds none",
			[]noderoom.Node{node("gpu", resources("cpu", "8", "nvidia.com/gpu", "2")), node("plain", resources("cpu", "8"))},
			requirements(resources("cpu", "1", "nvidia.com/gpu", "1"), nil), 2},
		{"pods limit: one pod each where the node reports pods",
			[]noderoom.Node{node("a", resources("cpu", "100", "pods", "2")), node("b", resources("cpu", "100", "pods", "0")), node("c", resources("cpu", "3"))},
			requirements(resources("cpu", "1"), nil), 5},
		{"nodeSelector: only the nodes it matches", sixteens(),
			requirements(resources("cpu", "1"), &federationv1alpha1.NodeClaim{NodeSelector: map[string]string{"topology.kubernetes.io/zone": "z1"}}), 16},
		{"nodeSelector matching no node: none", sixteens(),
			requirements(resources("cpu", "1"), &federationv1alpha1.NodeClaim{NodeSelector: map[string]string{"disk": "ssd"}}), 0},
		{"nodeSelector matching no node, no request: none", sixteens(),
			requirements(nil, &federationv1alpha1.NodeClaim{NodeSelector: map[string]string{"disk": "ssd"}}), 0},
		{"required affinity In", sixteens(), requirements(resources("cpu", "4"), inZones(corev1.NodeSelectorOpIn, "z0", "z2")), 8},
		{"required affinity NotIn", sixteens(), requirements(resources("cpu", "4"), inZones(corev1.NodeSelectorOpNotIn, "z0", "z2")), 4},
		{"required affinity on the node's name (matchFields)", sixteens(), requirements(resources("cpu", "16"), &federationv1alpha1.NodeClaim{
			HardNodeAffinity: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"member3-node-1"}}}}}}}), 1},
		{"an affinity that cannot be parsed matches no node", sixteens(), requirements(resources("cpu", "1"), inZones("Near", "z0")), 0},
		{"untolerated NoSchedule taint: the node is left out",
			[]noderoom.Node{node("a", resources("cpu", "4"), nodeTaint("gpu", corev1.TaintEffectNoSchedule)), node("b", resources("cpu", "4"))},
			requirements(resources("cpu", "1"), nil), 4},
		{"untolerated NoExecute taint: the node is left out",
			[]noderoom.Node{node("a", resources("cpu", "4"), nodeTaint("gone", corev1.TaintEffectNoExecute)), node("b", resources("cpu", "4"))},
			requirements(resources("cpu", "1"), nil), 4},
		{"a PreferNoSchedule taint does not keep replicas off",
			[]noderoom.Node{node("a", resources("cpu", "4"), nodeTaint("soft", corev1.TaintEffectPreferNoSchedule)), node("b", resources("cpu", "4"))},
			requirements(resources("cpu", "1"), nil), 8},
		{"a tolerated taint",
			[]noderoom.Node{node("a", resources("cpu", "4"), nodeTaint("gpu", corev1.TaintEffectNoSchedule)), node("b", resources("cpu", "4"))},
			requirements(resources("cpu", "1"), tolerate("gpu", corev1.TaintEffectNoSchedule)), 8},
		{"a toleration of another effect does not tolerate it",
			[]noderoom.Node{node("a", resources("cpu", "4"), nodeTaint("gpu", corev1.TaintEffectNoExecute)), node("b", resources("cpu", "4"))},
			requirements(resources("cpu", "1"), tolerate("gpu", corev1.TaintEffectNoSchedule)), 4},
		{"no request: unlimited on any node it may run on", sixteens(), nil, Unlimited},
		{"no node takes pods (all cordoned or not Ready): none", []noderoom.Node{}, requirements(resources("cpu", "1"), nil), 0},
		{"no node takes pods, no request: none", []noderoom.Node{}, nil, 0},
		{"no picture: the resource summary, 48/10", nil, requirements(resources("cpu", "10"), nil), 4},
		{"no picture and no request: unlimited", nil, nil, Unlimited},
		{"no picture: the node claim cannot be checked", nil,
			requirements(resources("cpu", "10"), &federationv1alpha1.NodeClaim{NodeSelector: map[string]string{"disk": "ssd"}}), 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := noderoom.NewStore()
			if c.nodes != nil {
				store.Set("member3", c.nodes, time.Now())
			}
			if got := nodeAvailable(store, nil, c.rr)(summarized); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}

// TestScheduleWithNodeRoom: the estimate of Input.Available decides, not the resource
// summary: a member whose 48 CPU are three nodes of 16 holds three 10-CPU replicas.
func TestScheduleWithNodeRoom(t *testing.T) {
	clusters := rooms(48, 48)
	store := noderoom.NewStore()
	store.Set("member1", sixteens(), time.Now())
	in := Input{Placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated()}, Replicas: 4,
		ResourceRequest: resources("cpu", "10"), Available: nodeAvailable(store, nil, requirements(resources("cpu", "10"), nil))}
	got, err := Schedule(clusters, in)
	if err != nil {
		t.Fatal(err)
	}
	// member2, without a picture, holds 4 by its summary and takes all.
	if targets(got.Clusters) != "member2=4" {
		t.Errorf("got %s, want member2=4", targets(got.Clusters))
	}
	store.Set("member2", []noderoom.Node{node("big", resources("cpu", "10"))}, time.Now())
	got, err = Schedule(clusters, in)
	if err != nil {
		t.Fatal(err)
	}
	if targets(got.Clusters) != "member1=3 member2=1" {
		t.Errorf("got %s, want member1=3 member2=1", targets(got.Clusters))
	}
	// Without Available, the summaries: 48/10 = 4 in either.
	in.Available = nil
	if got, err = Schedule(clusters, in); err != nil || targets(got.Clusters) != "member1=4" {
		t.Errorf("without Available: got %s (%v), want member1=4", targets(got.Clusters), err)
	}
}

// TestUnpictured: in its first half minute the scheduler waits for a picture of each Ready
// member's nodes; a member not Ready, or after that, it does not wait for.
func TestUnpictured(t *testing.T) {
	ready := func(name string, status metav1.ConditionStatus) *clusterv1alpha1.Cluster {
		cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		cl.Status.Conditions = []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: status}}
		return cl
	}
	now := time.Now()
	c := &Controller{rooms: noderoom.NewStore(), started: now}
	clusters := []*clusterv1alpha1.Cluster{ready("member1", metav1.ConditionTrue), ready("member2", metav1.ConditionUnknown)}
	if !c.unpictured(clusters, now.Add(time.Second)) {
		t.Error("member1 is Ready without a picture at the start: the scheduler should wait")
	}
	c.rooms.Set("member1", nil, now)
	if c.unpictured(clusters, now.Add(time.Second)) {
		t.Error("member1 has a picture and member2 is not Ready: the scheduler should not wait")
	}
	c.rooms.Delete("member1")
	if c.unpictured(clusters, now.Add(pictureWait+time.Second)) {
		t.Error("after pictureWait the scheduler should not wait")
	}
}
