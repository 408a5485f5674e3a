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

package validation

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clustervalidation "github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apis/federation"
)

var supportedHealth = sets.New(federation.ResourceHealthy, federation.ResourceUnhealthy, federation.ResourceUnknown)

// ValidateResourceBinding checks a ResourceBinding on create.
func ValidateResourceBinding(b *federation.ResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&b.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceBindingSpec(&b.Spec, b.Namespace, field.NewPath("spec"))...)
}

// ValidateResourceBindingUpdate checks a ResourceBinding on update: the
// template it binds cannot change.
func ValidateResourceBindingUpdate(newB, oldB *federation.ResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newB.ObjectMeta, &oldB.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateResourceBindingSpec(&newB.Spec, newB.Namespace, field.NewPath("spec"))...)
	return append(allErrs, validateResourceUpdate(&newB.Spec.Resource, &oldB.Spec.Resource, field.NewPath("spec", "resource"))...)
}

// ValidateResourceBindingStatusUpdate checks a write to the status subresource.
func ValidateResourceBindingStatusUpdate(newB, oldB *federation.ResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newB.ObjectMeta, &oldB.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceBindingStatus(&newB.Status, field.NewPath("status"))...)
}

// ValidateClusterResourceBinding checks a ClusterResourceBinding on create.
func ValidateClusterResourceBinding(b *federation.ClusterResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&b.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceBindingSpec(&b.Spec, "", field.NewPath("spec"))...)
}

// ValidateClusterResourceBindingUpdate checks a ClusterResourceBinding on
// update: the template it binds cannot change.
func ValidateClusterResourceBindingUpdate(newB, oldB *federation.ClusterResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newB.ObjectMeta, &oldB.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateResourceBindingSpec(&newB.Spec, "", field.NewPath("spec"))...)
	return append(allErrs, validateResourceUpdate(&newB.Spec.Resource, &oldB.Spec.Resource, field.NewPath("spec", "resource"))...)
}

// ValidateClusterResourceBindingStatusUpdate checks a write to the status subresource.
func ValidateClusterResourceBindingStatusUpdate(newB, oldB *federation.ClusterResourceBinding) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newB.ObjectMeta, &oldB.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceBindingStatus(&newB.Status, field.NewPath("status"))...)
}

// ValidateResourceBindingSpec checks the spec of a binding; namespace is the
// binding's namespace, empty for a ClusterResourceBinding, whose template
// must be cluster-scoped.
func ValidateResourceBindingSpec(spec *federation.ResourceBindingSpec, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := validateObjectReference(&spec.Resource, namespace, fldPath.Child("resource"))
	allErrs = append(allErrs, validateNonnegative(int64(spec.Replicas), fldPath.Child("replicas"))...)
	allErrs = append(allErrs, validateReplicaRequirements(spec.ReplicaRequirements, fldPath.Child("replicaRequirements"))...)
	allErrs = append(allErrs, ValidateComponents(spec.Components, fldPath.Child("components"))...)
	if len(spec.Components) > 0 {
		if spec.Replicas != 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("replicas"), "a binding with components has none: each component has its own"))
		}
		if spec.ReplicaRequirements != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("replicaRequirements"), "a binding with components has none: each component has its own"))
		}
	}
	allErrs = append(allErrs, validateTargetClusters(spec.Clusters, fldPath.Child("clusters"))...)
	if spec.Placement != nil {
		allErrs = append(allErrs, ValidatePlacement(spec.Placement, fldPath.Child("placement"))...)
	}
	for i := range spec.GracefulEvictionTasks {
		allErrs = append(allErrs, validateEvictionTask(&spec.GracefulEvictionTasks[i], fldPath.Child("gracefulEvictionTasks").Index(i))...)
	}
	for i, m := range spec.ReplicaMoves {
		allErrs = append(allErrs, validateMove(m, fldPath.Child("replicaMoves").Index(i))...)
	}
	for i, s := range spec.RequiredBy {
		idxPath := fldPath.Child("requiredBy").Index(i)
		if s.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		}
		allErrs = append(allErrs, validateTargetClusters(s.Clusters, idxPath.Child("clusters"))...)
	}
	if spec.Failover != nil {
		allErrs = append(allErrs, validateFailover(spec.Failover, fldPath.Child("failover"))...)
	}
	allErrs = append(allErrs, validateEnum(spec.ConflictResolution, supportedConflict, true, fldPath.Child("conflictResolution"))...)
	return append(allErrs, validateSuspension(spec.Suspension, fldPath.Child("suspension"))...)
}

func validateReplicaRequirements(rr *federation.ReplicaRequirements, fldPath *field.Path) field.ErrorList {
	if rr == nil {
		return nil
	}
	allErrs := clustervalidation.ValidateResourceList(rr.ResourceRequest, fldPath.Child("resourceRequest"))
	if rr.NodeClaim != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabels(rr.NodeClaim.NodeSelector, fldPath.Child("nodeClaim", "nodeSelector"))...)
	}
	return allErrs
}

// maxComponentName is the longest name of a component, as Karmada's.
const maxComponentName = 32

// ValidateComponents checks the components of a multi-component workload: each named
// with at most 32 characters (any, as Karmada's: its scripts name them Launcher and
// Worker), unique in the workload, with replicas of zero or more and requests of no
// negative quantity.
func ValidateComponents(components []federation.Component, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, c := range components {
		idxPath := fldPath.Index(i)
		switch {
		case c.Name == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), "each component has a name"))
		case len(c.Name) > maxComponentName:
			allErrs = append(allErrs, field.TooLong(idxPath.Child("name"), c.Name, maxComponentName))
		case seen[c.Name]:
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), c.Name))
		}
		seen[c.Name] = true
		allErrs = append(allErrs, validateNonnegative(int64(c.Replicas), idxPath.Child("replicas"))...)
		allErrs = append(allErrs, validateReplicaRequirements(c.ReplicaRequirements, idxPath.Child("replicaRequirements"))...)
	}
	return allErrs
}

func validateObjectReference(ref *federation.ObjectReference, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := ValidateAPIVersion(ref.APIVersion, fldPath.Child("apiVersion"))
	if ref.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	switch {
	case namespace == "" && ref.Namespace != "":
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("namespace"), "a ClusterResourceBinding binds cluster-scoped templates"))
	case namespace != "" && ref.Namespace != "" && ref.Namespace != namespace:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), ref.Namespace, "must be the binding's namespace "+namespace))
	}
	return allErrs
}

func validateResourceUpdate(newRef, oldRef *federation.ObjectReference, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateImmutableField(newRef.Kind, oldRef.Kind, fldPath.Child("kind"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(newRef.Namespace, oldRef.Namespace, fldPath.Child("namespace"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(newRef.Name, oldRef.Name, fldPath.Child("name"))...)
}

func validateTargetClusters(clusters []federation.TargetCluster, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, c := range clusters {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, validateClusterName(c.Name, idxPath.Child("name"))...)
		if seen.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), c.Name))
		}
		seen.Insert(c.Name)
		allErrs = append(allErrs, validateNonnegative(int64(c.Replicas), idxPath.Child("replicas"))...)
	}
	return allErrs
}

func validateEvictionTask(t *federation.GracefulEvictionTask, fldPath *field.Path) field.ErrorList {
	allErrs := validateClusterName(t.FromCluster, fldPath.Child("fromCluster"))
	allErrs = append(allErrs, validateEnum(t.PurgeMode, supportedPurgeModes, false, fldPath.Child("purgeMode"))...)
	if t.Replicas != nil {
		allErrs = append(allErrs, validateNonnegative(int64(*t.Replicas), fldPath.Child("replicas"))...)
	}
	if t.Reason == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("reason"), ""))
	}
	if t.Producer == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("producer"), ""))
	}
	if t.GracePeriodSeconds != nil && *t.GracePeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("gracePeriodSeconds"), *t.GracePeriodSeconds, "must be greater than 0"))
	}
	for i, c := range t.ClustersBeforeFailover {
		allErrs = append(allErrs, validateClusterName(c, fldPath.Child("clustersBeforeFailover").Index(i))...)
	}
	allErrs = append(allErrs, metav1validation.ValidateLabels(t.PreservedLabelState, fldPath.Child("preservedLabelState"))...)
	return allErrs
}

func validateMove(m federation.ReplicaMoveRequest, fldPath *field.Path) field.ErrorList {
	allErrs := validateClusterName(m.FromCluster, fldPath.Child("fromCluster"))
	if m.ToCluster != "" {
		allErrs = append(allErrs, validateClusterName(m.ToCluster, fldPath.Child("toCluster"))...)
		if m.ToCluster == m.FromCluster {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("toCluster"), m.ToCluster, "must differ from fromCluster"))
		}
	}
	if m.Replicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), m.Replicas, "must be greater than 0"))
	}
	if m.Producer == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("producer"), ""))
	}
	return allErrs
}

// ValidateResourceBindingStatus checks the status of a binding.
func ValidateResourceBindingStatus(status *federation.ResourceBindingStatus, fldPath *field.Path) field.ErrorList {
	allErrs := validateNonnegative(status.SchedulerObservedGeneration, fldPath.Child("schedulerObservedGeneration"))
	allErrs = append(allErrs, validateConditions(status.Conditions, fldPath.Child("conditions"))...)
	seen := sets.New[string]()
	for i, item := range status.AggregatedStatus {
		idxPath := fldPath.Child("aggregatedStatus").Index(i)
		allErrs = append(allErrs, validateClusterName(item.ClusterName, idxPath.Child("clusterName"))...)
		if seen.Has(item.ClusterName) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("clusterName"), item.ClusterName))
		}
		seen.Insert(item.ClusterName)
		allErrs = append(allErrs, validateEnum(item.Health, supportedHealth, false, idxPath.Child("health"))...)
	}
	return allErrs
}

func validateConditions(conditions []metav1.Condition, fldPath *field.Path) field.ErrorList {
	return metav1validation.ValidateConditions(conditions, fldPath)
}
