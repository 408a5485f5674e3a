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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadRebalancer has fed schedule the named workloads afresh, once.
type WorkloadRebalancer struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   WorkloadRebalancerSpec
	Status WorkloadRebalancerStatus
}

// WorkloadRebalancerSpec names the workloads and how long the rebalancer stays
// once they are all done.
type WorkloadRebalancerSpec struct {
	Workloads               []WorkloadReference
	TTLSecondsAfterFinished *int32
}

// WorkloadReference names a template of the fleet.
type WorkloadReference struct {
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
}

// WorkloadRebalancerStatus is each workload's result.
type WorkloadRebalancerStatus struct {
	ObservedWorkloads  []ObservedWorkload
	ObservedGeneration int64
	FinishTime         *metav1.Time
}

// ObservedWorkload is one workload's result.
type ObservedWorkload struct {
	Workload WorkloadReference
	Result   RebalanceResult
	Reason   string
	Message  string
}

// RebalanceResult is how a workload's rescheduling ended.
type RebalanceResult string

const (
	// RebalanceSuccessful: the scheduler placed the workload afresh.
	RebalanceSuccessful RebalanceResult = "Successful"
	// RebalanceFailed: it could not (Reason says why).
	RebalanceFailed RebalanceResult = "Failed"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadRebalancerList is a list of WorkloadRebalancers.
type WorkloadRebalancerList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []WorkloadRebalancer
}
