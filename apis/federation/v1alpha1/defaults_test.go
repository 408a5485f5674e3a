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

package v1alpha1

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func defaulted(t *testing.T, obj runtime.Object) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.Default(obj)
}

func expectEqual(t *testing.T, got, want interface{}) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("\n got  %#v\n want %#v", got, want)
	}
}

func TestPlacementDefaults(t *testing.T) {
	cluster := SpreadConstraint{SpreadByField: SpreadByFieldCluster, MinGroups: 1}
	tests := []struct {
		name string
		in   Placement
		want Placement
	}{
		{name: "empty placement stays empty"},
		{name: "bare constraint spreads by cluster",
			in:   Placement{SpreadConstraints: []SpreadConstraint{{MaxGroups: 2}}},
			want: Placement{SpreadConstraints: []SpreadConstraint{{SpreadByField: SpreadByFieldCluster, MinGroups: 1, MaxGroups: 2}}}},
		{name: "spreading by region adds a cluster constraint",
			in:   Placement{SpreadConstraints: []SpreadConstraint{{SpreadByField: SpreadByFieldRegion, MinGroups: 2}}},
			want: Placement{SpreadConstraints: []SpreadConstraint{{SpreadByField: SpreadByFieldRegion, MinGroups: 2}, cluster}}},
		{name: "existing cluster constraint is kept",
			in:   Placement{SpreadConstraints: []SpreadConstraint{{SpreadByField: SpreadByFieldZone}, {SpreadByField: SpreadByFieldCluster, MinGroups: 2}}},
			want: Placement{SpreadConstraints: []SpreadConstraint{{SpreadByField: SpreadByFieldZone, MinGroups: 1}, {SpreadByField: SpreadByFieldCluster, MinGroups: 2}}}},
		{name: "spreading by label needs no cluster constraint",
			in:   Placement{SpreadConstraints: []SpreadConstraint{{SpreadByLabel: "tier", MinGroups: 2}}},
			want: Placement{SpreadConstraints: []SpreadConstraint{{SpreadByLabel: "tier", MinGroups: 2}}}},
		{name: "empty replica scheduling divides by weight",
			in:   Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{}},
			want: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted}}},
		{name: "duplicated gets no division preference",
			in:   Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDuplicated}},
			want: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDuplicated}}},
		{name: "Dynamic shorthand",
			in: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaDivisionPreference: ReplicaDivisionPreferenceDynamic}},
			want: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted,
				WeightPreference:          &ClusterPreferences{DynamicWeight: DynamicWeightByAvailableReplicas}}}},
		{name: "top-level dynamicWeight moves into weightPreference",
			in: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted, DynamicWeight: DynamicWeightByAvailableReplicas,
				WeightPreference: &ClusterPreferences{StaticWeightList: []StaticClusterWeight{{Weight: 1}}}}},
			want: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted,
				WeightPreference:          &ClusterPreferences{StaticWeightList: []StaticClusterWeight{{Weight: 1}}, DynamicWeight: DynamicWeightByAvailableReplicas}}}},
		{name: "contradicting shorthand is kept for validation",
			in: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted, DynamicWeight: "Other",
				WeightPreference: &ClusterPreferences{DynamicWeight: DynamicWeightByAvailableReplicas}}},
			want: Placement{ReplicaScheduling: &ReplicaSchedulingStrategy{ReplicaSchedulingType: ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: ReplicaDivisionPreferenceWeighted, DynamicWeight: "Other",
				WeightPreference: &ClusterPreferences{DynamicWeight: DynamicWeightByAvailableReplicas}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &PropagationPolicy{Spec: PropagationSpec{Placement: tc.in}}
			defaulted(t, p)
			expectEqual(t, p.Spec.Placement, tc.want)
			// Defaulting twice changes nothing.
			again := p.DeepCopy()
			defaulted(t, again)
			expectEqual(t, again, p)
		})
	}
}

func TestPropagationSpecDefaults(t *testing.T) {
	p := &ClusterPropagationPolicy{}
	defaulted(t, p)
	expectEqual(t, p.Spec, PropagationSpec{Priority: ptr.To[int32](0), Preemption: PreemptNever,
		ConflictResolution: ConflictAbort, SchedulerName: DefaultSchedulerName})

	b := &ResourceBinding{}
	defaulted(t, b)
	expectEqual(t, b.Spec, ResourceBindingSpec{ConflictResolution: ConflictAbort, SchedulerName: DefaultSchedulerName})
}

func TestFailoverDefaults(t *testing.T) {
	defaults := func(mode PurgeMode, grace *int32) *ApplicationFailoverBehavior {
		return &ApplicationFailoverBehavior{DecisionConditions: DecisionConditions{TolerationSeconds: ptr.To[int32](300)},
			PurgeMode: mode, GracePeriodSeconds: grace}
	}
	tests := []struct {
		name string
		in   FailoverBehavior
		want FailoverBehavior
	}{
		{name: "empty application", in: FailoverBehavior{Application: &ApplicationFailoverBehavior{}},
			want: FailoverBehavior{Application: defaults(PurgeGracefully, ptr.To[int32](600))}},
		{name: "directly gets no grace period", in: FailoverBehavior{Application: &ApplicationFailoverBehavior{PurgeMode: PurgeDirectly}},
			want: FailoverBehavior{Application: defaults(PurgeDirectly, nil)}},
		{name: "former names", in: FailoverBehavior{Application: &ApplicationFailoverBehavior{PurgeMode: "Immediately"}},
			want: FailoverBehavior{Application: defaults(PurgeDirectly, nil)}},
		{name: "other names move", in: FailoverBehavior{ApplicationMigrationPolicy: &ApplicationFailoverBehavior{PurgePolicy: "Graciously"}},
			want: FailoverBehavior{Application: defaults(PurgeGracefully, ptr.To[int32](600))}},
		{name: "equal spellings merge", in: FailoverBehavior{
			Application:                &ApplicationFailoverBehavior{PurgeMode: PurgeNever},
			ApplicationMigrationPolicy: &ApplicationFailoverBehavior{PurgePolicy: PurgeNever}},
			want: FailoverBehavior{Application: defaults(PurgeNever, nil)}},
		{name: "differing spellings are kept for validation", in: FailoverBehavior{
			Application:                &ApplicationFailoverBehavior{PurgeMode: PurgeNever, PurgePolicy: PurgeDirectly},
			ApplicationMigrationPolicy: &ApplicationFailoverBehavior{PurgeMode: PurgeDirectly}},
			want: FailoverBehavior{
				Application:                &ApplicationFailoverBehavior{DecisionConditions: DecisionConditions{TolerationSeconds: ptr.To[int32](300)}, PurgeMode: PurgeNever, PurgePolicy: PurgeDirectly},
				ApplicationMigrationPolicy: defaults(PurgeDirectly, nil)}},
		{name: "empty cluster failover", in: FailoverBehavior{Cluster: &ClusterFailoverBehavior{}},
			want: FailoverBehavior{Cluster: &ClusterFailoverBehavior{PurgeMode: PurgeGracefully, GracePeriodSeconds: ptr.To[int32](600)}}},
		{name: "cluster failover Directly, former name", in: FailoverBehavior{Cluster: &ClusterFailoverBehavior{PurgeMode: "Immediately"}},
			want: FailoverBehavior{Cluster: &ClusterFailoverBehavior{PurgeMode: PurgeDirectly}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &PropagationPolicy{Spec: PropagationSpec{Failover: &tc.in}}
			defaulted(t, p)
			expectEqual(t, p.Spec.Failover, &tc.want)
		})
	}
}

func TestFederatedHPADefaults(t *testing.T) {
	h := &FederatedHPA{Spec: FederatedHPASpec{MaxReplicas: 5}}
	defaulted(t, h)
	expectEqual(t, h.Spec, FederatedHPASpec{
		MinReplicas: ptr.To[int32](1),
		MaxReplicas: 5,
		Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
		}}},
	})

	disabled := autoscalingv2.DisabledPolicySelect
	h = &FederatedHPA{Spec: FederatedHPASpec{MinReplicas: ptr.To[int32](2), Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleDown: &autoscalingv2.HPAScalingRules{SelectPolicy: &disabled},
	}}}
	defaulted(t, h)
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	expectEqual(t, h.Spec.Behavior, &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](300), SelectPolicy: &disabled,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}},
	})
	expectEqual(t, *h.Spec.MinReplicas, int32(2))
}

func TestCronFederatedHPADefaults(t *testing.T) {
	h := &CronFederatedHPA{Spec: CronFederatedHPASpec{Rules: []CronFederatedHPARule{
		{Name: "a"},
		{Name: "b", Suspend: ptr.To(true), SuccessfulHistoryLimit: ptr.To[int32](0), FailedHistoryLimit: ptr.To[int32](10)},
	}}}
	defaulted(t, h)
	expectEqual(t, h.Spec.Rules, []CronFederatedHPARule{
		{Name: "a", Suspend: ptr.To(false), SuccessfulHistoryLimit: ptr.To[int32](3), FailedHistoryLimit: ptr.To[int32](3)},
		{Name: "b", Suspend: ptr.To(true), SuccessfulHistoryLimit: ptr.To[int32](0), FailedHistoryLimit: ptr.To[int32](10)},
	})
}

func TestReplicaSchedulingPolicyDefaults(t *testing.T) {
	minute, tenSeconds := &metav1.Duration{Duration: time.Minute}, &metav1.Duration{Duration: 10 * time.Second}
	tests := []struct {
		name string
		in   *ReschedulePolicy
		want *ReschedulePolicy
	}{
		{name: "no reschedule policy stays none"},
		{name: "enabled gets 60s", in: &ReschedulePolicy{Enabled: true}, want: &ReschedulePolicy{Enabled: true, Interval: minute}},
		{name: "an interval is kept", in: &ReschedulePolicy{Enabled: true, Interval: tenSeconds},
			want: &ReschedulePolicy{Enabled: true, Interval: tenSeconds}},
		{name: "disabled gets no interval", in: &ReschedulePolicy{}, want: &ReschedulePolicy{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &ReplicaSchedulingPolicy{Spec: ReplicaSchedulingPolicySpec{ReschedulePolicy: tc.in}}
			defaulted(t, p)
			expectEqual(t, p.Spec.ReschedulePolicy, tc.want)
		})
	}
}
