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
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedResourceQuota is the quota of one namespace across the fleet. fed
// counts what the replicas of the namespace's workloads request, in whichever
// member clusters they are scheduled, against spec.overall, and the scheduler
// does not place a workload, or a scale-up, that would take the namespace
// over it. Each static assignment also makes a ResourceQuota of the
// FederatedResourceQuota's name in the namespace of one member, with the
// assignment's hard limits; members without an assignment get none.
type FederatedResourceQuota struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the namespace's quota across the fleet and the ResourceQuotas
	// made in members.
	Spec FederatedResourceQuotaSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the quota as last enforced, what the namespace uses of it, and
	// the status of the ResourceQuota made in each member.
	// +optional
	Status FederatedResourceQuotaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FederatedResourceQuotaSpec is the desired behavior of a
// FederatedResourceQuota.
type FederatedResourceQuotaSpec struct {
	// Overall is the namespace's quota across the whole fleet, by resource.
	// fed counts what the replicas of the namespace's workloads request
	// wherever they are scheduled, and the scheduler does not place a
	// workload, or a scale-up, that would take the namespace over it. The
	// resources are those a replica requests: cpu, memory, ephemeral-storage,
	// pods and extended resources, each also as requests.<name> (one of the
	// two forms per resource). Object counts and limits are not enforced
	// across the fleet.
	Overall corev1.ResourceList `json:"overall" protobuf:"bytes,1,rep,name=overall,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`

	// StaticAssignments are the ResourceQuotas made in members: for each
	// assignment, a ResourceQuota of the FederatedResourceQuota's name in its
	// namespace in the member clusterName, with the assignment's hard limits.
	// Members not listed get none. Each resource of an assignment must be in
	// overall, and the assignments of a resource may not add up to more than
	// overall.
	// +optional
	// +listType=map
	// +listMapKey=clusterName
	StaticAssignments []StaticClusterAssignment `json:"staticAssignments,omitempty" protobuf:"bytes,2,rep,name=staticAssignments"`
}

// StaticClusterAssignment is the ResourceQuota made in one member cluster.
type StaticClusterAssignment struct {
	// ClusterName is the member cluster the ResourceQuota is made in.
	ClusterName string `json:"clusterName" protobuf:"bytes,1,opt,name=clusterName"`

	// Hard is the hard limits of the member's ResourceQuota; each of its
	// resources must be in spec.overall.
	Hard corev1.ResourceList `json:"hard" protobuf:"bytes,2,rep,name=hard,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
}

// FederatedResourceQuotaStatus is the observed state of a
// FederatedResourceQuota.
type FederatedResourceQuotaStatus struct {
	// Overall is spec.overall as fed last enforced it.
	// +optional
	Overall corev1.ResourceList `json:"overall,omitempty" protobuf:"bytes,1,rep,name=overall,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`

	// OverallUsed is what the replicas of the namespace's scheduled workloads
	// request across the fleet, for each resource of overall.
	// +optional
	OverallUsed corev1.ResourceList `json:"overallUsed,omitempty" protobuf:"bytes,2,rep,name=overallUsed,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`

	// AggregatedStatus is the status of the ResourceQuota made in each member
	// with a static assignment: its hard limits and what the namespace uses of
	// them in that member.
	// +optional
	// +listType=map
	// +listMapKey=clusterName
	AggregatedStatus []ClusterQuotaStatus `json:"aggregatedStatus,omitempty" protobuf:"bytes,3,rep,name=aggregatedStatus"`

	// Conditions are the latest observations of the quota.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions"`

	// ObservedGeneration is the generation of the spec the status is of.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
}

// ClusterQuotaStatus is the status of the ResourceQuota a static assignment
// made in one member cluster.
type ClusterQuotaStatus struct {
	// ClusterName is the member cluster of the ResourceQuota.
	ClusterName string `json:"clusterName" protobuf:"bytes,1,opt,name=clusterName"`

	// Hard is the hard limits of the member's ResourceQuota, as the member
	// enforces them.
	// +optional
	Hard corev1.ResourceList `json:"hard,omitempty" protobuf:"bytes,2,rep,name=hard,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`

	// Used is what the namespace uses in the member, of each resource of hard.
	// +optional
	Used corev1.ResourceList `json:"used,omitempty" protobuf:"bytes,3,rep,name=used,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedResourceQuotaList is a list of FederatedResourceQuotas.
type FederatedResourceQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the quotas.
	Items []FederatedResourceQuota `json:"items" protobuf:"bytes,2,rep,name=items"`
}
