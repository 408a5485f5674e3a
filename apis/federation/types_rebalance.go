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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is which workloads the policy rebalances, how often, and above
	// which load.
	Spec ReplicaSchedulingPolicySpec

	// Status is when fed last rebalanced under the policy and the replicas it
	// moved.
	Status ReplicaSchedulingPolicyStatus
}

// ReplicaSchedulingPolicySpec is the content of a ReplicaSchedulingPolicy.
type ReplicaSchedulingPolicySpec struct {
	// ResourceSelectors pick the templates the policy rebalances, among the
	// workloads divided dynamically; a template matched by any selector is
	// rebalanced. Empty: every dynamically divided workload of the fleet.
	ResourceSelectors []ResourceSelector

	// ReschedulePolicy is whether, how often and above which load fed moves
	// replicas of the selected workloads between member clusters.
	ReschedulePolicy *ReschedulePolicy
}

// ReschedulePolicy is when fed moves replicas of dynamically divided
// workloads: every interval, fed moves replicas off a member whose pods
// request more than the threshold of its allocatable CPU or memory, to
// members below the threshold less 10 points; each move is an event on the
// template and an entry of status.moves.
type ReschedulePolicy struct {
	// Enabled turns rebalancing on. When false, the policy is kept but fed
	// moves no replicas under it.
	Enabled bool

	// Interval is how often fed compares the members' load with the
	// threshold and moves replicas: at least 10s. Defaults to 60s when
	// enabled. It reads back as Go prints a duration: 60s as 1m0s.
	Interval *metav1.Duration

	// Threshold is the load above which a member gives replicas away. A
	// member over either threshold that is set gives replicas to members below
	// every threshold that is set less 10 points (below 70% for a threshold of
	// 80). Required when enabled, with at least one of cpuUtilization and
	// memoryUtilization.
	Threshold *RescheduleThreshold
}

// RescheduleThreshold is the load of a member cluster above which fed moves
// replicas off it, by resource.
type RescheduleThreshold struct {
	// CPUUtilization is a percentage, 1 to 100, of a member's allocatable CPU:
	// when the CPU its pods request is above it, fed moves replicas off the
	// member, to members whose pods request less than cpuUtilization less 10
	// points of their allocatable CPU. Unset: CPU does not count.
	CPUUtilization *int32

	// MemoryUtilization is a percentage, 1 to 100, of a member's allocatable
	// memory: when the memory its pods request is above it, fed moves replicas
	// off the member, to members whose pods request less than
	// memoryUtilization less 10 points of their allocatable memory. Unset:
	// memory does not count.
	MemoryUtilization *int32
}

// ReplicaSchedulingPolicyStatus is the observed state of a
// ReplicaSchedulingPolicy.
type ReplicaSchedulingPolicyStatus struct {
	// Conditions are the latest observations of the policy.
	Conditions []metav1.Condition

	// LastRebalanceTime is when fed last compared the members' load with the
	// threshold under this policy, whether or not it moved replicas.
	LastRebalanceTime *metav1.Time

	// Moves are the last moves, at most 20, oldest first.
	Moves []ReplicaMove
}

// ReplicaMove is replicas of one workload that fed moved from one member
// cluster to another.
type ReplicaMove struct {
	// Time is when fed moved the replicas.
	Time metav1.Time

	// Template is the workload template whose replicas moved, as its binding
	// names it.
	Template ObjectReference

	// FromCluster is the member the replicas left, the one over the threshold.
	FromCluster string

	// ToCluster is the member the replicas went to.
	ToCluster string

	// Replicas is how many replicas moved, at least 1.
	Replicas int32
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ReplicaSchedulingPolicyList is a list of ReplicaSchedulingPolicies.
type ReplicaSchedulingPolicyList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the policies.
	Items []ReplicaSchedulingPolicy
}
