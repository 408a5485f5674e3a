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
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// simulatedFleet is n clusters over 3 providers, 5 regions of 2 zones, two environments and
// three tiers, with room for 0 to 63 one-CPU replicas and 110 pods per node; one in twenty
// is cordoned.
func simulatedFleet(n int, rng *rand.Rand) []*clusterv1alpha1.Cluster {
	providers := []string{"aws", "gcp", "huaweicloud"}
	envs := []string{"production", "staging"}
	tiers := []string{"gold", "silver", "bronze"}
	out := make([]*clusterv1alpha1.Cluster, n)
	for i := range out {
		region := fmt.Sprintf("region-%d", i%5)
		nodes := 1 + rng.IntN(8)
		c := cluster(fmt.Sprintf("member%03d", i), providers[i%3], region, fmt.Sprintf("%s%c", region, 'a'+rune(i%2)),
			labelled("environment", envs[i%2]), labelled("tier", tiers[i%3]))
		c.Status.ResourceSummary = &clusterv1alpha1.ResourceSummary{
			Allocatable: resources("cpu", fmt.Sprint(8*nodes), "memory", fmt.Sprintf("%dGi", 32*nodes), "pods", fmt.Sprint(110*nodes)),
			Allocated:   resources("cpu", fmt.Sprintf("%dm", rng.IntN(8000*nodes)), "memory", fmt.Sprintf("%dMi", rng.IntN(16000*nodes)), "pods", fmt.Sprint(rng.IntN(50))),
			Allocating:  resources("cpu", "500m", "pods", "1"),
		}
		if i%20 == 7 {
			c.Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
		}
		out[i] = c
	}
	return out
}

// benchmarkInputs is a mix of placements: duplicated by labels, static and dynamic weights,
// aggregated, spread by region and by label, and clusterAffinities, some with a previous
// result to scale from.
func benchmarkInputs(fleet []*clusterv1alpha1.Cluster) []Input {
	prod := &federationv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "production"}}}
	gold := &federationv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"gold"}}}}}
	request := resources("cpu", "250m", "memory", "512Mi")
	placements := []*federationv1alpha1.Placement{
		{ClusterAffinity: prod},
		{ClusterAffinity: gold, ReplicaScheduling: divided(weight("member000", 3), weight("member003", 2), weight("member006", 1))},
		{ClusterAffinity: prod, ReplicaScheduling: dynamic()},
		{ReplicaScheduling: aggregated()},
		{ReplicaScheduling: dynamic(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 3, 4), spread(byClstr, 1, 2)}},
		{ReplicaScheduling: aggregated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 2, 3), spread(byClstr, 1, 0)}},
		{ReplicaScheduling: duplicated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{{SpreadByLabel: "tier", MinGroups: 2, MaxGroups: 3}}},
		{ReplicaScheduling: divided(), ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{
			{AffinityName: "gold", ClusterAffinity: *gold}, {AffinityName: "production", ClusterAffinity: *prod}}},
	}
	var out []Input
	for i, p := range placements {
		for _, replicas := range []int32{3, 40, 400} {
			in := Input{Placement: p, Replicas: replicas, ResourceRequest: request}
			if i%2 == 1 {
				if prev, err := Schedule(fleet, Input{Placement: p, Replicas: replicas / 2, ResourceRequest: request}); err == nil {
					in.Previous = prev.Clusters
				}
			}
			out = append(out, in)
		}
	}
	return out
}

// BenchmarkSchedule schedules the mix of benchmarkInputs over simulated fleets of 3 to 1,000
// members: the scheduler's own cost per binding as the fleet grows (in-process clusters, not
// members of the lab; the lab's figures stop at 30).
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{3, 10, 30, 100, 1000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			fleet := simulatedFleet(n, rand.New(rand.NewPCG(1, 2)))
			inputs := benchmarkInputs(fleet)
			failed := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Schedule(fleet, inputs[i%len(inputs)]); err != nil {
					failed++
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bindings/s")
			b.ReportMetric(float64(failed)/float64(b.N), "unschedulable/op")
		})
	}
}
