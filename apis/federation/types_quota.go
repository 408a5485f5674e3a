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
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedResourceQuota is the quota of one namespace across the fleet. fed
// counts what the replicas of the namespace's workloads request, in whichever
// member clusters they are scheduled, against spec.overall, and the scheduler
// does not place a workload, or a scale-up, that would take the namespace
// over it. Each static assignment also makes a ResourceQuota of the
// FederatedResourceQuota's name in the namespace of one member, with the
// assignment's hard limits; members without an assignment get none.
type FederatedResourceQuota struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the namespace's quota across the fleet and the ResourceQuotas
	// made in members.
	Spec FederatedResourceQuotaSpec

	// Status is the quota as last enforced, what the namespace uses of it, and
	// the status of the ResourceQuota made in each member.
	Status FederatedResourceQuotaStatus
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
	Overall corev1.ResourceList

	// StaticAssignments are the ResourceQuotas made in members: for each
	// assignment, a ResourceQuota of the FederatedResourceQuota's name in its
	// namespace in the member clusterName, with the assignment's hard limits.
	// Members not listed get none. Each resource of an assignment must be in
	// overall, and the assignments of a resource may not add up to more than
	// overall.
	StaticAssignments []StaticClusterAssignment
}

// StaticClusterAssignment is the ResourceQuota made in one member cluster.
type StaticClusterAssignment struct {
	// ClusterName is the member cluster the ResourceQuota is made in.
	ClusterName string

	// Hard is the hard limits of the member's ResourceQuota; each of its
	// resources must be in spec.overall.
	Hard corev1.ResourceList
}

// FederatedResourceQuotaStatus is the observed state of a
// FederatedResourceQuota.
type FederatedResourceQuotaStatus struct {
	// Overall is spec.overall as fed last enforced it.
	Overall corev1.ResourceList

	// OverallUsed is what the replicas of the namespace's scheduled workloads
	// request across the fleet, for each resource of overall.
	OverallUsed corev1.ResourceList

	// AggregatedStatus is the status of the ResourceQuota made in each member
	// with a static assignment: its hard limits and what the namespace uses of
	// them in that member.
	AggregatedStatus []ClusterQuotaStatus

	// Conditions are the latest observations of the quota.
	Conditions []metav1.Condition

	// ObservedGeneration is the generation of the spec the status is of.
	ObservedGeneration int64
}

// ClusterQuotaStatus is the status of the ResourceQuota a static assignment
// made in one member cluster.
type ClusterQuotaStatus struct {
	// ClusterName is the member cluster of the ResourceQuota.
	ClusterName string

	// Hard is the hard limits of the member's ResourceQuota, as the member
	// enforces them.
	Hard corev1.ResourceList

	// Used is what the namespace uses in the member, of each resource of hard.
	Used corev1.ResourceList
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FederatedResourceQuotaList is a list of FederatedResourceQuotas.
type FederatedResourceQuotaList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the quotas.
	Items []FederatedResourceQuota
}
