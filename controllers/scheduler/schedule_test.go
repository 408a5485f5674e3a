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
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func targets(ts []federationv1alpha1.TargetCluster) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%s=%d", t.Name, t.Replicas))
	}
	return strings.Join(parts, " ")
}

func TestSchedule(t *testing.T) {
	names := func(n ...string) *federationv1alpha1.ClusterAffinity {
		return &federationv1alpha1.ClusterAffinity{ClusterNames: n}
	}
	divided := func(list ...federationv1alpha1.StaticClusterWeight) *federationv1alpha1.ReplicaSchedulingStrategy {
		s := &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceWeighted}
		if len(list) > 0 {
			s.WeightPreference = &federationv1alpha1.ClusterPreferences{StaticWeightList: list}
		}
		return s
	}
	weight := func(cluster string, w int64) federationv1alpha1.StaticClusterWeight {
		return federationv1alpha1.StaticClusterWeight{TargetCluster: *names(cluster), Weight: w}
	}
	cordoned := fleet()
	cordoned[0].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}}

	for _, c := range []struct {
		name      string
		clusters  []*clusterv1alpha1.Cluster
		placement *federationv1alpha1.Placement
		replicas  int32
		want      string // targets, or "error: REASON"
	}{
		{"the seeds' nginx example: Divided 1:1 over member1 and member2", fleet(),
			&federationv1alpha1.Placement{ClusterAffinity: names("member1", "member2"), ReplicaScheduling: divided(weight("member1", 1), weight("member2", 1))},
			2, "member1=1 member2=1"},
		{"scaled to 4", fleet(),
			&federationv1alpha1.Placement{ClusterAffinity: names("member1", "member2"), ReplicaScheduling: divided(weight("member1", 1), weight("member2", 1))},
			4, "member1=2 member2=2"},
		{"the policy changed to member2", fleet(), &federationv1alpha1.Placement{ClusterAffinity: names("member2")}, 2, "member2=2"},
		{"no placement: Duplicated to every cluster", fleet(), nil, 3, "member1=3 member2=3 member3=3"},
		{"a kind without replicas", fleet(), &federationv1alpha1.Placement{ClusterAffinity: names("member1"), ReplicaScheduling: divided()}, 0, "member1=0"},
		{"Divided without weights: equal", fleet(), &federationv1alpha1.Placement{ReplicaScheduling: divided()}, 4, "member1=2 member2=1 member3=1"},
		{"clusters left with none are dropped", fleet(), &federationv1alpha1.Placement{ReplicaScheduling: divided()}, 2, "member1=1 member2=1"},
		{"a cordoned cluster takes no new placement", cordoned, &federationv1alpha1.Placement{ClusterAffinity: names("member1", "member2")}, 1, "member2=1"},
		{"unless the placement tolerates it", cordoned, &federationv1alpha1.Placement{ClusterAffinity: names("member1", "member2"),
			ClusterTolerations: []corev1.Toleration{{Key: clusterv1alpha1.TaintClusterUnschedulable, Operator: corev1.TolerationOpExists}}}, 1, "member1=1 member2=1"},
		{"only tainted clusters match", cordoned, &federationv1alpha1.Placement{ClusterAffinity: names("member1")}, 1, "error: NoClusterFit"},
		{"clusterAffinities: the first group that selects any", fleet(), &federationv1alpha1.Placement{ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{
			{AffinityName: "primary", ClusterAffinity: *names("member9")}, {AffinityName: "backup", ClusterAffinity: *names("member3")}}}, 1, "member3=1"},
		{"both affinity forms are refused", fleet(), &federationv1alpha1.Placement{ClusterAffinity: names("member1"),
			ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{{AffinityName: "a", ClusterAffinity: *names("member2")}}}, 1, "error: InvalidPlacement"},
		{"weight 0 everywhere", fleet(), &federationv1alpha1.Placement{ClusterAffinity: names("member1"), ReplicaScheduling: divided(weight("member1", 0))}, 2, "error: NoClusterFit"},
		{"Aggregated is not implemented yet", fleet(), &federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceAggregated}}, 2, "error: Unsupported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Schedule(c.clusters, c.placement, c.replicas)
			var u *Unschedulable
			switch {
			case errors.As(err, &u):
				if want := "error: " + u.Reason; want != c.want {
					t.Errorf("%s (%s), want %s", want, u.Message, c.want)
				}
			case err != nil:
				t.Fatal(err)
			case targets(got) != c.want:
				t.Errorf("got %s, want %s", targets(got), c.want)
			}
		})
	}
}
