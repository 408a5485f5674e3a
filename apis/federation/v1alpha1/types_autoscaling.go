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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedHPA scales a workload template on the metrics of its pods in all
// member clusters together, the way a HorizontalPodAutoscaler scales a
// workload in one cluster.
type FederatedHPA struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the target, the replica bounds and the metrics to scale on.
	Spec FederatedHPASpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the current and desired replica counts and the metrics last
	// read, as for a HorizontalPodAutoscaler.
	// +optional
	Status autoscalingv2.HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FederatedHPASpec is the desired behavior of a FederatedHPA.
type FederatedHPASpec struct {
	// ScaleTargetRef is the workload template to scale; its kind must have a
	// scale subresource.
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`

	// MinReplicas is the lowest replica count, at least 1. Defaults to 1.
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`

	// MaxReplicas is the highest replica count; not lower than MinReplicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`

	// Metrics are what the replica count is computed from; the highest count
	// any metric asks for wins. Read across all clusters through the
	// federated metrics API. Defaults to 80% average CPU utilization.
	// +optional
	// +listType=atomic
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`

	// Behavior limits how fast the workload scales up and down. Missing rules
	// get the HorizontalPodAutoscaler defaults.
	// +optional
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronFederatedHPA scales a workload template, or changes the bounds of a
// FederatedHPA, on a cron schedule.
type CronFederatedHPA struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the target and the schedule rules.
	Spec CronFederatedHPASpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the history of rule executions.
	// +optional
	Status CronFederatedHPAStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CronFederatedHPASpec is the desired behavior of a CronFederatedHPA.
type CronFederatedHPASpec struct {
	// ScaleTargetRef is a workload template with a scale subresource, or a
	// FederatedHPA.
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`

	// Rules are the schedules and what each sets.
	// +listType=map
	// +listMapKey=name
	Rules []CronFederatedHPARule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// CronFederatedHPARule sets replicas, or FederatedHPA bounds, on a schedule.
type CronFederatedHPARule struct {
	// Name identifies the rule; unique within the object.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// Schedule is a standard five-field cron expression, for example
	// "0 9 * * 1-5", or a descriptor such as "@hourly".
	Schedule string `json:"schedule" protobuf:"bytes,2,opt,name=schedule"`

	// TargetReplicas is the replica count to set on a workload target.
	// Required unless the target is a FederatedHPA.
	// +optional
	TargetReplicas *int32 `json:"targetReplicas,omitempty" protobuf:"varint,3,opt,name=targetReplicas"`

	// TargetMinReplicas is the minReplicas to set on a FederatedHPA target.
	// +optional
	TargetMinReplicas *int32 `json:"targetMinReplicas,omitempty" protobuf:"varint,4,opt,name=targetMinReplicas"`

	// TargetMaxReplicas is the maxReplicas to set on a FederatedHPA target.
	// +optional
	TargetMaxReplicas *int32 `json:"targetMaxReplicas,omitempty" protobuf:"varint,5,opt,name=targetMaxReplicas"`

	// Suspend, when true, skips the rule's future runs. Defaults to false.
	// +optional
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,6,opt,name=suspend"`

	// TimeZone is the IANA time zone of the schedule, for example
	// "Asia/Shanghai". Unset means the local time zone of the fed server.
	// +optional
	TimeZone *string `json:"timeZone,omitempty" protobuf:"bytes,7,opt,name=timeZone"`

	// SuccessfulHistoryLimit is how many successful runs are kept in the
	// status. Defaults to 3.
	// +optional
	SuccessfulHistoryLimit *int32 `json:"successfulHistoryLimit,omitempty" protobuf:"varint,8,opt,name=successfulHistoryLimit"`

	// FailedHistoryLimit is how many failed runs are kept in the status.
	// Defaults to 3.
	// +optional
	FailedHistoryLimit *int32 `json:"failedHistoryLimit,omitempty" protobuf:"varint,9,opt,name=failedHistoryLimit"`
}

// CronFederatedHPAStatus is the observed state of a CronFederatedHPA.
type CronFederatedHPAStatus struct {
	// ExecutionHistories are the recent runs of each rule.
	// +optional
	// +listType=map
	// +listMapKey=ruleName
	ExecutionHistories []ExecutionHistory `json:"executionHistories,omitempty" protobuf:"bytes,1,rep,name=executionHistories"`
}

// ExecutionHistory is the recent runs of one rule.
type ExecutionHistory struct {
	// RuleName is the name of the rule.
	RuleName string `json:"ruleName" protobuf:"bytes,1,opt,name=ruleName"`
	// NextExecutionTime is when the rule runs next.
	// +optional
	NextExecutionTime *metav1.Time `json:"nextExecutionTime,omitempty" protobuf:"bytes,2,opt,name=nextExecutionTime"`
	// SuccessfulExecutions are the latest successful runs, newest first.
	// +optional
	// +listType=atomic
	SuccessfulExecutions []SuccessfulExecution `json:"successfulExecutions,omitempty" protobuf:"bytes,3,rep,name=successfulExecutions"`
	// FailedExecutions are the latest failed runs, newest first.
	// +optional
	// +listType=atomic
	FailedExecutions []FailedExecution `json:"failedExecutions,omitempty" protobuf:"bytes,4,rep,name=failedExecutions"`
}

// SuccessfulExecution is a run of a rule that succeeded.
type SuccessfulExecution struct {
	// ScheduleTime is when the run was due.
	ScheduleTime *metav1.Time `json:"scheduleTime" protobuf:"bytes,1,opt,name=scheduleTime"`
	// ExecutionTime is when the run happened.
	ExecutionTime *metav1.Time `json:"executionTime" protobuf:"bytes,2,opt,name=executionTime"`
	// AppliedReplicas is the replica count set on a workload target.
	// +optional
	AppliedReplicas *int32 `json:"appliedReplicas,omitempty" protobuf:"varint,3,opt,name=appliedReplicas"`
	// AppliedMaxReplicas is the maxReplicas set on a FederatedHPA target.
	// +optional
	AppliedMaxReplicas *int32 `json:"appliedMaxReplicas,omitempty" protobuf:"varint,4,opt,name=appliedMaxReplicas"`
	// AppliedMinReplicas is the minReplicas set on a FederatedHPA target.
	// +optional
	AppliedMinReplicas *int32 `json:"appliedMinReplicas,omitempty" protobuf:"varint,5,opt,name=appliedMinReplicas"`
}

// FailedExecution is a run of a rule that failed.
type FailedExecution struct {
	// ScheduleTime is when the run was due.
	ScheduleTime *metav1.Time `json:"scheduleTime" protobuf:"bytes,1,opt,name=scheduleTime"`
	// ExecutionTime is when the run happened.
	ExecutionTime *metav1.Time `json:"executionTime" protobuf:"bytes,2,opt,name=executionTime"`
	// Message says why the run failed.
	Message string `json:"message" protobuf:"bytes,3,opt,name=message"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedHPAList is a list of FederatedHPAs.
type FederatedHPAList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the FederatedHPAs.
	Items []FederatedHPA `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronFederatedHPAList is a list of CronFederatedHPAs.
type CronFederatedHPAList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the CronFederatedHPAs.
	Items []CronFederatedHPA `json:"items" protobuf:"bytes,2,rep,name=items"`
}
