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

package search

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceRegistry says which kinds of which member clusters fed caches, so
// that searches across the fleet are answered from the cache instead of
// asking every member. Its status says, per cluster and kind, how far the
// cache is.
type ResourceRegistry struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec selects the clusters and kinds to cache.
	Spec ResourceRegistrySpec

	// Status is how far the cache of each selected cluster and kind is.
	// Written by the cache through the status subresource.
	Status ResourceRegistryStatus
}

// ResourceRegistrySpec selects the clusters and the kinds fed caches.
type ResourceRegistrySpec struct {
	// TargetCluster selects the member clusters whose objects are cached, with
	// the semantics of a PropagationPolicy's placement.clusterAffinity: cluster
	// names, excluded clusters, a label selector and a field selector on
	// provider, region and zone. Empty selects every cluster of the fleet,
	// including those that join later.
	TargetCluster federation.ClusterAffinity

	// ResourceSelectors are the kinds to cache from each selected cluster. At
	// least one.
	ResourceSelectors []ResourceSelector
}

// ResourceSelector names one kind to cache, in every namespace or in one.
type ResourceSelector struct {
	// APIVersion is the group and version of the kind, for example "apps/v1"
	// or "v1".
	APIVersion string

	// Kind is the kind to cache, for example "Deployment".
	Kind string

	// Namespace limits the cache of this kind to one namespace. Empty caches
	// the kind in all namespaces (and cluster-scoped kinds).
	Namespace string
}

// ResourceRegistryConditionReady is the condition type that is True while
// every cache of the registry is synced and no member is stale.
const ResourceRegistryConditionReady = "Ready"

// ResourceRegistryStatus is how far the caches of a ResourceRegistry are.
type ResourceRegistryStatus struct {
	// Conditions are the latest observations of the registry's state; the
	// Ready condition says whether every cache is synced.
	Conditions []metav1.Condition

	// Caches says, for each selected cluster and each resource selector, how
	// far the cache is.
	Caches []CacheStatus
}

// CacheStatus is the state of the cache of one kind (and namespace) of one
// member cluster.
type CacheStatus struct {
	// Cluster is the name of the member cluster.
	Cluster string

	// APIVersion is the group and version of the cached kind, as in the
	// resource selector.
	APIVersion string

	// Kind is the cached kind.
	Kind string

	// Namespace is the namespace the cache is limited to; empty for all
	// namespaces.
	Namespace string

	// Synced is true once the cache holds everything the member had when the
	// cache started watching it: after a full list, or after resuming a watch.
	Synced bool

	// Objects is how many objects of this kind (and namespace) of this
	// cluster the cache holds.
	Objects int64

	// Stale is true while the member cannot be reached: its entries stay in
	// the cache as last seen, and search results from them carry the
	// search.fedhq.io/stale annotation.
	Stale bool

	// Message says why the cache is not synced or is stale: the member is
	// unreachable, it does not serve the kind, and so on.
	Message string

	// LastSyncTime is when the cache last received an event or a list from
	// the member for this kind.
	LastSyncTime *metav1.Time
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceRegistryList is a list of ResourceRegistries.
type ResourceRegistryList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the resource registries.
	Items []ResourceRegistry
}
