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

package federation

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedHPA scales a workload template on the metrics of its pods in all
// member clusters together, the way a HorizontalPodAutoscaler scales a
// workload in one cluster.
type FederatedHPA struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the target, the replica bounds and the metrics to scale on.
	Spec FederatedHPASpec

	// Status is the current and desired replica counts and the metrics last
	// read, as for a HorizontalPodAutoscaler.
	Status autoscalingv2.HorizontalPodAutoscalerStatus
}

// FederatedHPASpec is the desired behavior of a FederatedHPA.
type FederatedHPASpec struct {
	// ScaleTargetRef is the workload template to scale; its kind must have a
	// scale subresource.
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference

	// MinReplicas is the lowest replica count, at least 1. Defaults to 1.
	MinReplicas *int32

	// MaxReplicas is the highest replica count; not lower than MinReplicas.
	MaxReplicas int32

	// Metrics are what the replica count is computed from; the highest count
	// any metric asks for wins. Read across all clusters through the
	// federated metrics API. Defaults to 80% average CPU utilization.
	Metrics []autoscalingv2.MetricSpec

	// Behavior limits how fast the workload scales up and down. Missing rules
	// get the HorizontalPodAutoscaler defaults.
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronFederatedHPA scales a workload template, or changes the bounds of a
// FederatedHPA, on a cron schedule.
type CronFederatedHPA struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the target and the schedule rules.
	Spec CronFederatedHPASpec

	// Status is the history of rule executions.
	Status CronFederatedHPAStatus
}

// CronFederatedHPASpec is the desired behavior of a CronFederatedHPA.
type CronFederatedHPASpec struct {
	// ScaleTargetRef is a workload template with a scale subresource, or a
	// FederatedHPA.
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference

	// Rules are the schedules and what each sets.
	Rules []CronFederatedHPARule
}

// CronFederatedHPARule sets replicas, or FederatedHPA bounds, on a schedule.
type CronFederatedHPARule struct {
	// Name identifies the rule; unique within the object.
	Name string

	// Schedule is a standard five-field cron expression, for example
	// "0 9 * * 1-5", or a descriptor such as "@hourly".
	Schedule string

	// TargetReplicas is the replica count to set on a workload target.
	// Required unless the target is a FederatedHPA.
	TargetReplicas *int32

	// TargetMinReplicas is the minReplicas to set on a FederatedHPA target.
	TargetMinReplicas *int32

	// TargetMaxReplicas is the maxReplicas to set on a FederatedHPA target.
	TargetMaxReplicas *int32

	// Suspend, when true, skips the rule's future runs. Defaults to false.
	Suspend *bool

	// TimeZone is the IANA time zone of the schedule, for example
	// "Asia/Shanghai". Unset means the local time zone of the fed server.
	TimeZone *string

	// SuccessfulHistoryLimit is how many successful runs are kept in the
	// status. Defaults to 3.
	SuccessfulHistoryLimit *int32

	// FailedHistoryLimit is how many failed runs are kept in the status.
	// Defaults to 3.
	FailedHistoryLimit *int32
}

// CronFederatedHPAStatus is the observed state of a CronFederatedHPA.
type CronFederatedHPAStatus struct {
	// ExecutionHistories are the recent runs of each rule.
	ExecutionHistories []ExecutionHistory
}

// ExecutionHistory is the recent runs of one rule.
type ExecutionHistory struct {
	// RuleName is the name of the rule.
	RuleName string
	// NextExecutionTime is when the rule runs next.
	NextExecutionTime *metav1.Time
	// SuccessfulExecutions are the latest successful runs, newest first.
	SuccessfulExecutions []SuccessfulExecution
	// FailedExecutions are the latest failed runs, newest first.
	FailedExecutions []FailedExecution
}

// SuccessfulExecution is a run of a rule that succeeded.
type SuccessfulExecution struct {
	// ScheduleTime is when the run was due.
	ScheduleTime *metav1.Time
	// ExecutionTime is when the run happened.
	ExecutionTime *metav1.Time
	// AppliedReplicas is the replica count set on a workload target.
	AppliedReplicas *int32
	// AppliedMaxReplicas is the maxReplicas set on a FederatedHPA target.
	AppliedMaxReplicas *int32
	// AppliedMinReplicas is the minReplicas set on a FederatedHPA target.
	AppliedMinReplicas *int32
}

// FailedExecution is a run of a rule that failed.
type FailedExecution struct {
	// ScheduleTime is when the run was due.
	ScheduleTime *metav1.Time
	// ExecutionTime is when the run happened.
	ExecutionTime *metav1.Time
	// Message says why the run failed.
	Message string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedHPAList is a list of FederatedHPAs.
type FederatedHPAList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the FederatedHPAs.
	Items []FederatedHPA
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronFederatedHPAList is a list of CronFederatedHPAs.
type CronFederatedHPAList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the CronFederatedHPAs.
	Items []CronFederatedHPA
}
