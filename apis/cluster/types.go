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

package cluster

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Cluster is a member cluster of the fleet: where fed reaches it, how it
// authenticates there, and what fed last observed about it.
type Cluster struct {
	metav1.TypeMeta
	// Standard object metadata. The name is the cluster's name in the fleet and
	// is what policies, bindings and the proxy subresource refer to.
	metav1.ObjectMeta

	// Spec is how fed connects to the member and how it may be scheduled to.
	Spec ClusterSpec

	// Status is what fed last observed about the member. Written by the
	// cluster status controller through the status subresource.
	Status ClusterStatus
}

// ClusterSyncMode says which side opens the connection between fed and a member.
type ClusterSyncMode string

const (
	// Push means the fed server dials the member's API server itself.
	Push ClusterSyncMode = "Push"
	// Pull means an agent in the member dials fed and applies the member's work.
	Pull ClusterSyncMode = "Pull"
)

// ClusterSpec is the desired configuration of a member cluster.
type ClusterSpec struct {
	// ID uniquely identifies the member: the UID of its kube-system namespace.
	// It keeps one cluster from being joined twice under different names and
	// cannot be changed once set.
	ID string

	// SyncMode says who connects: Push (fed dials the member) or Pull (an agent
	// in the member dials fed). Defaults to Push.
	SyncMode ClusterSyncMode

	// APIEndpoint is the https URL of the member's Kubernetes API server.
	// Required in Push mode.
	APIEndpoint string

	// SecretRef names the Secret in the host cluster that holds the credentials
	// fed uses to reach the member: a "token" and a "caBundle" key, or a
	// "kubeconfig" key. Required in Push mode.
	SecretRef *LocalSecretReference

	// ImpersonatorSecretRef names the Secret in the host cluster that holds the
	// token of the member's service account allowed to impersonate users; the
	// proxy subresource uses it to act on the member as the calling user.
	ImpersonatorSecretRef *LocalSecretReference

	// InsecureSkipTLSVerification turns off verification of the member API
	// server's certificate. For test clusters only.
	InsecureSkipTLSVerification bool

	// Provider is the name of the cloud or platform that runs the member, for
	// example "AWS". Policies can select and spread clusters by it.
	Provider string

	// Region is the region the member runs in, for example "us-west-2".
	// Policies can select and spread clusters by it.
	Region string

	// Zone is the availability zone the member runs in, for example
	// "us-west-2a". Policies can select and spread clusters by it.
	Zone string

	// Taints keep workloads off the member unless their policy tolerates them.
	// Effects NoSchedule (no new placements) and NoExecute (existing placements
	// are also moved away) are supported.
	Taints []corev1.Taint
}

// LocalSecretReference points to a Secret in the host cluster.
type LocalSecretReference struct {
	// Namespace is the namespace of the Secret.
	Namespace string
	// Name is the name of the Secret.
	Name string
}

// ClusterConditionReady is the condition type that is True while fed can reach
// the member and its API server reports healthy.
const ClusterConditionReady = "Ready"

// ClusterStatus is the observed state of a member cluster.
type ClusterStatus struct {
	// KubernetesVersion is the version the member's API server reports, for
	// example "v1.32.4".
	KubernetesVersion string

	// APIEnablements lists the group versions and resources the member serves.
	// The scheduler only places a resource on members that serve its kind.
	APIEnablements []APIEnablement

	// Conditions are the latest observations of the member's state; the Ready
	// condition says whether fed can use it.
	Conditions []metav1.Condition

	// NodeSummary counts the member's nodes.
	NodeSummary *NodeSummary

	// ResourceSummary sums the compute resources of the member's nodes and pods.
	ResourceSummary *ResourceSummary

	// RemedyActions are the actions the Remedies that match the cluster call
	// for, written by fed's remedy controller alone.
	RemedyActions []string
}

// APIEnablement is one group version served by a member and its resources.
type APIEnablement struct {
	// GroupVersion is the group and version, for example "apps/v1" or "v1".
	GroupVersion string
	// Resources are the resources served in this group version.
	Resources []APIResource
}

// APIResource names one resource of a group version.
type APIResource struct {
	// Name is the plural resource name, for example "deployments".
	Name string
	// Kind is the kind of the resource's objects, for example "Deployment".
	Kind string
}

// NodeSummary counts the nodes of a member cluster.
type NodeSummary struct {
	// TotalNum is the number of nodes in the member.
	TotalNum int32
	// ReadyNum is the number of nodes whose Ready condition is True.
	ReadyNum int32
}

// ResourceSummary sums the compute resources of a member cluster.
type ResourceSummary struct {
	// Allocatable is the sum of the allocatable resources of all ready nodes.
	Allocatable corev1.ResourceList
	// Allocating is the sum of the requests of pods not yet bound to a node.
	Allocating corev1.ResourceList
	// Allocated is the sum of the requests of pods bound to a node.
	Allocated corev1.ResourceList
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterList is a list of Clusters.
type ClusterList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the clusters.
	Items []Cluster
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterProxyOptions is the query of a request to the clusters/proxy subresource.
type ClusterProxyOptions struct {
	metav1.TypeMeta

	// Path is the path on the member's API server the request goes to.
	Path string
}
