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
	"fmt"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// ValidateReplicaSchedulingPolicy checks a ReplicaSchedulingPolicy on create.
func ValidateReplicaSchedulingPolicy(p *federation.ReplicaSchedulingPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateReplicaSchedulingPolicySpec(&p.Spec, field.NewPath("spec"))...)
}

// ValidateReplicaSchedulingPolicyUpdate checks a ReplicaSchedulingPolicy on
// update. Every field of the spec may change.
func ValidateReplicaSchedulingPolicyUpdate(newP, oldP *federation.ReplicaSchedulingPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateReplicaSchedulingPolicySpec(&newP.Spec, field.NewPath("spec"))...)
}

// ValidateReplicaSchedulingPolicyStatusUpdate checks a write to the status
// subresource.
func ValidateReplicaSchedulingPolicyStatusUpdate(newP, oldP *federation.ReplicaSchedulingPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateReplicaSchedulingPolicyStatus(&newP.Status, field.NewPath("status"))...)
}

// ValidateReplicaSchedulingPolicySpec checks the selectors, as a
// ClusterPropagationPolicy's but optional, and the reschedule policy: present,
// an interval of at least MinRebalanceInterval, thresholds from 1 to 100, and
// at least one threshold when enabled.
func ValidateReplicaSchedulingPolicySpec(spec *federation.ReplicaSchedulingPolicySpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceSelectors(spec.ResourceSelectors, "", false, fldPath.Child("resourceSelectors"))
	rpPath := fldPath.Child("reschedulePolicy")
	rp := spec.ReschedulePolicy
	if rp == nil {
		return append(allErrs, field.Required(rpPath, ""))
	}
	if rp.Interval != nil && rp.Interval.Duration < federationv1alpha1.MinRebalanceInterval {
		allErrs = append(allErrs, field.Invalid(rpPath.Child("interval"), rp.Interval.Duration.String(),
			fmt.Sprintf("must be at least %s", federationv1alpha1.MinRebalanceInterval)))
	}
	thresholdPath := rpPath.Child("threshold")
	t := rp.Threshold
	if t == nil || (t.CPUUtilization == nil && t.MemoryUtilization == nil) {
		if rp.Enabled {
			allErrs = append(allErrs, field.Required(thresholdPath, "at least one of cpuUtilization and memoryUtilization is required when enabled"))
		}
		return allErrs
	}
	allErrs = append(allErrs, validatePercentage(t.CPUUtilization, thresholdPath.Child("cpuUtilization"))...)
	return append(allErrs, validatePercentage(t.MemoryUtilization, thresholdPath.Child("memoryUtilization"))...)
}

// validatePercentage checks an optional percentage: from 1 to 100 when set.
func validatePercentage(value *int32, fldPath *field.Path) field.ErrorList {
	if value != nil && (*value < 1 || *value > 100) {
		return field.ErrorList{field.Invalid(fldPath, *value, "must be from 1 to 100")}
	}
	return nil
}

// ValidateReplicaSchedulingPolicyStatus checks the conditions and the moves
// of a ReplicaSchedulingPolicy: at most MaxReplicaMoves, each with a time, a
// template, two different valid clusters and at least one replica.
func ValidateReplicaSchedulingPolicyStatus(status *federation.ReplicaSchedulingPolicyStatus, fldPath *field.Path) field.ErrorList {
	allErrs := validateConditions(status.Conditions, fldPath.Child("conditions"))
	movesPath := fldPath.Child("moves")
	if len(status.Moves) > federationv1alpha1.MaxReplicaMoves {
		allErrs = append(allErrs, field.TooMany(movesPath, len(status.Moves), federationv1alpha1.MaxReplicaMoves))
	}
	for i := range status.Moves {
		allErrs = append(allErrs, validateReplicaMove(&status.Moves[i], movesPath.Index(i))...)
	}
	return allErrs
}

func validateReplicaMove(m *federation.ReplicaMove, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if m.Time.IsZero() {
		allErrs = append(allErrs, field.Required(fldPath.Child("time"), ""))
	}
	allErrs = append(allErrs, validateTemplateReference(&m.Template, fldPath.Child("template"))...)
	allErrs = append(allErrs, validateClusterName(m.FromCluster, fldPath.Child("fromCluster"))...)
	allErrs = append(allErrs, validateClusterName(m.ToCluster, fldPath.Child("toCluster"))...)
	if m.ToCluster != "" && m.ToCluster == m.FromCluster {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("toCluster"), m.ToCluster, "must differ from fromCluster"))
	}
	if m.Replicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), m.Replicas, "must be at least 1"))
	}
	return allErrs
}

// validateTemplateReference checks a reference to a template of any scope:
// apiVersion, kind and name, and a valid namespace when there is one.
func validateTemplateReference(ref *federation.ObjectReference, fldPath *field.Path) field.ErrorList {
	allErrs := ValidateAPIVersion(ref.APIVersion, fldPath.Child("apiVersion"))
	if ref.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	if ref.Namespace != "" {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(ref.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), ref.Namespace, msg))
		}
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	return allErrs
}
