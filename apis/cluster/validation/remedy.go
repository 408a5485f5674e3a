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
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/cluster"
)

var (
	supportedRemedyOperators = sets.New(cluster.ClusterConditionEqual, cluster.ClusterConditionNotEqual)
	supportedRemedyActions   = sets.New(cluster.TrafficControl)
	conditionStatuses        = sets.New(string(metav1.ConditionTrue), string(metav1.ConditionFalse), string(metav1.ConditionUnknown))
)

// ValidateRemedy checks a Remedy on create.
func ValidateRemedy(r *cluster.Remedy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&r.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateRemedySpec(&r.Spec, field.NewPath("spec"))...)
}

// ValidateRemedyUpdate checks a Remedy on update.
func ValidateRemedyUpdate(newR, oldR *cluster.Remedy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newR.ObjectMeta, &oldR.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateRemedySpec(&newR.Spec, field.NewPath("spec"))...)
}

func validateRemedySpec(spec *cluster.RemedySpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if a := spec.ClusterAffinity; a != nil {
		for i, name := range a.ClusterNames {
			for _, msg := range ValidateClusterName(name, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("clusterAffinity", "clusterNames").Index(i), name, msg))
			}
		}
	}
	for i, m := range spec.DecisionMatches {
		p := fldPath.Child("decisionMatches").Index(i).Child("clusterConditionMatch")
		r := m.ClusterConditionMatch
		if r == nil {
			allErrs = append(allErrs, field.Required(p, "a decision match says which condition of the cluster to match"))
			continue
		}
		if r.ConditionType == "" {
			allErrs = append(allErrs, field.Required(p.Child("conditionType"), ""))
		} else {
			for _, msg := range validation.IsQualifiedName(r.ConditionType) {
				allErrs = append(allErrs, field.Invalid(p.Child("conditionType"), r.ConditionType, msg))
			}
		}
		if !supportedRemedyOperators.Has(r.Operator) {
			allErrs = append(allErrs, field.NotSupported(p.Child("operator"), r.Operator, sets.List(supportedRemedyOperators)))
		}
		if !conditionStatuses.Has(r.ConditionStatus) {
			allErrs = append(allErrs, field.NotSupported(p.Child("conditionStatus"), r.ConditionStatus, sets.List(conditionStatuses)))
		}
	}
	seen := sets.New[cluster.RemedyAction]()
	for i, a := range spec.Actions {
		p := fldPath.Child("actions").Index(i)
		switch {
		case !supportedRemedyActions.Has(a):
			allErrs = append(allErrs, field.NotSupported(p, a, sets.List(supportedRemedyActions)))
		case seen.Has(a):
			allErrs = append(allErrs, field.Duplicate(p, a))
		}
		seen.Insert(a)
	}
	return allErrs
}
