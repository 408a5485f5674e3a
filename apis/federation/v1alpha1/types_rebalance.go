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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Limits of a ReplicaSchedulingPolicy.
const (
	// MinRebalanceInterval is the shortest interval of a reschedulePolicy.
	MinRebalanceInterval = 10 * time.Second
	// RebalanceMargin is how many percentage points below a threshold a
	// member's load must be for replicas to move to it.
	RebalanceMargin int32 = 10
	// MaxReplicaMoves is how many moves status.moves keeps, the last ones.
	MaxReplicaMoves = 20
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ReplicaSchedulingPolicy says when fed rebalances, by load, the replicas of
// the workloads it divides among member clusters dynamically (a
// replicaScheduling with weightPreference.dynamicWeight AvailableReplicas, or
// replicaDivisionPreference Aggregated). While its reschedulePolicy is
// enabled, fed moves replicas of such workloads off a member whose pods
// request more than the threshold of its allocatable CPU or memory, to
// members below the threshold less 10 points, every interval; each move is an
// event on the template and an entry of status.moves. Workloads divided by
// static weights, and duplicated ones, are left alone. Cluster-scoped.
type ReplicaSchedulingPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is which workloads the policy rebalances, how often, and above
	// which load.
	Spec ReplicaSchedulingPolicySpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is when fed last rebalanced under the policy and the replicas it
	// moved.
	// +optional
	Status ReplicaSchedulingPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicaSchedulingPolicySpec is the content of a ReplicaSchedulingPolicy.
type ReplicaSchedulingPolicySpec struct {
	// ResourceSelectors pick the templates the policy rebalances, among the
	// workloads divided dynamically; a template matched by any selector is
	// rebalanced. Empty: every dynamically divided workload of the fleet.
	// +optional
	// +listType=atomic
	ResourceSelectors []ResourceSelector `json:"resourceSelectors,omitempty" protobuf:"bytes,1,rep,name=resourceSelectors"`

	// ReschedulePolicy is whether, how often and above which load fed moves
	// replicas of the selected workloads between member clusters.
	ReschedulePolicy *ReschedulePolicy `json:"reschedulePolicy" protobuf:"bytes,2,opt,name=reschedulePolicy"`
}

// ReschedulePolicy is when fed moves replicas of dynamically divided
// workloads: every interval, fed moves replicas off a member whose pods
// request more than the threshold of its allocatable CPU or memory, to
// members below the threshold less 10 points; each move is an event on the
// template and an entry of status.moves.
type ReschedulePolicy struct {
	// Enabled turns rebalancing on. When false, the policy is kept but fed
	// moves no replicas under it.
	// +optional
	Enabled bool `json:"enabled,omitempty" protobuf:"varint,1,opt,name=enabled"`

	// Interval is how often fed compares the members' load with the
	// threshold and moves replicas: at least 10s. Defaults to 60s when
	// enabled. It reads back as Go prints a duration: 60s as 1m0s.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty" protobuf:"bytes,2,opt,name=interval"`

	// Threshold is the load above which a member gives replicas away. A
	// member over either threshold that is set gives replicas to members below
	// every threshold that is set less 10 points (below 70% for a threshold of
	// 80). Required when enabled, with at least one of cpuUtilization and
	// memoryUtilization.
	// +optional
	Threshold *RescheduleThreshold `json:"threshold,omitempty" protobuf:"bytes,3,opt,name=threshold"`
}

// RescheduleThreshold is the load of a member cluster above which fed moves
// replicas off it, by resource.
type RescheduleThreshold struct {
	// CPUUtilization is a percentage, 1 to 100, of a member's allocatable CPU:
	// when the CPU its pods request is above it, fed moves replicas off the
	// member, to members whose pods request less than cpuUtilization less 10
	// points of their allocatable CPU. Unset: CPU does not count.
	// +optional
	CPUUtilization *int32 `json:"cpuUtilization,omitempty" protobuf:"varint,1,opt,name=cpuUtilization"`

	// MemoryUtilization is a percentage, 1 to 100, of a member's allocatable
	// memory: when the memory its pods request is above it, fed moves replicas
	// off the member, to members whose pods request less than
	// memoryUtilization less 10 points of their allocatable memory. Unset:
	// memory does not count.
	// +optional
	MemoryUtilization *int32 `json:"memoryUtilization,omitempty" protobuf:"varint,2,opt,name=memoryUtilization"`
}

// ReplicaSchedulingPolicyStatus is the observed state of a
// ReplicaSchedulingPolicy.
type ReplicaSchedulingPolicyStatus struct {
	// Conditions are the latest observations of the policy.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`

	// LastRebalanceTime is when fed last compared the members' load with the
	// threshold under this policy, whether or not it moved replicas.
	// +optional
	LastRebalanceTime *metav1.Time `json:"lastRebalanceTime,omitempty" protobuf:"bytes,2,opt,name=lastRebalanceTime"`

	// Moves are the last moves, at most 20, oldest first.
	// +optional
	// +listType=atomic
	Moves []ReplicaMove `json:"moves,omitempty" protobuf:"bytes,3,rep,name=moves"`
}

// ReplicaMove is replicas of one workload that fed moved from one member
// cluster to another.
type ReplicaMove struct {
	// Time is when fed moved the replicas.
	Time metav1.Time `json:"time" protobuf:"bytes,1,opt,name=time"`

	// Template is the workload template whose replicas moved, as its binding
	// names it.
	Template ObjectReference `json:"template" protobuf:"bytes,2,opt,name=template"`

	// FromCluster is the member the replicas left, the one over the threshold.
	FromCluster string `json:"fromCluster" protobuf:"bytes,3,opt,name=fromCluster"`

	// ToCluster is the member the replicas went to.
	ToCluster string `json:"toCluster" protobuf:"bytes,4,opt,name=toCluster"`

	// Replicas is how many replicas moved, at least 1.
	Replicas int32 `json:"replicas" protobuf:"varint,5,opt,name=replicas"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ReplicaSchedulingPolicyList is a list of ReplicaSchedulingPolicies.
type ReplicaSchedulingPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the policies.
	Items []ReplicaSchedulingPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
