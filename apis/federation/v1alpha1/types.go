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

// ResourceSelector picks the resource templates a policy applies to.
type ResourceSelector struct {
	// APIVersion is the group and version of the selected resources, for
	// example "apps/v1".
	APIVersion string `json:"apiVersion" protobuf:"bytes,1,opt,name=apiVersion"`

	// Kind is the kind of the selected resources, for example "Deployment".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`

	// Namespace is the namespace of the selected resources. In a namespaced
	// policy it must be empty or the policy's own namespace; empty means the
	// policy's namespace. In a cluster-scoped policy empty means all
	// namespaces, or no namespace for cluster-scoped kinds.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`

	// Name is the name of the selected resource. Empty selects every resource
	// of the kind that matches LabelSelector.
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,4,opt,name=name"`

	// LabelSelector selects resources by their labels. Ignored when Name is set.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,5,opt,name=labelSelector"`
}

// ClusterAffinity selects member clusters. A cluster is selected when it
// matches every criterion that is set and is not excluded; with no criterion
// set, every cluster is selected.
type ClusterAffinity struct {
	// LabelSelector selects clusters by the labels of their Cluster objects.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,1,opt,name=labelSelector"`

	// FieldSelector selects clusters by the provider, region and zone in their
	// Cluster spec.
	// +optional
	FieldSelector *FieldSelector `json:"fieldSelector,omitempty" protobuf:"bytes,2,opt,name=fieldSelector"`

	// ClusterNames lists the selected clusters by name.
	// +optional
	// +listType=atomic
	ClusterNames []string `json:"clusterNames,omitempty" protobuf:"bytes,3,rep,name=clusterNames"`

	// ExcludeClusters lists clusters that are never selected, whatever the
	// other criteria say.
	// +optional
	// +listType=atomic
	ExcludeClusters []string `json:"exclude,omitempty" protobuf:"bytes,4,rep,name=exclude"`
}

// FieldSelector selects clusters by fields of their Cluster spec.
type FieldSelector struct {
	// MatchExpressions are requirements on the cluster's fields, all of which
	// must hold. Keys are "provider", "region" and "zone"; operators are In,
	// NotIn, Exists and DoesNotExist.
	// +listType=atomic
	MatchExpressions []corev1.NodeSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
}

// Cluster spec fields a FieldSelector can match on.
const (
	// ProviderField matches the cluster's spec.provider.
	ProviderField = "provider"
	// RegionField matches the cluster's spec.region.
	RegionField = "region"
	// ZoneField matches the cluster's spec.zone.
	ZoneField = "zone"
)

// ClusterAffinityTerm is one named group of clusters in a preference order.
type ClusterAffinityTerm struct {
	// AffinityName names the group; it is unique within the placement and is
	// reported in the binding's status while the scheduler uses this group.
	AffinityName string `json:"affinityName" protobuf:"bytes,1,opt,name=affinityName"`

	// ClusterAffinity selects the clusters of this group.
	ClusterAffinity `json:",inline" protobuf:"bytes,2,opt,name=clusterAffinity"`

	// OverflowAffinities are further groups, in order, for the replicas of a
	// Divided workload this group cannot hold: this group is filled to its
	// room first, then each overflow group in turn; on a scale-down the last
	// groups give their replicas back first. A cluster in several groups
	// belongs to the first. A workload of several components goes whole to the
	// first group with room for it. Requires replicaSchedulingType Divided
	// and no spreadConstraints.
	// +optional
	// +listType=atomic
	OverflowAffinities []OverflowClusterAffinity `json:"overflowAffinities,omitempty" protobuf:"bytes,3,rep,name=overflowAffinities"`
}

// OverflowClusterAffinity is one overflow group of a ClusterAffinityTerm.
type OverflowClusterAffinity struct {
	// AffinityName names the group; unique within the placement.
	AffinityName string `json:"affinityName" protobuf:"bytes,1,opt,name=affinityName"`

	// ClusterAffinity selects the clusters of this group.
	ClusterAffinity `json:",inline" protobuf:"bytes,2,opt,name=clusterAffinity"`
}

// ConflictResolution says what to do when the target object already exists
// in a member cluster and was not created by fed.
// +enum
type ConflictResolution string

const (
	// ConflictAbort leaves the existing object alone and reports the conflict.
	ConflictAbort ConflictResolution = "Abort"
	// ConflictOverwrite takes the existing object over and overwrites it with
	// the template.
	ConflictOverwrite ConflictResolution = "Overwrite"
)

// Suspension pauses parts of propagation without deleting anything.
type Suspension struct {
	// Dispatching, when true, stops fed from applying changes of the template
	// to any member cluster. Objects already there are left as they are.
	// +optional
	Dispatching *bool `json:"dispatching,omitempty" protobuf:"varint,1,opt,name=dispatching"`

	// DispatchingOnClusters stops applying changes to the listed clusters only.
	// Ignored when Dispatching is true.
	// +optional
	DispatchingOnClusters *SuspendClusters `json:"dispatchingOnClusters,omitempty" protobuf:"bytes,2,opt,name=dispatchingOnClusters"`
}

// SuspendClusters lists the clusters dispatching is suspended on.
type SuspendClusters struct {
	// ClusterNames are the names of the clusters.
	// +optional
	// +listType=atomic
	ClusterNames []string `json:"clusterNames,omitempty" protobuf:"bytes,1,rep,name=clusterNames"`
}
