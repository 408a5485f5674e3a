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
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Work holds the final manifests, overrides applied, that fed applies to one
// member cluster for one binding. fed names it <binding>-<cluster>; users
// normally only read it.
type Work struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the manifests to apply.
	Spec WorkSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the state of the manifests in the member cluster.
	// +optional
	Status WorkStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// WorkSpec is the desired state of a Work.
type WorkSpec struct {
	// Workload holds the manifests to apply.
	// +optional
	Workload WorkloadTemplate `json:"workload,omitempty" protobuf:"bytes,1,opt,name=workload"`

	// SuspendDispatching, when true, stops applying the manifests to the
	// cluster; what is there stays as it is.
	// +optional
	SuspendDispatching *bool `json:"suspendDispatching,omitempty" protobuf:"varint,2,opt,name=suspendDispatching"`

	// PreserveResourcesOnDeletion keeps the objects in the cluster when the
	// Work is deleted.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty" protobuf:"varint,3,opt,name=preserveResourcesOnDeletion"`
}

// WorkloadTemplate is the list of manifests of a Work.
type WorkloadTemplate struct {
	// Manifests are complete Kubernetes objects (apiVersion, kind, metadata
	// and the rest) to apply to the cluster.
	// +optional
	// +listType=atomic
	Manifests []runtime.RawExtension `json:"manifests,omitempty" protobuf:"bytes,1,rep,name=manifests"`
}

// Condition types of Works.
const (
	// WorkConditionApplied is True once every manifest was applied.
	WorkConditionApplied = "Applied"
	// WorkConditionAvailable is True while every applied object is healthy.
	WorkConditionAvailable = "Available"
)

// WorkStatus is the observed state of a Work.
type WorkStatus struct {
	// Conditions are the latest observations of the Work: Applied and
	// Available.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`

	// ManifestStatuses is the state of each applied object in the cluster.
	// +optional
	// +listType=atomic
	ManifestStatuses []ManifestStatus `json:"manifestStatuses,omitempty" protobuf:"bytes,2,rep,name=manifestStatuses"`
}

// ManifestStatus is the state of one applied object.
type ManifestStatus struct {
	// Identifier says which manifest, and which object in the cluster, this is.
	Identifier ResourceIdentifier `json:"identifier" protobuf:"bytes,1,opt,name=identifier"`
	// Status is the status of the object, as the member reports it.
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// Health is Healthy, Unhealthy or Unknown.
	// +optional
	Health ResourceHealth `json:"health,omitempty" protobuf:"bytes,3,opt,name=health,casttype=ResourceHealth"`
	// AppliedVersion is the object's generation (its resourceVersion, for kinds without
	// one) right after fed last applied it. A later one means someone else changed it, and
	// fed applies it again; one that is still current lets fed resume after a restart
	// without applying the object again.
	// +optional
	AppliedVersion string `json:"appliedVersion,omitempty" protobuf:"bytes,4,opt,name=appliedVersion"`
}

// ResourceIdentifier identifies a manifest of a Work and the object it became.
type ResourceIdentifier struct {
	// Ordinal is the index of the manifest in spec.workload.manifests.
	Ordinal int32 `json:"ordinal" protobuf:"varint,1,opt,name=ordinal"`
	// Group is the API group of the object; empty for the core group.
	Group string `json:"group" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version of the object.
	Version string `json:"version" protobuf:"bytes,3,opt,name=version"`
	// Kind is the kind of the object.
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// Resource is the plural resource name of the object.
	// +optional
	Resource string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	// Namespace is the namespace of the object; empty for cluster-scoped kinds.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,6,opt,name=namespace"`
	// Name is the name of the object.
	Name string `json:"name" protobuf:"bytes,7,opt,name=name"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkList is a list of Works.
type WorkList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the Works.
	Items []Work `json:"items" protobuf:"bytes,2,rep,name=items"`
}
