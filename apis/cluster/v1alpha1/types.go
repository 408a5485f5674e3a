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
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Cluster is a member cluster of the fleet: where fed reaches it, how it
// authenticates there, and what fed last observed about it.
type Cluster struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is the cluster's name in the fleet and
	// is what policies, bindings and the proxy subresource refer to.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is how fed connects to the member and how it may be scheduled to.
	Spec ClusterSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is what fed last observed about the member. Written by the
	// cluster status controller through the status subresource.
	// +optional
	Status ClusterStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ClusterSyncMode says which side opens the connection between fed and a member.
// +enum
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
	// +optional
	ID string `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`

	// SyncMode says who connects: Push (fed dials the member) or Pull (an agent
	// in the member dials fed). Defaults to Push.
	// +optional
	SyncMode ClusterSyncMode `json:"syncMode,omitempty" protobuf:"bytes,2,opt,name=syncMode,casttype=ClusterSyncMode"`

	// APIEndpoint is the https URL of the member's Kubernetes API server.
	// Required in Push mode.
	// +optional
	APIEndpoint string `json:"apiEndpoint,omitempty" protobuf:"bytes,3,opt,name=apiEndpoint"`

	// SecretRef names the Secret in the host cluster that holds the credentials
	// fed uses to reach the member: a "token" and a "caBundle" key, or a
	// "kubeconfig" key. Its namespace must be fed-system, where only fleet
	// admins read Secrets. Required in Push mode.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty" protobuf:"bytes,4,opt,name=secretRef"`

	// ImpersonatorSecretRef names the Secret in the host cluster that holds the
	// token of the member's service account allowed to impersonate users; the
	// proxy subresource uses it to act on the member as the calling user. Its
	// namespace must be fed-system.
	// +optional
	ImpersonatorSecretRef *LocalSecretReference `json:"impersonatorSecretRef,omitempty" protobuf:"bytes,5,opt,name=impersonatorSecretRef"`

	// InsecureSkipTLSVerification turns off verification of the member API
	// server's certificate. For test clusters only.
	// +optional
	InsecureSkipTLSVerification bool `json:"insecureSkipTLSVerification,omitempty" protobuf:"varint,6,opt,name=insecureSkipTLSVerification"`

	// Provider is the name of the cloud or platform that runs the member, for
	// example "AWS". Policies can select and spread clusters by it.
	// +optional
	Provider string `json:"provider,omitempty" protobuf:"bytes,7,opt,name=provider"`

	// Region is the region the member runs in, for example "us-west-2".
	// Policies can select and spread clusters by it.
	// +optional
	Region string `json:"region,omitempty" protobuf:"bytes,8,opt,name=region"`

	// Zone is the availability zone the member runs in, for example
	// "us-west-2a". Policies can select and spread clusters by it.
	// +optional
	Zone string `json:"zone,omitempty" protobuf:"bytes,9,opt,name=zone"`

	// Taints keep workloads off the member unless their policy tolerates them.
	// Effects NoSchedule (no new placements) and NoExecute (existing placements
	// are also moved away) are supported.
	// +optional
	// +listType=atomic
	Taints []corev1.Taint `json:"taints,omitempty" protobuf:"bytes,10,rep,name=taints"`
}

// LocalSecretReference points to a Secret in the host cluster.
type LocalSecretReference struct {
	// Namespace is the namespace of the Secret.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the Secret.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ClusterConditionReady is the condition type that is True while fed can reach
// the member and its API server reports healthy.
const ClusterConditionReady = "Ready"

// ClusterStatus is the observed state of a member cluster.
type ClusterStatus struct {
	// KubernetesVersion is the version the member's API server reports, for
	// example "v1.32.4".
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty" protobuf:"bytes,1,opt,name=kubernetesVersion"`

	// APIEnablements lists the group versions and resources the member serves.
	// The scheduler only places a resource on members that serve its kind.
	// +optional
	// +listType=atomic
	APIEnablements []APIEnablement `json:"apiEnablements,omitempty" protobuf:"bytes,2,rep,name=apiEnablements"`

	// Conditions are the latest observations of the member's state; the Ready
	// condition says whether fed can use it.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`

	// NodeSummary counts the member's nodes.
	// +optional
	NodeSummary *NodeSummary `json:"nodeSummary,omitempty" protobuf:"bytes,4,opt,name=nodeSummary"`

	// ResourceSummary sums the compute resources of the member's nodes and pods.
	// +optional
	ResourceSummary *ResourceSummary `json:"resourceSummary,omitempty" protobuf:"bytes,5,opt,name=resourceSummary"`

	// RemedyActions are the actions the Remedies that match the cluster call
	// for (TrafficControl), written by fed's remedy controller alone.
	// +optional
	// +listType=atomic
	RemedyActions []string `json:"remedyActions,omitempty" protobuf:"bytes,6,rep,name=remedyActions"`
}

// APIEnablement is one group version served by a member and its resources.
type APIEnablement struct {
	// GroupVersion is the group and version, for example "apps/v1" or "v1".
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// Resources are the resources served in this group version.
	// +optional
	// +listType=atomic
	Resources []APIResource `json:"resources,omitempty" protobuf:"bytes,2,rep,name=resources"`
}

// APIResource names one resource of a group version.
type APIResource struct {
	// Name is the plural resource name, for example "deployments".
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Kind is the kind of the resource's objects, for example "Deployment".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
}

// NodeSummary counts the nodes of a member cluster.
type NodeSummary struct {
	// TotalNum is the number of nodes in the member.
	// +optional
	TotalNum int32 `json:"totalNum,omitempty" protobuf:"varint,1,opt,name=totalNum"`
	// ReadyNum is the number of nodes whose Ready condition is True.
	// +optional
	ReadyNum int32 `json:"readyNum,omitempty" protobuf:"varint,2,opt,name=readyNum"`
}

// ResourceSummary sums the compute resources of a member cluster.
type ResourceSummary struct {
	// Allocatable is the sum of the allocatable resources of all ready nodes.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty" protobuf:"bytes,1,rep,name=allocatable,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// Allocating is the sum of the requests of pods not yet bound to a node.
	// +optional
	Allocating corev1.ResourceList `json:"allocating,omitempty" protobuf:"bytes,2,rep,name=allocating,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// Allocated is the sum of the requests of pods bound to a node.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitempty" protobuf:"bytes,3,rep,name=allocated,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterList is a list of Clusters.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the clusters.
	Items []Cluster `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:conversion-gen:explicit-from=net/url.Values
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterProxyOptions is the query of a request to the clusters/proxy subresource.
type ClusterProxyOptions struct {
	metav1.TypeMeta `json:",inline"`

	// Path is the path on the member's API server the request goes to.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
}
