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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceBinding ties one namespaced resource template to the policy that
// claimed it and records where the scheduler placed it. fed creates one per
// claimed template; users normally only read it.
type ResourceBinding struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the template, its placement and the scheduling result.
	Spec ResourceBindingSpec

	// Status is the progress of scheduling and the state of the template in
	// each cluster.
	Status ResourceBindingStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterResourceBinding is the ResourceBinding of a cluster-scoped resource
// template, such as a Namespace or a CustomResourceDefinition.
type ClusterResourceBinding struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the template, its placement and the scheduling result.
	Spec ResourceBindingSpec

	// Status is the progress of scheduling and the state of the template in
	// each cluster.
	Status ResourceBindingStatus
}

// ResourceBindingSpec is the desired state of a binding.
type ResourceBindingSpec struct {
	// Resource is the template this binding propagates.
	Resource ObjectReference

	// PropagateDeps also propagates the template's dependencies; copied from
	// the policy.
	PropagateDeps bool

	// ReplicaRequirements is what one replica of the workload needs; the
	// scheduler uses it to estimate how many replicas a cluster can hold.
	ReplicaRequirements *ReplicaRequirements

	// Replicas is the replica count of the template, 0 for kinds without
	// replicas.
	Replicas int32

	// Clusters is the scheduling result: the target clusters and, for divided
	// workloads, the replicas each runs.
	Clusters []TargetCluster

	// Placement is the placement of the policy, copied when the policy claimed
	// the template or last changed.
	Placement *Placement

	// GracefulEvictionTasks are clusters the template is being moved away
	// from; their copies are kept until the replacement is healthy or the
	// grace period ends.
	GracefulEvictionTasks []GracefulEvictionTask

	// RequiredBy lists the bindings whose templates depend on this one, and
	// their clusters; a dependency goes wherever its dependents go.
	RequiredBy []BindingSnapshot

	// SchedulerName is the scheduler that places this binding.
	SchedulerName string

	// Failover is the failover behavior copied from the policy.
	Failover *FailoverBehavior

	// ConflictResolution is Abort or Overwrite, copied from the policy.
	// Defaults to Abort.
	ConflictResolution ConflictResolution

	// Suspension is the suspension copied from the policy.
	Suspension *Suspension

	// PreserveResourcesOnDeletion keeps the objects in the members when the
	// template is deleted; copied from the policy.
	PreserveResourcesOnDeletion *bool

	// ReplicaMoves are moves of replicas other controllers ask of the
	// scheduler, which alone writes Clusters.
	ReplicaMoves []ReplicaMoveRequest

	// Components are the parts of a workload that runs several pod templates,
	// each with its replicas and what one of them needs; a binding with
	// components has no Replicas nor ReplicaRequirements.
	Components []Component

	// WorkloadAffinityGroups are the groups of the placement's workloadAffinity
	// the template is in, from its labels.
	WorkloadAffinityGroups *WorkloadAffinityGroups

	// RescheduleTriggeredAt asks the scheduler to place the binding afresh,
	// as if it were placed nowhere yet, when it is later than the status's
	// lastScheduledTime; written by a WorkloadRebalancer.
	RescheduleTriggeredAt *metav1.Time
}

// ReplicaMoveRequest asks the scheduler to move replicas off a target cluster.
type ReplicaMoveRequest struct {
	// FromCluster is the target cluster the replicas leave.
	FromCluster string
	// ToCluster is the cluster they go to; empty, wherever there is room.
	ToCluster string
	// Replicas is how many replicas move.
	Replicas int32
	// Producer is the controller that asks.
	Producer string
	// Message says in words why.
	Message string
}

// ObjectReference identifies a resource template.
type ObjectReference struct {
	// APIVersion is the group and version of the template, for example "apps/v1".
	APIVersion string
	// Kind is the kind of the template, for example "Deployment".
	Kind string
	// Namespace is the namespace of the template; empty for cluster-scoped kinds.
	Namespace string
	// Name is the name of the template.
	Name string
	// UID is the UID of the template, to tell it from a later one of the same name.
	UID types.UID
	// ResourceVersion is the version of the template last propagated.
	ResourceVersion string
}

// Component is one part of a multi-component workload.
type Component struct {
	// Name names the component in its workload.
	Name string
	// Replicas is how many pods of the component the workload runs.
	Replicas int32
	// ReplicaRequirements is what one pod of the component needs.
	ReplicaRequirements *ReplicaRequirements
}

// ReplicaRequirements is what one replica of a workload needs.
type ReplicaRequirements struct {
	// NodeClaim is the node constraints of the workload's pods.
	NodeClaim *NodeClaim
	// ResourceRequest is the compute resources one replica requests.
	ResourceRequest corev1.ResourceList
}

// NodeClaim is the node constraints of a workload's pods, read from its pod
// template.
type NodeClaim struct {
	// HardNodeAffinity is the required node affinity of the pods.
	HardNodeAffinity *corev1.NodeSelector
	// NodeSelector is the node selector of the pods.
	NodeSelector map[string]string
	// Tolerations are the tolerations of the pods.
	Tolerations []corev1.Toleration
}

// TargetCluster is one cluster of a scheduling result.
type TargetCluster struct {
	// Name is the name of the cluster.
	Name string
	// Replicas is the number of replicas the cluster runs; 0 for kinds
	// without replicas.
	Replicas int32
}

// GracefulEvictionTask is a cluster the template is being moved away from.
type GracefulEvictionTask struct {
	// FromCluster is the cluster being left.
	FromCluster string
	// PurgeMode is how the old copy is removed: Directly, Gracefully or Never.
	PurgeMode PurgeMode
	// Replicas is the number of replicas the cluster ran.
	Replicas *int32
	// Reason is a CamelCase word saying why the cluster is left.
	Reason string
	// Message says in words why the cluster is left.
	Message string
	// Producer is the controller that started the eviction.
	Producer string
	// GracePeriodSeconds is how long the old copy is kept at most.
	GracePeriodSeconds *int32
	// SuppressDeletion, when true, keeps the old copy until set to false.
	SuppressDeletion *bool
	// CreationTimestamp is when the eviction started.
	CreationTimestamp *metav1.Time
	// PreservedLabelState are the labels, read from the old copy by the
	// statePreservation rules, that the new copies get.
	PreservedLabelState map[string]string
	// ClustersBeforeFailover are the clusters the binding was on when the
	// eviction started; the new copies are those on other clusters.
	ClustersBeforeFailover []string
}

// BindingSnapshot is a binding that depends on another one, with its clusters.
type BindingSnapshot struct {
	// Namespace is the namespace of the dependent binding.
	Namespace string
	// Name is the name of the dependent binding.
	Name string
	// Clusters is the scheduling result of the dependent binding.
	Clusters []TargetCluster
}

// Condition types of bindings.
const (
	// BindingConditionScheduled is True once the scheduler placed the binding.
	BindingConditionScheduled = "Scheduled"
	// BindingConditionFullyApplied is True once the template was applied in
	// every target cluster.
	BindingConditionFullyApplied = "FullyApplied"
)

// ResourceBindingStatus is the observed state of a binding.
type ResourceBindingStatus struct {
	// SchedulerObservedGeneration is the generation the scheduler last placed.
	SchedulerObservedGeneration int64

	// SchedulerObservedAffinityName is the affinity group of clusterAffinities
	// the scheduler last placed the binding in.
	SchedulerObservedAffinityName string

	// LastScheduledTime is when the scheduler last placed the binding.
	LastScheduledTime *metav1.Time

	// Conditions are the latest observations of the binding: Scheduled and
	// FullyApplied.
	Conditions []metav1.Condition

	// AggregatedStatus is the state of the template in each target cluster.
	AggregatedStatus []AggregatedStatusItem
}

// ResourceHealth is the health of an object in a member cluster.
type ResourceHealth string

const (
	// ResourceHealthy means the object works as intended.
	ResourceHealthy ResourceHealth = "Healthy"
	// ResourceUnhealthy means the object does not work as intended.
	ResourceUnhealthy ResourceHealth = "Unhealthy"
	// ResourceUnknown means fed cannot tell.
	ResourceUnknown ResourceHealth = "Unknown"
)

// AggregatedStatusItem is the state of a template in one member cluster.
type AggregatedStatusItem struct {
	// ClusterName is the name of the cluster.
	ClusterName string
	// Status is the status of the object in the cluster, as the member reports it.
	Status *runtime.RawExtension
	// Applied is true once the object was applied in the cluster.
	Applied bool
	// AppliedMessage says why the object could not be applied.
	AppliedMessage string
	// Health is Healthy, Unhealthy or Unknown.
	Health ResourceHealth
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceBindingList is a list of ResourceBindings.
type ResourceBindingList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the bindings.
	Items []ResourceBinding
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterResourceBindingList is a list of ClusterResourceBindings.
type ClusterResourceBindingList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the bindings.
	Items []ClusterResourceBinding
}

// WorkloadAffinityGroups are a template's groups of workload affinity, each
// "key=value" of the label that forms it; empty when the template is in none.
type WorkloadAffinityGroups struct {
	// AffinityGroup is the group whose clusters the template goes to.
	AffinityGroup string

	// AntiAffinityGroup is the group whose clusters the template avoids.
	AntiAffinityGroup string
}
