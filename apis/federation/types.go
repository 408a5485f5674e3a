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

// ResourceSelector picks the resource templates a policy applies to.
type ResourceSelector struct {
	// APIVersion is the group and version of the selected resources, for
	// example "apps/v1".
	APIVersion string

	// Kind is the kind of the selected resources, for example "Deployment".
	Kind string

	// Namespace is the namespace of the selected resources. In a namespaced
	// policy it must be empty or the policy's own namespace; empty means the
	// policy's namespace. In a cluster-scoped policy empty means all
	// namespaces, or no namespace for cluster-scoped kinds.
	Namespace string

	// Name is the name of the selected resource. Empty selects every resource
	// of the kind that matches LabelSelector.
	Name string

	// LabelSelector selects resources by their labels. Ignored when Name is set.
	LabelSelector *metav1.LabelSelector
}

// ClusterAffinity selects member clusters. A cluster is selected when it
// matches every criterion that is set and is not excluded; with no criterion
// set, every cluster is selected.
type ClusterAffinity struct {
	// LabelSelector selects clusters by the labels of their Cluster objects.
	LabelSelector *metav1.LabelSelector

	// FieldSelector selects clusters by the provider, region and zone in their
	// Cluster spec.
	FieldSelector *FieldSelector

	// ClusterNames lists the selected clusters by name.
	ClusterNames []string

	// ExcludeClusters lists clusters that are never selected, whatever the
	// other criteria say.
	ExcludeClusters []string
}

// FieldSelector selects clusters by fields of their Cluster spec.
type FieldSelector struct {
	// MatchExpressions are requirements on the cluster's fields, all of which
	// must hold. Keys are "provider", "region" and "zone"; operators are In,
	// NotIn, Exists and DoesNotExist.
	MatchExpressions []corev1.NodeSelectorRequirement
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
	AffinityName string

	// ClusterAffinity selects the clusters of this group.
	ClusterAffinity

	// OverflowAffinities are further groups, in order, for the replicas of a
	// Divided workload this group cannot hold: this group is filled first, then
	// each overflow group in turn; on a scale-down the last groups give their
	// replicas back first. A cluster in several groups belongs to the first.
	OverflowAffinities []OverflowClusterAffinity
}

// OverflowClusterAffinity is one overflow group of a ClusterAffinityTerm.
type OverflowClusterAffinity struct {
	// AffinityName names the group; unique within the placement.
	AffinityName string

	// ClusterAffinity selects the clusters of this group.
	ClusterAffinity
}

// ConflictResolution says what to do when the target object already exists
// in a member cluster and was not created by fed.
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
	Dispatching *bool

	// DispatchingOnClusters stops applying changes to the listed clusters only.
	// Ignored when Dispatching is true.
	DispatchingOnClusters *SuspendClusters
}

// SuspendClusters lists the clusters dispatching is suspended on.
type SuspendClusters struct {
	// ClusterNames are the names of the clusters.
	ClusterNames []string
}
