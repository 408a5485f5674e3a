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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// OverridePolicy changes resource templates of its namespace for particular
// member clusters as they are propagated there.
type OverridePolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec selects the templates and says how they change per cluster.
	Spec OverrideSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterOverridePolicy changes resource templates of any namespace, or
// cluster-scoped ones, for particular member clusters. Its overrides are
// applied before those of OverridePolicies.
type ClusterOverridePolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec selects the templates and says how they change per cluster.
	Spec OverrideSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// OverrideSpec is the content of an OverridePolicy or ClusterOverridePolicy.
type OverrideSpec struct {
	// ResourceSelectors pick the templates the policy applies to. Empty
	// applies it to every template in its scope.
	// +optional
	// +listType=atomic
	ResourceSelectors []ResourceSelector `json:"resourceSelectors,omitempty" protobuf:"bytes,1,rep,name=resourceSelectors"`

	// OverrideRules are applied in order to the copy of each selected template
	// that goes to a matching cluster.
	// +optional
	// +listType=atomic
	OverrideRules []RuleWithCluster `json:"overrideRules,omitempty" protobuf:"bytes,2,rep,name=overrideRules"`
}

// RuleWithCluster is a set of overriders for some clusters.
type RuleWithCluster struct {
	// TargetCluster selects the clusters the overriders apply to. Unset means
	// every cluster.
	// +optional
	TargetCluster *ClusterAffinity `json:"targetCluster,omitempty" protobuf:"bytes,1,opt,name=targetCluster"`

	// Overriders are the changes to make. Kinds of overriders run in this
	// order: imageOverrider, commandOverrider, argsOverrider, labelsOverrider,
	// annotationsOverrider, replicasOverrider, resourcesOverrider,
	// fieldOverrider, plaintext; entries of one kind run in list order.
	Overriders Overriders `json:"overriders" protobuf:"bytes,2,opt,name=overriders"`
}

// Overriders are the changes one rule makes to a template.
type Overriders struct {
	// Plaintext patches any field, like a JSON patch.
	// +optional
	// +listType=atomic
	Plaintext []PlaintextOverrider `json:"plaintext,omitempty" protobuf:"bytes,1,rep,name=plaintext"`

	// ImageOverrider changes parts of container images.
	// +optional
	// +listType=atomic
	ImageOverrider []ImageOverrider `json:"imageOverrider,omitempty" protobuf:"bytes,2,rep,name=imageOverrider"`

	// CommandOverrider changes the command of containers.
	// +optional
	// +listType=atomic
	CommandOverrider []CommandArgsOverrider `json:"commandOverrider,omitempty" protobuf:"bytes,3,rep,name=commandOverrider"`

	// ArgsOverrider changes the arguments of containers.
	// +optional
	// +listType=atomic
	ArgsOverrider []CommandArgsOverrider `json:"argsOverrider,omitempty" protobuf:"bytes,4,rep,name=argsOverrider"`

	// LabelsOverrider changes the labels of the object.
	// +optional
	// +listType=atomic
	LabelsOverrider []LabelAnnotationOverrider `json:"labelsOverrider,omitempty" protobuf:"bytes,5,rep,name=labelsOverrider"`

	// AnnotationsOverrider changes the annotations of the object.
	// +optional
	// +listType=atomic
	AnnotationsOverrider []LabelAnnotationOverrider `json:"annotationsOverrider,omitempty" protobuf:"bytes,6,rep,name=annotationsOverrider"`

	// FieldOverrider patches fields that hold embedded JSON or YAML documents,
	// such as a key of a ConfigMap.
	// +optional
	// +listType=atomic
	FieldOverrider []FieldOverrider `json:"fieldOverrider,omitempty" protobuf:"bytes,7,rep,name=fieldOverrider"`

	// ReplicasOverrider sets the replica count of the workload in the target
	// clusters, after the scheduler divided the replicas. At most one entry.
	// +optional
	// +listType=atomic
	ReplicasOverrider []ReplicasOverrider `json:"replicasOverrider,omitempty" protobuf:"bytes,8,rep,name=replicasOverrider"`

	// ResourcesOverrider sets the resource requests and limits of containers.
	// +optional
	// +listType=atomic
	ResourcesOverrider []ResourcesOverrider `json:"resourcesOverrider,omitempty" protobuf:"bytes,9,rep,name=resourcesOverrider"`
}

// OverriderOperator is the operation an overrider performs. Each overrider
// accepts only some of them, so the type is not published as one enum.
type OverriderOperator string

const (
	// OverriderOpAdd adds the value; an existing value is replaced.
	OverriderOpAdd OverriderOperator = "add"
	// OverriderOpAddIfAbsent adds the value only where none exists yet.
	OverriderOpAddIfAbsent OverriderOperator = "addIfAbsent"
	// OverriderOpRemove removes the value.
	OverriderOpRemove OverriderOperator = "remove"
	// OverriderOpReplace replaces an existing value.
	OverriderOpReplace OverriderOperator = "replace"
)

// PlaintextOverrider is one JSON-patch-like operation on the object.
type PlaintextOverrider struct {
	// Path is the JSON pointer of the field, for example "/spec/replicas".
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`

	// Operator is add, remove or replace.
	Operator OverriderOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=OverriderOperator"`

	// Value is the new value for add and replace; any JSON value. Must be
	// empty for remove.
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
}

// ImageComponent is a part of an image reference
// [registry/]repository[:tag|@digest].
// +enum
type ImageComponent string

const (
	// ImageRegistry is the registry host, for example "registry.k8s.io".
	ImageRegistry ImageComponent = "Registry"
	// ImageRepository is the repository, for example "pause".
	ImageRepository ImageComponent = "Repository"
	// ImageTag is the tag or digest, for example "3.9".
	ImageTag ImageComponent = "Tag"
)

// ImageOverrider changes one part of container images.
type ImageOverrider struct {
	// Predicate picks the image field to change. Unset means the images of
	// all containers of a Pod, or of the pod template of a Deployment,
	// ReplicaSet, StatefulSet, DaemonSet or Job.
	// +optional
	Predicate *ImagePredicate `json:"predicate,omitempty" protobuf:"bytes,1,opt,name=predicate"`

	// Component is the part of the image to change: Registry, Repository or
	// Tag (a tag or a digest).
	Component ImageComponent `json:"component" protobuf:"bytes,2,opt,name=component,casttype=ImageComponent"`

	// Operator is add, remove or replace.
	Operator OverriderOperator `json:"operator" protobuf:"bytes,3,opt,name=operator,casttype=OverriderOperator"`

	// Value is the new part for add and replace.
	// +optional
	Value string `json:"value,omitempty" protobuf:"bytes,4,opt,name=value"`
}

// ImagePredicate picks one image field.
type ImagePredicate struct {
	// Path is the JSON pointer of the image field, for example
	// "/spec/template/spec/containers/0/image".
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
}

// CommandArgsOverrider changes the command or arguments of one container.
type CommandArgsOverrider struct {
	// ContainerName is the name of the container.
	ContainerName string `json:"containerName" protobuf:"bytes,1,opt,name=containerName"`

	// Operator is add (append the values) or remove (drop the values).
	Operator OverriderOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=OverriderOperator"`

	// Value are the entries to append or drop.
	// +optional
	// +listType=atomic
	Value []string `json:"value,omitempty" protobuf:"bytes,3,rep,name=value"`
}

// LabelAnnotationOverrider changes labels or annotations of the object.
type LabelAnnotationOverrider struct {
	// Operator is addIfAbsent (add keys that are missing), add (add or
	// overwrite), remove (drop the keys) or replace (overwrite keys that
	// exist).
	Operator OverriderOperator `json:"operator" protobuf:"bytes,1,opt,name=operator,casttype=OverriderOperator"`

	// Value are the keys and values; for remove only the keys matter.
	// +optional
	Value map[string]string `json:"value,omitempty" protobuf:"bytes,2,rep,name=value"`
}

// FieldOverrider patches a field whose value is a JSON or YAML document held
// as a string.
type FieldOverrider struct {
	// FieldPath is the JSON pointer of the string field, for example
	// "/data/config.yaml".
	FieldPath string `json:"fieldPath" protobuf:"bytes,1,opt,name=fieldPath"`

	// JSON patches the field as a JSON document. Exactly one of JSON and YAML
	// is set.
	// +optional
	// +listType=atomic
	JSON []JSONPatchOperation `json:"json,omitempty" protobuf:"bytes,2,rep,name=json"`

	// YAML patches the field as a YAML document. Exactly one of JSON and YAML
	// is set.
	// +optional
	// +listType=atomic
	YAML []YAMLPatchOperation `json:"yaml,omitempty" protobuf:"bytes,3,rep,name=yaml"`
}

// JSONPatchOperation is one operation on an embedded JSON document.
type JSONPatchOperation struct {
	// SubPath is the JSON pointer inside the document, for example "/db/port".
	SubPath string `json:"subPath" protobuf:"bytes,1,opt,name=subPath"`

	// Operator is add, remove or replace.
	Operator OverriderOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=OverriderOperator"`

	// Value is the new value for add and replace; must be empty for remove.
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
}

// YAMLPatchOperation is one operation on an embedded YAML document.
type YAMLPatchOperation struct {
	// SubPath is the JSON pointer inside the document, for example "/db/port".
	SubPath string `json:"subPath" protobuf:"bytes,1,opt,name=subPath"`

	// Operator is add, remove or replace.
	Operator OverriderOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=OverriderOperator"`

	// Value is the new value for add and replace; must be empty for remove.
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
}

// ReplicasOverrider sets the replica count of a workload.
type ReplicasOverrider struct {
	// Value is the replica count, spec.replicas for built-in workloads.
	Value int32 `json:"value" protobuf:"varint,1,opt,name=value"`
}

// ResourcesOverrider sets the compute resources of one container.
type ResourcesOverrider struct {
	// ContainerName is the name of the container.
	ContainerName string `json:"containerName" protobuf:"bytes,1,opt,name=containerName"`

	// Value holds the requests and limits to set. Each resource named here
	// replaces the container's entry for it; resources not named are kept.
	Value corev1.ResourceRequirements `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// OverridePolicyList is a list of OverridePolicies.
type OverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the policies.
	Items []OverridePolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterOverridePolicyList is a list of ClusterOverridePolicies.
type ClusterOverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the policies.
	Items []ClusterOverridePolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
