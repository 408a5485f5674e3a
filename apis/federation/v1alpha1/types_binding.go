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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceBinding ties one namespaced resource template to the policy that
// claimed it and records where the scheduler placed it. fed creates one per
// claimed template; users normally only read it.
type ResourceBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the template, its placement and the scheduling result.
	Spec ResourceBindingSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the progress of scheduling and the state of the template in
	// each cluster.
	// +optional
	Status ResourceBindingStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterResourceBinding is the ResourceBinding of a cluster-scoped resource
// template, such as a Namespace or a CustomResourceDefinition.
type ClusterResourceBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the template, its placement and the scheduling result.
	Spec ResourceBindingSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the progress of scheduling and the state of the template in
	// each cluster.
	// +optional
	Status ResourceBindingStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceBindingSpec is the desired state of a binding.
type ResourceBindingSpec struct {
	// Resource is the template this binding propagates.
	Resource ObjectReference `json:"resource" protobuf:"bytes,1,opt,name=resource"`

	// PropagateDeps also propagates the template's dependencies; copied from
	// the policy.
	// +optional
	PropagateDeps bool `json:"propagateDeps,omitempty" protobuf:"varint,2,opt,name=propagateDeps"`

	// ReplicaRequirements is what one replica of the workload needs; the
	// scheduler uses it to estimate how many replicas a cluster can hold.
	// +optional
	ReplicaRequirements *ReplicaRequirements `json:"replicaRequirements,omitempty" protobuf:"bytes,3,opt,name=replicaRequirements"`

	// Replicas is the replica count of the template, 0 for kinds without
	// replicas.
	// +optional
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,4,opt,name=replicas"`

	// Clusters is the scheduling result: the target clusters and, for divided
	// workloads, the replicas each runs.
	// +optional
	// +listType=atomic
	Clusters []TargetCluster `json:"clusters,omitempty" protobuf:"bytes,5,rep,name=clusters"`

	// Placement is the placement of the policy, copied when the policy claimed
	// the template or last changed.
	// +optional
	Placement *Placement `json:"placement,omitempty" protobuf:"bytes,6,opt,name=placement"`

	// GracefulEvictionTasks are clusters the template is being moved away
	// from; their copies are kept until the replacement is healthy or the
	// grace period ends.
	// +optional
	// +listType=atomic
	GracefulEvictionTasks []GracefulEvictionTask `json:"gracefulEvictionTasks,omitempty" protobuf:"bytes,7,rep,name=gracefulEvictionTasks"`

	// RequiredBy lists the bindings whose templates depend on this one, and
	// their clusters; a dependency goes wherever its dependents go.
	// +optional
	// +listType=atomic
	RequiredBy []BindingSnapshot `json:"requiredBy,omitempty" protobuf:"bytes,8,rep,name=requiredBy"`

	// SchedulerName is the scheduler that places this binding.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty" protobuf:"bytes,9,opt,name=schedulerName"`

	// Failover is the failover behavior copied from the policy.
	// +optional
	Failover *FailoverBehavior `json:"failover,omitempty" protobuf:"bytes,10,opt,name=failover"`

	// ConflictResolution is Abort or Overwrite, copied from the policy.
	// Defaults to Abort.
	// +optional
	ConflictResolution ConflictResolution `json:"conflictResolution,omitempty" protobuf:"bytes,11,opt,name=conflictResolution,casttype=ConflictResolution"`

	// Suspension is the suspension copied from the policy.
	// +optional
	Suspension *Suspension `json:"suspension,omitempty" protobuf:"bytes,12,opt,name=suspension"`

	// PreserveResourcesOnDeletion keeps the objects in the members when the
	// template is deleted; copied from the policy.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty" protobuf:"varint,13,opt,name=preserveResourcesOnDeletion"`

	// ReplicaMoves are moves of replicas other controllers ask of the
	// scheduler, which alone writes clusters: the descheduler's (replicas
	// unschedulable in a member) and the rebalancer's (replicas off a loaded
	// member). The scheduler applies them at its next pass, places what they
	// left without a cluster, and removes them in the same write. A move from
	// a cluster that is no longer a target does nothing.
	// +optional
	// +listType=atomic
	ReplicaMoves []ReplicaMoveRequest `json:"replicaMoves,omitempty" protobuf:"bytes,14,rep,name=replicaMoves"`

	// Components are the parts of a workload that runs several pod templates
	// (a Flink job's jobmanager and taskmanagers, a Ray cluster's head and
	// workers), each with its replicas and what one of them needs, as the
	// resource interpreter reads them (a customization's componentResource).
	// A binding with components has no replicas nor replicaRequirements: the
	// scheduler places the workload whole, each cluster it selects running
	// all of its components, and only where the cluster's nodes have room for
	// all of them together; quotas count every component.
	// +optional
	// +listType=map
	// +listMapKey=name
	Components []Component `json:"components,omitempty" protobuf:"bytes,15,rep,name=components"`

	// WorkloadAffinityGroups are the groups of the placement's workloadAffinity
	// the template is in, from its labels; written by fed from the template.
	// +optional
	WorkloadAffinityGroups *WorkloadAffinityGroups `json:"workloadAffinityGroups,omitempty" protobuf:"bytes,16,opt,name=workloadAffinityGroups"`

	// RescheduleTriggeredAt asks the scheduler to place the binding afresh, as
	// if it were placed nowhere yet (dynamic weights divided again, the first
	// group of clusterAffinities tried first), when it is later than
	// status.lastScheduledTime; written by fed for a WorkloadRebalancer.
	// +optional
	RescheduleTriggeredAt *metav1.Time `json:"rescheduleTriggeredAt,omitempty" protobuf:"bytes,17,opt,name=rescheduleTriggeredAt"`
}

// ReplicaMoveRequest asks the scheduler to move replicas off a target cluster.
type ReplicaMoveRequest struct {
	// FromCluster is the target cluster the replicas leave.
	FromCluster string `json:"fromCluster" protobuf:"bytes,1,opt,name=fromCluster"`
	// ToCluster is the cluster they go to; empty, the scheduler places them
	// on the clusters with room, as for a scale-up.
	// +optional
	ToCluster string `json:"toCluster,omitempty" protobuf:"bytes,2,opt,name=toCluster"`
	// Replicas is how many replicas move; at least 1.
	Replicas int32 `json:"replicas" protobuf:"varint,3,opt,name=replicas"`
	// Producer is the controller that asks: descheduler or rebalancer.
	Producer string `json:"producer" protobuf:"bytes,4,opt,name=producer"`
	// Message says in words why.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ObjectReference identifies a resource template.
type ObjectReference struct {
	// APIVersion is the group and version of the template, for example "apps/v1".
	APIVersion string `json:"apiVersion" protobuf:"bytes,1,opt,name=apiVersion"`
	// Kind is the kind of the template, for example "Deployment".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Namespace is the namespace of the template; empty for cluster-scoped kinds.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// Name is the name of the template.
	Name string `json:"name" protobuf:"bytes,4,opt,name=name"`
	// UID is the UID of the template, to tell it from a later one of the same name.
	// +optional
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// ResourceVersion is the version of the template last propagated.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
}

// Component is one part of a multi-component workload.
type Component struct {
	// Name names the component in its workload (jobmanager, taskmanager, Launcher):
	// at most 32 characters, unique in the workload.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Replicas is how many pods of the component the workload runs.
	Replicas int32 `json:"replicas" protobuf:"varint,2,opt,name=replicas"`
	// ReplicaRequirements is what one pod of the component needs.
	// +optional
	ReplicaRequirements *ReplicaRequirements `json:"replicaRequirements,omitempty" protobuf:"bytes,3,opt,name=replicaRequirements"`
}

// ReplicaRequirements is what one replica of a workload needs.
type ReplicaRequirements struct {
	// NodeClaim is the node constraints of the workload's pods.
	// +optional
	NodeClaim *NodeClaim `json:"nodeClaim,omitempty" protobuf:"bytes,1,opt,name=nodeClaim"`
	// ResourceRequest is the compute resources one replica requests.
	// +optional
	ResourceRequest corev1.ResourceList `json:"resourceRequest,omitempty" protobuf:"bytes,2,rep,name=resourceRequest,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
}

// NodeClaim is the node constraints of a workload's pods, read from its pod
// template.
type NodeClaim struct {
	// HardNodeAffinity is the required node affinity of the pods.
	// +optional
	HardNodeAffinity *corev1.NodeSelector `json:"hardNodeAffinity,omitempty" protobuf:"bytes,1,opt,name=hardNodeAffinity"`
	// NodeSelector is the node selector of the pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,2,rep,name=nodeSelector"`
	// Tolerations are the tolerations of the pods.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty" protobuf:"bytes,3,rep,name=tolerations"`
}

// TargetCluster is one cluster of a scheduling result.
type TargetCluster struct {
	// Name is the name of the cluster.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Replicas is the number of replicas the cluster runs; 0 for kinds
	// without replicas.
	// +optional
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
}

// GracefulEvictionTask is a cluster the template is being moved away from.
type GracefulEvictionTask struct {
	// FromCluster is the cluster being left.
	FromCluster string `json:"fromCluster" protobuf:"bytes,1,opt,name=fromCluster"`
	// PurgeMode is how the old copy is removed: Directly, Gracefully or Never.
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty" protobuf:"bytes,2,opt,name=purgeMode,casttype=PurgeMode"`
	// Replicas is the number of replicas the cluster ran.
	// +optional
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,3,opt,name=replicas"`
	// Reason is a CamelCase word saying why the cluster is left.
	Reason string `json:"reason" protobuf:"bytes,4,opt,name=reason"`
	// Message says in words why the cluster is left.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
	// Producer is the controller that started the eviction.
	Producer string `json:"producer" protobuf:"bytes,6,opt,name=producer"`
	// GracePeriodSeconds is how long the old copy is kept at most.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,7,opt,name=gracePeriodSeconds"`
	// SuppressDeletion, when true, keeps the old copy until set to false.
	// +optional
	SuppressDeletion *bool `json:"suppressDeletion,omitempty" protobuf:"varint,8,opt,name=suppressDeletion"`
	// CreationTimestamp is when the eviction started.
	// +optional
	CreationTimestamp *metav1.Time `json:"creationTimestamp,omitempty" protobuf:"bytes,9,opt,name=creationTimestamp"`
	// PreservedLabelState are the labels, read from the old copy by the
	// statePreservation rules of application failover, that the new copies
	// get.
	// +optional
	PreservedLabelState map[string]string `json:"preservedLabelState,omitempty" protobuf:"bytes,10,rep,name=preservedLabelState"`
	// ClustersBeforeFailover are the clusters the binding was on when the
	// eviction started; the copies that get PreservedLabelState are those on
	// other clusters.
	// +optional
	// +listType=atomic
	ClustersBeforeFailover []string `json:"clustersBeforeFailover,omitempty" protobuf:"bytes,11,rep,name=clustersBeforeFailover"`
}

// BindingSnapshot is a binding that depends on another one, with its clusters.
type BindingSnapshot struct {
	// Namespace is the namespace of the dependent binding.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the dependent binding.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// Clusters is the scheduling result of the dependent binding.
	// +optional
	// +listType=atomic
	Clusters []TargetCluster `json:"clusters,omitempty" protobuf:"bytes,3,rep,name=clusters"`
}

// Reasons and producers of graceful eviction tasks.
const (
	// EvictionReasonTaintUntolerated: the cluster has a NoExecute taint the placement
	// does not tolerate (any more).
	EvictionReasonTaintUntolerated = "TaintUntolerated"
	// EvictionReasonApplicationFailure: the workload stayed unhealthy on the cluster
	// longer than failover.application.decisionConditions.tolerationSeconds.
	EvictionReasonApplicationFailure = "ApplicationFailure"

	// EvictionProducerScheduler is fed's scheduler, which leaves clusters whose
	// NoExecute taints the placement does not tolerate.
	EvictionProducerScheduler = "scheduler"
	// EvictionProducerApplicationFailover is fed's application failover controller.
	EvictionProducerApplicationFailover = "application-failover"

	// MoveProducerDescheduler is fed's descheduler.
	MoveProducerDescheduler = "descheduler"
	// MoveProducerRebalancer runs the ReplicaSchedulingPolicies.
	MoveProducerRebalancer = "rebalancer"
)

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
	// +optional
	SchedulerObservedGeneration int64 `json:"schedulerObservedGeneration,omitempty" protobuf:"varint,1,opt,name=schedulerObservedGeneration"`

	// SchedulerObservedAffinityName is the affinity group of clusterAffinities
	// the scheduler last placed the binding in.
	// +optional
	SchedulerObservedAffinityName string `json:"schedulerObservingAffinityName,omitempty" protobuf:"bytes,2,opt,name=schedulerObservingAffinityName"`

	// LastScheduledTime is when the scheduler last placed the binding.
	// +optional
	LastScheduledTime *metav1.Time `json:"lastScheduledTime,omitempty" protobuf:"bytes,3,opt,name=lastScheduledTime"`

	// Conditions are the latest observations of the binding: Scheduled and
	// FullyApplied.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions"`

	// AggregatedStatus is the state of the template in each target cluster.
	// +optional
	// +listType=map
	// +listMapKey=clusterName
	AggregatedStatus []AggregatedStatusItem `json:"aggregatedStatus,omitempty" protobuf:"bytes,5,rep,name=aggregatedStatus"`
}

// ResourceHealth is the health of an object in a member cluster.
// +enum
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
	ClusterName string `json:"clusterName" protobuf:"bytes,1,opt,name=clusterName"`
	// Status is the status of the object in the cluster, as the member reports it.
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// Applied is true once the object was applied in the cluster.
	// +optional
	Applied bool `json:"applied,omitempty" protobuf:"varint,3,opt,name=applied"`
	// AppliedMessage says why the object could not be applied.
	// +optional
	AppliedMessage string `json:"appliedMessage,omitempty" protobuf:"bytes,4,opt,name=appliedMessage"`
	// Health is Healthy, Unhealthy or Unknown.
	// +optional
	Health ResourceHealth `json:"health,omitempty" protobuf:"bytes,5,opt,name=health,casttype=ResourceHealth"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceBindingList is a list of ResourceBindings.
type ResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the bindings.
	Items []ResourceBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterResourceBindingList is a list of ClusterResourceBindings.
type ClusterResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the bindings.
	Items []ClusterResourceBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// WorkloadAffinityGroups are a template's groups of workload affinity, each
// "key=value" of the label that forms it; empty when the template is in none.
type WorkloadAffinityGroups struct {
	// AffinityGroup is the group whose clusters the template goes to.
	// +optional
	AffinityGroup string `json:"affinityGroup,omitempty" protobuf:"bytes,1,opt,name=affinityGroup"`

	// AntiAffinityGroup is the group whose clusters the template avoids.
	// +optional
	AntiAffinityGroup string `json:"antiAffinityGroup,omitempty" protobuf:"bytes,2,opt,name=antiAffinityGroup"`
}
