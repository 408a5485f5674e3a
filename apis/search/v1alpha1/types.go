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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceRegistry says which kinds of which member clusters fed caches, so
// that searches across the fleet are answered from the cache instead of
// asking every member. Its status says, per cluster and kind, how far the
// cache is.
type ResourceRegistry struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec selects the clusters and kinds to cache.
	Spec ResourceRegistrySpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is how far the cache of each selected cluster and kind is.
	// Written by the cache through the status subresource.
	// +optional
	Status ResourceRegistryStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceRegistrySpec selects the clusters and the kinds fed caches.
type ResourceRegistrySpec struct {
	// TargetCluster selects the member clusters whose objects are cached, with
	// the semantics of a PropagationPolicy's placement.clusterAffinity: cluster
	// names, excluded clusters, a label selector and a field selector on
	// provider, region and zone. Empty selects every cluster of the fleet,
	// including those that join later.
	// +optional
	TargetCluster federationv1alpha1.ClusterAffinity `json:"targetCluster,omitempty" protobuf:"bytes,1,opt,name=targetCluster"`

	// ResourceSelectors are the kinds to cache from each selected cluster. At
	// least one.
	// +listType=atomic
	ResourceSelectors []ResourceSelector `json:"resourceSelectors" protobuf:"bytes,2,rep,name=resourceSelectors"`
}

// ResourceSelector names one kind to cache, in every namespace or in one.
type ResourceSelector struct {
	// APIVersion is the group and version of the kind, for example "apps/v1"
	// or "v1".
	APIVersion string `json:"apiVersion" protobuf:"bytes,1,opt,name=apiVersion"`

	// Kind is the kind to cache, for example "Deployment".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`

	// Namespace limits the cache of this kind to one namespace. Empty caches
	// the kind in all namespaces (and cluster-scoped kinds).
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
}

// ResourceRegistryConditionReady is the condition type that is True while
// every cache of the registry is synced and no member is stale.
const ResourceRegistryConditionReady = "Ready"

// ResourceRegistryStatus is how far the caches of a ResourceRegistry are.
type ResourceRegistryStatus struct {
	// Conditions are the latest observations of the registry's state; the
	// Ready condition says whether every cache is synced.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`

	// Caches says, for each selected cluster and each resource selector, how
	// far the cache is.
	// +optional
	// +listType=atomic
	Caches []CacheStatus `json:"caches,omitempty" protobuf:"bytes,2,rep,name=caches"`
}

// CacheStatus is the state of the cache of one kind (and namespace) of one
// member cluster.
type CacheStatus struct {
	// Cluster is the name of the member cluster.
	Cluster string `json:"cluster" protobuf:"bytes,1,opt,name=cluster"`

	// APIVersion is the group and version of the cached kind, as in the
	// resource selector.
	APIVersion string `json:"apiVersion" protobuf:"bytes,2,opt,name=apiVersion"`

	// Kind is the cached kind.
	Kind string `json:"kind" protobuf:"bytes,3,opt,name=kind"`

	// Namespace is the namespace the cache is limited to; empty for all
	// namespaces.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`

	// Synced is true once the cache holds everything the member had when the
	// cache started watching it: after a full list, or after resuming a watch.
	Synced bool `json:"synced" protobuf:"varint,5,opt,name=synced"`

	// Objects is how many objects of this kind (and namespace) of this
	// cluster the cache holds.
	Objects int64 `json:"objects" protobuf:"varint,6,opt,name=objects"`

	// Stale is true while the member cannot be reached: its entries stay in
	// the cache as last seen, and search results from them carry the
	// search.fedhq.io/stale annotation.
	// +optional
	Stale bool `json:"stale,omitempty" protobuf:"varint,7,opt,name=stale"`

	// Message says why the cache is not synced or is stale: the member is
	// unreachable, it does not serve the kind, and so on.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,8,opt,name=message"`

	// LastSyncTime is when the cache last received an event or a list from
	// the member for this kind.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty" protobuf:"bytes,9,opt,name=lastSyncTime"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceRegistryList is a list of ResourceRegistries.
type ResourceRegistryList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the resource registries.
	Items []ResourceRegistry `json:"items" protobuf:"bytes,2,rep,name=items"`
}
