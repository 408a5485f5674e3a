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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Work holds the final manifests, overrides applied, that fed applies to one
// member cluster for one binding. fed names it <binding>-<cluster>; users
// normally only read it.
type Work struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the manifests to apply.
	Spec WorkSpec

	// Status is the state of the manifests in the member cluster.
	Status WorkStatus
}

// WorkSpec is the desired state of a Work.
type WorkSpec struct {
	// Workload holds the manifests to apply.
	Workload WorkloadTemplate

	// SuspendDispatching, when true, stops applying the manifests to the
	// cluster; what is there stays as it is.
	SuspendDispatching *bool

	// PreserveResourcesOnDeletion keeps the objects in the cluster when the
	// Work is deleted.
	PreserveResourcesOnDeletion *bool
}

// WorkloadTemplate is the list of manifests of a Work.
type WorkloadTemplate struct {
	// Manifests are complete Kubernetes objects (apiVersion, kind, metadata
	// and the rest) to apply to the cluster.
	Manifests []runtime.RawExtension
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
	Conditions []metav1.Condition

	// ManifestStatuses is the state of each applied object in the cluster.
	ManifestStatuses []ManifestStatus
}

// ManifestStatus is the state of one applied object.
type ManifestStatus struct {
	// Identifier says which manifest, and which object in the cluster, this is.
	Identifier ResourceIdentifier
	// Status is the status of the object, as the member reports it.
	Status *runtime.RawExtension
	// Health is Healthy, Unhealthy or Unknown.
	Health ResourceHealth
	// AppliedVersion is the object's generation (resourceVersion, for kinds without one)
	// right after fed last applied it.
	AppliedVersion string
}

// ResourceIdentifier identifies a manifest of a Work and the object it became.
type ResourceIdentifier struct {
	// Ordinal is the index of the manifest in spec.workload.manifests.
	Ordinal int32
	// Group is the API group of the object; empty for the core group.
	Group string
	// Version is the API version of the object.
	Version string
	// Kind is the kind of the object.
	Kind string
	// Resource is the plural resource name of the object.
	Resource string
	// Namespace is the namespace of the object; empty for cluster-scoped kinds.
	Namespace string
	// Name is the name of the object.
	Name string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkList is a list of Works.
type WorkList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the Works.
	Items []Work
}
