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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
)

var supportedRebalanceResults = sets.New(federation.RebalanceSuccessful, federation.RebalanceFailed)

// ValidateWorkloadRebalancer checks a WorkloadRebalancer on create.
func ValidateWorkloadRebalancer(r *federation.WorkloadRebalancer) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&r.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateWorkloadRebalancerSpec(&r.Spec, field.NewPath("spec"))...)
}

// ValidateWorkloadRebalancerUpdate checks a WorkloadRebalancer on update.
func ValidateWorkloadRebalancerUpdate(newR, oldR *federation.WorkloadRebalancer) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newR.ObjectMeta, &oldR.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateWorkloadRebalancerSpec(&newR.Spec, field.NewPath("spec"))...)
}

// ValidateWorkloadRebalancerStatus checks the status a controller writes.
func ValidateWorkloadRebalancerStatus(st *federation.WorkloadRebalancerStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, o := range st.ObservedWorkloads {
		idxPath := fldPath.Child("observedWorkloads").Index(i)
		allErrs = append(allErrs, validateWorkloadReference(&o.Workload, idxPath.Child("workload"))...)
		allErrs = append(allErrs, validateEnum(o.Result, supportedRebalanceResults, false, idxPath.Child("result"))...)
	}
	return append(allErrs, validateNonnegative(st.ObservedGeneration, fldPath.Child("observedGeneration"))...)
}

func validateWorkloadRebalancerSpec(spec *federation.WorkloadRebalancerSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	wPath := fldPath.Child("workloads")
	if len(spec.Workloads) == 0 {
		allErrs = append(allErrs, field.Required(wPath, "at least one workload to schedule afresh"))
	}
	seen := sets.New[federation.WorkloadReference]()
	for i := range spec.Workloads {
		w := spec.Workloads[i]
		allErrs = append(allErrs, validateWorkloadReference(&w, wPath.Index(i))...)
		if seen.Has(w) {
			allErrs = append(allErrs, field.Duplicate(wPath.Index(i), w.Namespace+"/"+w.Name))
		}
		seen.Insert(w)
	}
	if spec.TTLSecondsAfterFinished != nil {
		allErrs = append(allErrs, validateNonnegative(int64(*spec.TTLSecondsAfterFinished), fldPath.Child("ttlSecondsAfterFinished"))...)
	}
	return allErrs
}

func validateWorkloadReference(w *federation.WorkloadReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if w.APIVersion == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiVersion"), ""))
	} else if _, err := schema.ParseGroupVersion(w.APIVersion); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), w.APIVersion, err.Error()))
	}
	if w.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	if w.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(w.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), w.Name, msg))
		}
	}
	if w.Namespace != "" {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(w.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), w.Namespace, msg))
		}
	}
	return allErrs
}

// ValidateWorkloadRebalancerStatusUpdate checks a WorkloadRebalancer's status write.
func ValidateWorkloadRebalancerStatusUpdate(newR, oldR *federation.WorkloadRebalancer) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newR.ObjectMeta, &oldR.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateWorkloadRebalancerStatus(&newR.Status, field.NewPath("status"))...)
}
