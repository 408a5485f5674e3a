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
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation"
)

var (
	supportedMatchOps      = sets.New(federation.MatchConditionOpIn, federation.MatchConditionOpNotIn)
	supportedConditionVals = sets.New(metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown)
	// A cluster's taints that fed's scheduler acts on.
	supportedPolicyTaintEffects = sets.New(corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
	// The health taints follow the Ready condition, written by the cluster controller
	// alone.
	healthTaintKeys = sets.New(clusterv1alpha1.TaintClusterNotReady, clusterv1alpha1.TaintClusterUnreachable)
)

// ValidateClusterTaintPolicy checks a ClusterTaintPolicy on create.
func ValidateClusterTaintPolicy(p *federation.ClusterTaintPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateClusterTaintPolicySpec(&p.Spec, field.NewPath("spec"))...)
}

// ValidateClusterTaintPolicyUpdate checks a ClusterTaintPolicy on update.
func ValidateClusterTaintPolicyUpdate(newP, oldP *federation.ClusterTaintPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateClusterTaintPolicySpec(&newP.Spec, field.NewPath("spec"))...)
}

func validateClusterTaintPolicySpec(spec *federation.ClusterTaintPolicySpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.TargetClusters != nil {
		allErrs = append(allErrs, ValidateClusterAffinity(spec.TargetClusters, fldPath.Child("targetClusters"))...)
	}
	allErrs = append(allErrs, validateMatchConditions(spec.AddOnConditions, fldPath.Child("addOnConditions"))...)
	allErrs = append(allErrs, validateMatchConditions(spec.RemoveOnConditions, fldPath.Child("removeOnConditions"))...)
	taintsPath := fldPath.Child("taints")
	if len(spec.Taints) == 0 {
		allErrs = append(allErrs, field.Required(taintsPath, "at least one taint to add and remove"))
	}
	seen := sets.New[string]()
	for i, t := range spec.Taints {
		idxPath := taintsPath.Index(i)
		if t.Key == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("key"), ""))
		} else {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, idxPath.Child("key"))...)
		}
		if healthTaintKeys.Has(t.Key) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("key"), t.Key,
				"is a health taint: fed's cluster controller adds and removes it by the cluster's Ready condition"))
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), t.Value, msg))
		}
		allErrs = append(allErrs, validateEnum(t.Effect, supportedPolicyTaintEffects, true, idxPath.Child("effect"))...)
		if k := t.Key + ":" + string(t.Effect); seen.Has(k) {
			allErrs = append(allErrs, field.Duplicate(idxPath, k))
		} else {
			seen.Insert(k)
		}
	}
	return allErrs
}

func validateMatchConditions(conds []federation.MatchCondition, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, c := range conds {
		idxPath := fldPath.Index(i)
		if c.ConditionType == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("conditionType"), ""))
		} else {
			for _, msg := range validation.IsQualifiedName(c.ConditionType) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("conditionType"), c.ConditionType, msg))
			}
		}
		allErrs = append(allErrs, validateEnum(c.Operator, supportedMatchOps, true, idxPath.Child("operator"))...)
		if len(c.StatusValues) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("statusValues"), "True, False or Unknown"))
		}
		for j, v := range c.StatusValues {
			allErrs = append(allErrs, validateEnum(v, supportedConditionVals, true, idxPath.Child("statusValues").Index(j))...)
		}
	}
	return allErrs
}
