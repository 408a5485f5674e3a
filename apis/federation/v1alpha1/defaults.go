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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// DefaultSchedulerName is the name of fed's own scheduler.
const DefaultSchedulerName = "default-scheduler"

// Defaults of the autoscalers, the same as the HorizontalPodAutoscaler's.
const (
	DefaultCPUUtilization            int32 = 80
	defaultScaleUpStabilization      int32 = 0
	defaultScaleDownStabilization    int32 = 300
	defaultScalingPeriodSeconds      int32 = 15
	DefaultCronHistoryLimit          int32 = 3
	DefaultFailoverTolerationSeconds int32 = 300
	DefaultFailoverGracePeriod       int32 = 600
)

// DefaultRebalanceInterval is the interval of an enabled reschedulePolicy
// of a ReplicaSchedulingPolicy that sets none.
const DefaultRebalanceInterval = 60 * time.Second

// Former names of purge modes, still accepted on write. Untyped, so that
// they stay out of the published enum.
const (
	legacyPurgeImmediately = "Immediately"
	legacyPurgeGraciously  = "Graciously"
)

func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_PropagationSpec fills in priority, preemption, conflict
// resolution and scheduler name.
func SetDefaults_PropagationSpec(obj *PropagationSpec) {
	if obj.Priority == nil {
		obj.Priority = ptr.To[int32](0)
	}
	if obj.Preemption == "" {
		obj.Preemption = PreemptNever
	}
	if obj.ConflictResolution == "" {
		obj.ConflictResolution = ConflictAbort
	}
	if obj.SchedulerName == "" {
		obj.SchedulerName = DefaultSchedulerName
	}
}

// SetDefaults_ResourceBindingSpec fills in conflict resolution and scheduler
// name for bindings written without a policy's values.
func SetDefaults_ResourceBindingSpec(obj *ResourceBindingSpec) {
	if obj.ConflictResolution == "" {
		obj.ConflictResolution = ConflictAbort
	}
	if obj.SchedulerName == "" {
		obj.SchedulerName = DefaultSchedulerName
	}
}

// SetDefaults_Placement completes the spread constraints: a constraint
// without a field or label spreads by cluster, minGroups defaults to 1, and
// spreading by region, zone or provider gets the by-cluster constraint it
// needs (minGroups 1, no maximum) when the policy has none.
func SetDefaults_Placement(obj *Placement) {
	needsCluster, hasCluster := false, false
	for i := range obj.SpreadConstraints {
		c := &obj.SpreadConstraints[i]
		if c.SpreadByField == "" && c.SpreadByLabel == "" {
			c.SpreadByField = SpreadByFieldCluster
		}
		if c.MinGroups == 0 {
			c.MinGroups = 1
		}
		switch c.SpreadByField {
		case SpreadByFieldCluster:
			hasCluster = true
		case SpreadByFieldRegion, SpreadByFieldZone, SpreadByFieldProvider:
			needsCluster = true
		}
	}
	if needsCluster && !hasCluster {
		obj.SpreadConstraints = append(obj.SpreadConstraints,
			SpreadConstraint{SpreadByField: SpreadByFieldCluster, MinGroups: 1})
	}
}

// SetDefaults_ReplicaSchedulingStrategy divides replicas by weight unless told
// otherwise, and rewrites the "Dynamic" shorthand and the top-level
// dynamicWeight into weightPreference.dynamicWeight. A shorthand that
// contradicts weightPreference is left for validation to report.
func SetDefaults_ReplicaSchedulingStrategy(obj *ReplicaSchedulingStrategy) {
	if obj.ReplicaSchedulingType == "" {
		obj.ReplicaSchedulingType = ReplicaSchedulingTypeDivided
	}
	factor := obj.DynamicWeight
	if obj.ReplicaDivisionPreference == ReplicaDivisionPreferenceDynamic {
		obj.ReplicaDivisionPreference = ReplicaDivisionPreferenceWeighted
		if factor == "" {
			factor = DynamicWeightByAvailableReplicas
		}
	}
	if factor != "" {
		if obj.WeightPreference == nil {
			obj.WeightPreference = &ClusterPreferences{}
		}
		if obj.WeightPreference.DynamicWeight == "" {
			obj.WeightPreference.DynamicWeight = factor
		}
		if obj.WeightPreference.DynamicWeight == obj.DynamicWeight {
			obj.DynamicWeight = ""
		}
	}
	if obj.ReplicaSchedulingType == ReplicaSchedulingTypeDivided && obj.ReplicaDivisionPreference == "" {
		obj.ReplicaDivisionPreference = ReplicaDivisionPreferenceWeighted
	}
}

// SetDefaults_FailoverBehavior fills in the cluster failover's purge mode
// (Gracefully) and its grace period (600s, for Gracefully), and moves
// applicationMigrationPolicy into application. When both are set and differ once defaulted, both are kept
// for validation to report.
func SetDefaults_FailoverBehavior(obj *FailoverBehavior) {
	if c := obj.Cluster; c != nil {
		c.PurgeMode = currentPurgeMode(c.PurgeMode)
		if c.PurgeMode == "" {
			c.PurgeMode = PurgeGracefully
		}
		if c.PurgeMode == PurgeGracefully && c.GracePeriodSeconds == nil {
			c.GracePeriodSeconds = ptr.To(DefaultFailoverGracePeriod)
		}
	}
	if obj.ApplicationMigrationPolicy == nil {
		return
	}
	if obj.Application == nil {
		obj.Application, obj.ApplicationMigrationPolicy = obj.ApplicationMigrationPolicy, nil
		return
	}
	app, alias := obj.Application.DeepCopy(), obj.ApplicationMigrationPolicy.DeepCopy()
	SetDefaults_ApplicationFailoverBehavior(app)
	SetDefaults_ApplicationFailoverBehavior(alias)
	if apiequality.Semantic.DeepEqual(app, alias) {
		obj.ApplicationMigrationPolicy = nil
	}
}

// SetDefaults_ApplicationFailoverBehavior rewrites former purge mode names,
// moves purgePolicy into purgeMode, and fills in the purge mode (Gracefully),
// the toleration (300s) and, for Gracefully, the grace period (600s).
func SetDefaults_ApplicationFailoverBehavior(obj *ApplicationFailoverBehavior) {
	obj.PurgeMode = currentPurgeMode(obj.PurgeMode)
	obj.PurgePolicy = currentPurgeMode(obj.PurgePolicy)
	if obj.PurgeMode == "" {
		obj.PurgeMode = obj.PurgePolicy
	}
	if obj.PurgePolicy == obj.PurgeMode {
		obj.PurgePolicy = ""
	}
	if obj.PurgeMode == "" {
		obj.PurgeMode = PurgeGracefully
	}
	if obj.DecisionConditions.TolerationSeconds == nil {
		obj.DecisionConditions.TolerationSeconds = ptr.To(DefaultFailoverTolerationSeconds)
	}
	if obj.PurgeMode == PurgeGracefully && obj.GracePeriodSeconds == nil {
		obj.GracePeriodSeconds = ptr.To(DefaultFailoverGracePeriod)
	}
}

func currentPurgeMode(m PurgeMode) PurgeMode {
	switch m {
	case legacyPurgeImmediately:
		return PurgeDirectly
	case legacyPurgeGraciously:
		return PurgeGracefully
	}
	return m
}

// SetDefaults_FederatedHPASpec applies the HorizontalPodAutoscaler defaults:
// minReplicas 1, 80% average CPU utilization when no metric is given, and the
// standard scale-up and scale-down rules wherever behavior leaves them out.
func SetDefaults_FederatedHPASpec(obj *FederatedHPASpec) {
	if obj.MinReplicas == nil {
		obj.MinReplicas = ptr.To[int32](1)
	}
	if len(obj.Metrics) == 0 {
		obj.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{
					Type:               autoscalingv2.UtilizationMetricType,
					AverageUtilization: ptr.To(DefaultCPUUtilization),
				},
			},
		}}
	}
	if obj.Behavior != nil {
		obj.Behavior.ScaleUp = defaultScalingRules(obj.Behavior.ScaleUp, defaultScaleUpStabilization,
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: defaultScalingPeriodSeconds},
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: defaultScalingPeriodSeconds})
		obj.Behavior.ScaleDown = defaultScalingRules(obj.Behavior.ScaleDown, defaultScaleDownStabilization,
			autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: defaultScalingPeriodSeconds})
	}
}

func defaultScalingRules(rules *autoscalingv2.HPAScalingRules, window int32, policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	if rules == nil {
		rules = &autoscalingv2.HPAScalingRules{}
	}
	if rules.StabilizationWindowSeconds == nil {
		rules.StabilizationWindowSeconds = ptr.To(window)
	}
	if rules.SelectPolicy == nil {
		rules.SelectPolicy = ptr.To(autoscalingv2.MaxChangePolicySelect)
	}
	if len(rules.Policies) == 0 {
		rules.Policies = policies
	}
	return rules
}

// SetDefaults_CronFederatedHPARule makes a rule active and keeps the three
// latest successful and failed runs.
func SetDefaults_CronFederatedHPARule(obj *CronFederatedHPARule) {
	if obj.Suspend == nil {
		obj.Suspend = ptr.To(false)
	}
	if obj.SuccessfulHistoryLimit == nil {
		obj.SuccessfulHistoryLimit = ptr.To(DefaultCronHistoryLimit)
	}
	if obj.FailedHistoryLimit == nil {
		obj.FailedHistoryLimit = ptr.To(DefaultCronHistoryLimit)
	}
}

// SetDefaults_ReschedulePolicy sets the interval of an enabled policy that
// has none to DefaultRebalanceInterval.
func SetDefaults_ReschedulePolicy(obj *ReschedulePolicy) {
	if obj.Enabled && obj.Interval == nil {
		obj.Interval = &metav1.Duration{Duration: DefaultRebalanceInterval}
	}
}

// DefaultInterpreterWebhookTimeout is how long fed waits for an interpreter
// webhook by default, in seconds.
const DefaultInterpreterWebhookTimeout int32 = 10

// SetDefaults_ResourceInterpreterWebhook gives a webhook the default timeout.
func SetDefaults_ResourceInterpreterWebhook(obj *ResourceInterpreterWebhook) {
	if obj.TimeoutSeconds == nil {
		obj.TimeoutSeconds = ptr.To(DefaultInterpreterWebhookTimeout)
	}
}
