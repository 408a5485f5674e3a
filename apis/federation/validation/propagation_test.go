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

package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

func validPropagationPolicy() *federation.PropagationPolicy {
	return &federation.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.PropagationSpec{
			ResourceSelectors: []federation.ResourceSelector{
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"},
				{APIVersion: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}},
			},
			Placement: federation.Placement{
				ClusterAffinity:    &federation.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
				ClusterTolerations: []corev1.Toleration{{Key: "cluster.fedhq.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				SpreadConstraints: []federation.SpreadConstraint{
					{SpreadByField: federation.SpreadByFieldRegion, MinGroups: 1, MaxGroups: 2},
					{SpreadByField: federation.SpreadByFieldCluster, MinGroups: 1},
				},
				ReplicaScheduling: &federation.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     federation.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: federation.ReplicaDivisionPreferenceWeighted,
					WeightPreference: &federation.ClusterPreferences{StaticWeightList: []federation.StaticClusterWeight{
						{TargetCluster: federation.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 2},
						{TargetCluster: federation.ClusterAffinity{ClusterNames: []string{"member2"}}, Weight: 0},
					}},
				},
			},
			Priority:           ptr.To[int32](0),
			Preemption:         federation.PreemptNever,
			ConflictResolution: federation.ConflictAbort,
			SchedulerName:      "default-scheduler",
			Failover: &federation.FailoverBehavior{Application: &federation.ApplicationFailoverBehavior{
				DecisionConditions: federation.DecisionConditions{TolerationSeconds: ptr.To[int32](300)},
				PurgeMode:          federation.PurgeGracefully,
				GracePeriodSeconds: ptr.To[int32](600),
			}},
		},
	}
}

func TestValidatePropagationPolicy(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.PropagationPolicy)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.PropagationPolicy) {}},
		{name: "no resource selectors", mutate: func(p *federation.PropagationPolicy) { p.Spec.ResourceSelectors = nil },
			want: []string{"FieldValueRequired spec.resourceSelectors"}},
		{name: "bad resource selectors", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.ResourceSelectors = []federation.ResourceSelector{
				{Kind: "Deployment"},
				{APIVersion: "a/b/c", Kind: "X", Namespace: "other"},
				{APIVersion: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}},
			}
		}, want: []string{
			"FieldValueRequired spec.resourceSelectors[0].apiVersion",
			"FieldValueInvalid spec.resourceSelectors[1].apiVersion",
			"FieldValueInvalid spec.resourceSelectors[1].namespace",
			"FieldValueInvalid spec.resourceSelectors[2].labelSelector.matchLabels",
		}},
		{name: "affinity and affinities together", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ClusterAffinities = []federation.ClusterAffinityTerm{{AffinityName: "primary"}}
		}, want: []string{"FieldValueForbidden spec.placement.clusterAffinities"}},
		{name: "bad affinity terms", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ClusterAffinity = nil
			p.Spec.Placement.ClusterAffinities = []federation.ClusterAffinityTerm{
				{AffinityName: "primary", ClusterAffinity: federation.ClusterAffinity{ClusterNames: []string{"member1", "member1"}}},
				{AffinityName: "primary", ClusterAffinity: federation.ClusterAffinity{ExcludeClusters: []string{"Bad_Name"}}},
				{ClusterAffinity: federation.ClusterAffinity{FieldSelector: &federation.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "region", Operator: corev1.NodeSelectorOpIn},
					{Key: "os", Operator: corev1.NodeSelectorOpGt, Values: []string{"1"}},
					{Key: "zone", Operator: corev1.NodeSelectorOpExists, Values: []string{"a"}},
				}}}},
			}
		}, want: []string{
			"FieldValueDuplicate spec.placement.clusterAffinities[0].clusterNames[1]",
			"FieldValueDuplicate spec.placement.clusterAffinities[1].affinityName",
			"FieldValueInvalid spec.placement.clusterAffinities[1].exclude[0]",
			"FieldValueRequired spec.placement.clusterAffinities[2].affinityName",
			"FieldValueRequired spec.placement.clusterAffinities[2].fieldSelector.matchExpressions[0].values",
			"FieldValueNotSupported spec.placement.clusterAffinities[2].fieldSelector.matchExpressions[1].key",
			"FieldValueNotSupported spec.placement.clusterAffinities[2].fieldSelector.matchExpressions[1].operator",
			"FieldValueForbidden spec.placement.clusterAffinities[2].fieldSelector.matchExpressions[2].values",
		}},
		{name: "overflow groups", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ClusterAffinity = nil
			p.Spec.Placement.ReplicaScheduling = nil
			p.Spec.Placement.SpreadConstraints = []federation.SpreadConstraint{{SpreadByField: federation.SpreadByFieldCluster, MaxGroups: 1}}
			p.Spec.Placement.ClusterAffinities = []federation.ClusterAffinityTerm{{AffinityName: "primary",
				OverflowAffinities: []federation.OverflowClusterAffinity{{AffinityName: "primary"}, {ClusterAffinity: federation.ClusterAffinity{ExcludeClusters: []string{"Bad_Name"}}}}}}
		}, want: []string{
			"FieldValueDuplicate spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName",
			"FieldValueRequired spec.placement.clusterAffinities[0].overflowAffinities[1].affinityName",
			"FieldValueInvalid spec.placement.clusterAffinities[0].overflowAffinities[1].exclude[0]",
			"FieldValueForbidden spec.placement.clusterAffinities[0].overflowAffinities",
			"FieldValueForbidden spec.placement.clusterAffinities[0].overflowAffinities",
		}},
		{name: "overflow groups of a divided workload", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ClusterAffinity, p.Spec.Placement.SpreadConstraints = nil, nil
			p.Spec.Placement.ReplicaScheduling = &federation.ReplicaSchedulingStrategy{ReplicaSchedulingType: federation.ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: federation.ReplicaDivisionPreferenceWeighted}
			p.Spec.Placement.ClusterAffinities = []federation.ClusterAffinityTerm{{AffinityName: "primary",
				ClusterAffinity:    federation.ClusterAffinity{ClusterNames: []string{"member1"}},
				OverflowAffinities: []federation.OverflowClusterAffinity{{AffinityName: "overflow", ClusterAffinity: federation.ClusterAffinity{ClusterNames: []string{"member2", "member3"}}}}}}
		}},
		{name: "workload affinity", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.WorkloadAffinity = &federation.WorkloadAffinity{Affinity: &federation.WorkloadAffinityTerm{},
				AntiAffinity: &federation.WorkloadAffinityTerm{GroupByLabelKey: "not a key"}}
		}, want: []string{
			"FieldValueRequired spec.placement.workloadAffinity.affinity.groupByLabelKey",
			"FieldValueInvalid spec.placement.workloadAffinity.antiAffinity.groupByLabelKey",
		}},
		{name: "workload affinity and anti-affinity", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.WorkloadAffinity = &federation.WorkloadAffinity{Affinity: &federation.WorkloadAffinityTerm{GroupByLabelKey: "app.group"},
				AntiAffinity: &federation.WorkloadAffinityTerm{GroupByLabelKey: "example.com/ha-group"}}
		}},
		{name: "bad tolerations", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ClusterTolerations = []corev1.Toleration{
				{Key: "", Operator: corev1.TolerationOpEqual, Value: "x"},
				{Key: "a", Operator: corev1.TolerationOpExists, Value: "x"},
				{Key: "a", Operator: "Matches", Effect: "NoRun"},
				{Key: "a", Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](10)},
			}
		}, want: []string{
			"FieldValueInvalid spec.placement.clusterTolerations[0].operator",
			"FieldValueInvalid spec.placement.clusterTolerations[1].value",
			"FieldValueNotSupported spec.placement.clusterTolerations[2].operator",
			"FieldValueNotSupported spec.placement.clusterTolerations[2].effect",
			"FieldValueInvalid spec.placement.clusterTolerations[3].effect",
		}},
		{name: "spread by field without a cluster constraint", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.SpreadConstraints = p.Spec.Placement.SpreadConstraints[:1]
		}, want: []string{"FieldValueRequired spec.placement.spreadConstraints"}},
		{name: "spread by label alone needs no cluster constraint", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.SpreadConstraints = []federation.SpreadConstraint{
				{SpreadByLabel: "topology.kubernetes.io/zone", MinGroups: 2, MaxGroups: 3},
			}
		}},
		{name: "bad spread constraints", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.SpreadConstraints = []federation.SpreadConstraint{
				{SpreadByField: federation.SpreadByFieldCluster, MinGroups: 3, MaxGroups: 2},
				{SpreadByField: federation.SpreadByFieldRegion, SpreadByLabel: "tier", MinGroups: 1},
				{SpreadByField: "datacenter", MinGroups: -1},
				{MinGroups: 1},
				{SpreadByField: federation.SpreadByFieldCluster, MinGroups: 1},
			}
		}, want: []string{
			"FieldValueInvalid spec.placement.spreadConstraints[0].maxGroups",
			"FieldValueForbidden spec.placement.spreadConstraints[1].spreadByLabel",
			"FieldValueNotSupported spec.placement.spreadConstraints[2].spreadByField",
			"FieldValueInvalid spec.placement.spreadConstraints[2].minGroups",
			"FieldValueRequired spec.placement.spreadConstraints[3].spreadByField",
			"FieldValueDuplicate spec.placement.spreadConstraints[4]",
		}},
		{name: "bad replica scheduling", mutate: func(p *federation.PropagationPolicy) {
			rs := p.Spec.Placement.ReplicaScheduling
			rs.ReplicaSchedulingType = "Spread"
			rs.ReplicaDivisionPreference = "Dynamic"
			rs.WeightPreference.StaticWeightList[1].Weight = -1
			rs.WeightPreference.DynamicWeight = "FreeMemory"
			rs.DynamicWeight = federation.DynamicWeightByAvailableReplicas
		}, want: []string{
			"FieldValueNotSupported spec.placement.replicaScheduling.replicaSchedulingType",
			"FieldValueNotSupported spec.placement.replicaScheduling.replicaDivisionPreference",
			"FieldValueInvalid spec.placement.replicaScheduling.weightPreference.staticWeightList[1].weight",
			"FieldValueNotSupported spec.placement.replicaScheduling.weightPreference.dynamicWeight",
			"FieldValueInvalid spec.placement.replicaScheduling.dynamicWeight",
		}},
		{name: "divided without preference", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ReplicaScheduling.ReplicaDivisionPreference = ""
		}, want: []string{"FieldValueRequired spec.placement.replicaScheduling.replicaDivisionPreference"}},
		{name: "duplicated needs no preference", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Placement.ReplicaScheduling = &federation.ReplicaSchedulingStrategy{ReplicaSchedulingType: federation.ReplicaSchedulingTypeDuplicated}
		}},
		{name: "bad enums and names", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Preemption = "Sometimes"
			p.Spec.ConflictResolution = ""
			p.Spec.ActivationPreference = "Eager"
			p.Spec.DependentOverrides = []string{"ok", "Not OK"}
			p.Spec.Suspension = &federation.Suspension{DispatchingOnClusters: &federation.SuspendClusters{ClusterNames: []string{""}}}
		}, want: []string{
			"FieldValueNotSupported spec.preemption",
			"FieldValueInvalid spec.dependentOverrides[1]",
			"FieldValueRequired spec.conflictResolution",
			"FieldValueNotSupported spec.activationPreference",
			"FieldValueRequired spec.suspension.dispatchingOnClusters.clusterNames[0]",
		}},
		{name: "bad failover", mutate: func(p *federation.PropagationPolicy) {
			p.Spec.Failover = &federation.FailoverBehavior{
				Application: &federation.ApplicationFailoverBehavior{
					DecisionConditions: federation.DecisionConditions{TolerationSeconds: ptr.To[int32](-1)},
					PurgeMode:          federation.PurgeDirectly,
					PurgePolicy:        federation.PurgeNever,
					GracePeriodSeconds: ptr.To[int32](60),
					StatePreservation: &federation.StatePreservation{Rules: []federation.StatePreservationRule{
						{AliasLabelName: "fed.io/replicas", JSONPath: "{ .replicas }"},
						{AliasLabelName: "fed.io/replicas"},
					}},
				},
				ApplicationMigrationPolicy: &federation.ApplicationFailoverBehavior{PurgeMode: federation.PurgeNever},
				Cluster:                    &federation.ClusterFailoverBehavior{PurgeMode: federation.PurgeNever, GracePeriodSeconds: ptr.To[int32](5)},
			}
		}, want: []string{
			"FieldValueInvalid spec.failover.application.decisionConditions.tolerationSeconds",
			"FieldValueInvalid spec.failover.application.purgePolicy",
			"FieldValueForbidden spec.failover.application.gracePeriodSeconds",
			"FieldValueDuplicate spec.failover.application.statePreservation.rules[1].aliasLabelName",
			"FieldValueRequired spec.failover.application.statePreservation.rules[1].jsonPath",
			"FieldValueForbidden spec.failover.cluster.gracePeriodSeconds",
			"FieldValueForbidden spec.failover.applicationMigrationPolicy",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validPropagationPolicy()
			tc.mutate(p)
			expectErrors(t, ValidatePropagationPolicy(p), tc.want)
			expectErrors(t, ValidatePropagationPolicyUpdate(p, validPropagationPolicy()), tc.want)
		})
	}
}

func TestValidateClusterPropagationPolicy(t *testing.T) {
	tests := []struct {
		name      string
		selectors []federation.ResourceSelector
		want      []string
	}{
		{name: "cluster-scoped kind", selectors: []federation.ResourceSelector{{APIVersion: "v1", Kind: "Namespace", Name: "nginx-system"}}},
		{name: "any namespace", selectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team-a"}}},
		{name: "invalid namespace", selectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "Team.A"}},
			want: []string{"FieldValueInvalid spec.resourceSelectors[0].namespace"}},
		{name: "no selectors", want: []string{"FieldValueRequired spec.resourceSelectors"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &federation.ClusterPropagationPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: "crds", ResourceVersion: "1"},
				Spec:       validPropagationPolicy().Spec,
			}
			p.Spec.ResourceSelectors = tc.selectors
			expectErrors(t, ValidateClusterPropagationPolicy(p), tc.want)
			expectErrors(t, ValidateClusterPropagationPolicyUpdate(p, p.DeepCopy()), tc.want)
		})
	}
}
