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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PropagationPolicy says which resource templates of its namespace go to
// which member clusters.
type PropagationPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec selects the templates and says where they go.
	Spec PropagationSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterPropagationPolicy says which resource templates, of any namespace or
// cluster-scoped, go to which member clusters. A PropagationPolicy that
// matches the same template takes precedence.
type ClusterPropagationPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec selects the templates and says where they go.
	Spec PropagationSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// PreemptionBehavior says whether a policy may take templates over from
// policies that already claimed them.
// +enum
type PreemptionBehavior string

const (
	// PreemptAlways lets the policy take over templates claimed by a policy of
	// lower priority (or by a ClusterPropagationPolicy, for a
	// PropagationPolicy).
	PreemptAlways PreemptionBehavior = "Always"
	// PreemptNever leaves templates with the policy that claimed them first.
	PreemptNever PreemptionBehavior = "Never"
)

// ActivationPreference says when changes of a policy reach the templates it
// already claimed.
// +enum
type ActivationPreference string

// LazyActivation applies a changed policy to a template it already
// propagates only when the template's generation next moves (a change of
// anything but its metadata and status).
const LazyActivation ActivationPreference = "Lazy"

// PropagationSpec is the content of a PropagationPolicy or a
// ClusterPropagationPolicy.
type PropagationSpec struct {
	// ResourceSelectors pick the templates the policy applies to. At least one
	// is required; a template matched by any selector is claimed.
	// +listType=atomic
	ResourceSelectors []ResourceSelector `json:"resourceSelectors" protobuf:"bytes,1,rep,name=resourceSelectors"`

	// PropagateDeps also propagates what the selected templates depend on
	// (ConfigMaps, Secrets, ServiceAccounts and PersistentVolumeClaims a
	// workload uses) to the same clusters.
	// +optional
	PropagateDeps bool `json:"propagateDeps,omitempty" protobuf:"varint,2,opt,name=propagateDeps"`

	// Placement says which clusters the templates go to and how replicas are
	// shared among them.
	// +optional
	Placement Placement `json:"placement,omitempty" protobuf:"bytes,3,opt,name=placement"`

	// Priority decides between policies that match the same template: the
	// higher one wins; ties go to the policy whose selector names the template
	// most exactly, then to the name that sorts first. Defaults to 0.
	// +optional
	Priority *int32 `json:"priority,omitempty" protobuf:"varint,4,opt,name=priority"`

	// Preemption is Always (take over templates claimed by a policy of the
	// same kind with a lower priority, or, for a PropagationPolicy, by any
	// ClusterPropagationPolicy) or Never. Defaults to Never: a template stays
	// with the policy that claimed it while that policy selects it.
	// +optional
	Preemption PreemptionBehavior `json:"preemption,omitempty" protobuf:"bytes,5,opt,name=preemption,casttype=PreemptionBehavior"`

	// DependentOverrides names override policies that must exist before the
	// policy propagates its templates, so that they never reach a cluster
	// without their overrides: OverridePolicies of the policy's namespace, or
	// ClusterOverridePolicies for a ClusterPropagationPolicy. Until they all
	// exist, the templates stay as they are (unpropagated, or with the
	// policy that had them) and get a DependentOverridesMissing event; one no
	// binding propagates yet also gets a Propagated=False condition in its status
	// (kinds with a status subresource).
	// +optional
	// +listType=atomic
	DependentOverrides []string `json:"dependentOverrides,omitempty" protobuf:"bytes,6,rep,name=dependentOverrides"`

	// SchedulerName is the scheduler that places the templates. Defaults to
	// "default-scheduler", fed's own.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty" protobuf:"bytes,7,opt,name=schedulerName"`

	// Failover says how applications are moved away from clusters where they
	// stopped working. Without it they are not moved.
	// +optional
	Failover *FailoverBehavior `json:"failover,omitempty" protobuf:"bytes,8,opt,name=failover"`

	// ConflictResolution says what to do when a target object already exists
	// in a member and was not created by fed: Abort (leave it and report the
	// conflict) or Overwrite (take it over). Defaults to Abort.
	// +optional
	ConflictResolution ConflictResolution `json:"conflictResolution,omitempty" protobuf:"bytes,9,opt,name=conflictResolution,casttype=ConflictResolution"`

	// ActivationPreference is empty (changes of the policy reach claimed
	// templates at once) or Lazy (only when a template's generation next
	// moves; a template it newly claims is propagated at once).
	// +optional
	ActivationPreference ActivationPreference `json:"activationPreference,omitempty" protobuf:"bytes,10,opt,name=activationPreference,casttype=ActivationPreference"`

	// Suspension pauses propagation of the templates.
	// +optional
	Suspension *Suspension `json:"suspension,omitempty" protobuf:"bytes,11,opt,name=suspension"`

	// PreserveResourcesOnDeletion keeps the objects in the member clusters
	// when the template is deleted from the fleet.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty" protobuf:"varint,12,opt,name=preserveResourcesOnDeletion"`
}

// FailoverBehavior says how applications are moved away from failing
// clusters.
type FailoverBehavior struct {
	// Application moves an application away from a cluster where it stays
	// unhealthy.
	// +optional
	Application *ApplicationFailoverBehavior `json:"application,omitempty" protobuf:"bytes,1,opt,name=application"`

	// ApplicationMigrationPolicy is another name for Application, kept so that
	// manifests written with it work; it is moved into Application on write.
	// +optional
	ApplicationMigrationPolicy *ApplicationFailoverBehavior `json:"applicationMigrationPolicy,omitempty" protobuf:"bytes,2,opt,name=applicationMigrationPolicy"`

	// Cluster says how applications leave a cluster that failed: one with a
	// NoExecute taint the placement does not tolerate (fed taints a cluster
	// that stays not Ready so; see the clusterTolerations of the placement for
	// how long to wait). Without it, they leave Gracefully.
	// +optional
	Cluster *ClusterFailoverBehavior `json:"cluster,omitempty" protobuf:"bytes,3,opt,name=cluster"`
}

// ClusterFailoverBehavior says how applications leave a failed cluster.
type ClusterFailoverBehavior struct {
	// PurgeMode is how the copy on the failed cluster is removed: Directly
	// (at once), Gracefully (once the copies that replace it are healthy, or
	// the grace period is over) or Never (kept until the eviction task is
	// removed from the binding by hand). Defaults to Gracefully. Nothing is
	// removed from a cluster that does not answer until it answers again.
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty" protobuf:"bytes,1,opt,name=purgeMode,casttype=PurgeMode"`

	// GracePeriodSeconds is how long a Gracefully purged copy is kept at most
	// while the new one becomes healthy. Only for Gracefully; defaults to 600.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,2,opt,name=gracePeriodSeconds"`
}

// PurgeMode says how the copy on the cluster being left is removed.
// +enum
type PurgeMode string

const (
	// PurgeDirectly removes the old copy at once, before the new one runs.
	PurgeDirectly PurgeMode = "Directly"
	// PurgeGracefully removes the old copy once the new one is healthy or the
	// grace period is over.
	PurgeGracefully PurgeMode = "Gracefully"
	// PurgeNever keeps the old copy; someone must remove it by hand.
	PurgeNever PurgeMode = "Never"
)

// ApplicationFailoverBehavior says when and how an unhealthy application is
// moved to other clusters.
type ApplicationFailoverBehavior struct {
	// DecisionConditions say when the application counts as failed on a
	// cluster.
	// +optional
	DecisionConditions DecisionConditions `json:"decisionConditions,omitempty" protobuf:"bytes,1,opt,name=decisionConditions"`

	// PurgeMode is how the copy on the failed cluster is removed: Directly,
	// Gracefully or Never. Defaults to Gracefully. The older names Immediately
	// and Graciously are accepted and rewritten.
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty" protobuf:"bytes,2,opt,name=purgeMode,casttype=PurgeMode"`

	// PurgePolicy is another name for PurgeMode, kept so that manifests
	// written with it work; it is moved into PurgeMode on write.
	// +optional
	PurgePolicy PurgeMode `json:"purgePolicy,omitempty" protobuf:"bytes,3,opt,name=purgePolicy,casttype=PurgeMode"`

	// GracePeriodSeconds is how long a Gracefully purged copy is kept at most
	// while the new one becomes healthy. Only for Gracefully; defaults to 600.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=gracePeriodSeconds"`

	// StatePreservation carries state of the failed copy over to the new one.
	// +optional
	StatePreservation *StatePreservation `json:"statePreservation,omitempty" protobuf:"bytes,5,opt,name=statePreservation"`
}

// DecisionConditions say when an application counts as failed on a cluster.
type DecisionConditions struct {
	// TolerationSeconds is how long the application may stay unhealthy on a
	// cluster before it is moved away. Defaults to 300.
	// +optional
	TolerationSeconds *int32 `json:"tolerationSeconds,omitempty" protobuf:"varint,1,opt,name=tolerationSeconds"`
}

// StatePreservation carries state of a failed copy over to its replacement.
type StatePreservation struct {
	// Rules say which values to read from the failed copy.
	// +listType=atomic
	Rules []StatePreservationRule `json:"rules" protobuf:"bytes,1,rep,name=rules"`
}

// StatePreservationRule reads one value from the status of the failed copy
// and passes it to the new copy as a label.
type StatePreservationRule struct {
	// AliasLabelName is the label the value is passed in on the new copy.
	AliasLabelName string `json:"aliasLabelName" protobuf:"bytes,1,opt,name=aliasLabelName"`

	// JSONPath is the JSONPath, relative to the failed copy's status, of the
	// value to keep, for example "{ .replicas }".
	JSONPath string `json:"jsonPath" protobuf:"bytes,2,opt,name=jsonPath"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PropagationPolicyList is a list of PropagationPolicies.
type PropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the policies.
	Items []PropagationPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterPropagationPolicyList is a list of ClusterPropagationPolicies.
type ClusterPropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the policies.
	Items []ClusterPropagationPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
