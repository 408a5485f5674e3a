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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadRebalancer has fed schedule the named workloads afresh, once, as if
// they were placed nowhere yet: a workload that failed over to a backup group
// of clusterAffinities goes back to the first group that can hold it, dynamic
// weights are divided again by the room the clusters have now. Each
// workload's result is in the status; with ttlSecondsAfterFinished, fed
// deletes the rebalancer that long after the last result. fed reschedules a
// workload only when whoever wrote the rebalancer may update that template.
type WorkloadRebalancer struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec names the workloads.
	Spec WorkloadRebalancerSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is each workload's result.
	// +optional
	Status WorkloadRebalancerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// WorkloadRebalancerSpec names the workloads and how long the rebalancer stays
// once they are all done.
type WorkloadRebalancerSpec struct {
	// Workloads are the templates to schedule afresh; at least one. A
	// workload added later is rescheduled then; one already done is not
	// rescheduled again.
	// +listType=atomic
	Workloads []WorkloadReference `json:"workloads" protobuf:"bytes,1,rep,name=workloads"`

	// TTLSecondsAfterFinished deletes the rebalancer that many seconds after
	// every workload has its result (0: at once). Unset: it stays.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,2,opt,name=ttlSecondsAfterFinished"`
}

// WorkloadReference names a template of the fleet.
type WorkloadReference struct {
	// APIVersion is the template's API version, e.g. apps/v1.
	APIVersion string `json:"apiVersion" protobuf:"bytes,1,opt,name=apiVersion"`

	// Kind is the template's kind, e.g. Deployment.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`

	// Name is the template's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`

	// Namespace is the template's namespace; empty for a cluster-scoped one.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// WorkloadRebalancerStatus is each workload's result.
type WorkloadRebalancerStatus struct {
	// ObservedWorkloads are the workloads of the spec fed has looked at, each
	// with its result once it has one.
	// +optional
	// +listType=atomic
	ObservedWorkloads []ObservedWorkload `json:"observedWorkloads,omitempty" protobuf:"bytes,1,rep,name=observedWorkloads"`

	// ObservedGeneration is the generation of the spec these results are of.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,2,opt,name=observedGeneration"`

	// FinishTime is when the last workload got its result.
	// +optional
	FinishTime *metav1.Time `json:"finishTime,omitempty" protobuf:"bytes,3,opt,name=finishTime"`
}

// ObservedWorkload is one workload's result.
type ObservedWorkload struct {
	// Workload is the template.
	Workload WorkloadReference `json:"workload" protobuf:"bytes,1,opt,name=workload"`

	// Result is Successful (the scheduler placed it afresh) or Failed; empty
	// while fed waits for the scheduler.
	// +optional
	Result RebalanceResult `json:"result,omitempty" protobuf:"bytes,2,opt,name=result,casttype=RebalanceResult"`

	// Reason says why it failed: ReferencedBindingNotFound (no template of
	// that name is propagated), AuthorRefused (the rebalancer's author may not
	// update the template), or the reason the scheduler gave (NoClusterFit...).
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`

	// Message says more.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
}

// RebalanceResult is how a workload's rescheduling ended.
// +enum
type RebalanceResult string

const (
	// RebalanceSuccessful: the scheduler placed the workload afresh.
	RebalanceSuccessful RebalanceResult = "Successful"
	// RebalanceFailed: it could not (Reason says why).
	RebalanceFailed RebalanceResult = "Failed"
)

// Reasons of a Failed result beside the scheduler's.
const (
	// RebalanceReasonBindingNotFound: the fleet propagates no such template.
	RebalanceReasonBindingNotFound = "ReferencedBindingNotFound"
	// RebalanceReasonAuthorRefused: the rebalancer's author may not update the template.
	RebalanceReasonAuthorRefused = "AuthorRefused"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadRebalancerList is a list of WorkloadRebalancers.
type WorkloadRebalancerList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the WorkloadRebalancers.
	Items []WorkloadRebalancer `json:"items" protobuf:"bytes,2,rep,name=items"`
}
