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
	"encoding/json"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
)

// ValidateWork checks a Work on create.
func ValidateWork(w *federation.Work) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&w.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateWorkSpec(&w.Spec, field.NewPath("spec"))...)
}

// ValidateWorkUpdate checks a Work on update.
func ValidateWorkUpdate(newW, oldW *federation.Work) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newW.ObjectMeta, &oldW.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateWorkSpec(&newW.Spec, field.NewPath("spec"))...)
}

// ValidateWorkStatusUpdate checks a write to the status subresource.
func ValidateWorkStatusUpdate(newW, oldW *federation.Work) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newW.ObjectMeta, &oldW.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateWorkStatus(&newW.Status, len(newW.Spec.Workload.Manifests), field.NewPath("status"))...)
}

// ValidateWorkSpec checks that every manifest is a Kubernetes object with an
// apiVersion, a kind and a name.
func ValidateWorkSpec(spec *federation.WorkSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := range spec.Workload.Manifests {
		allErrs = append(allErrs, validateManifest(&spec.Workload.Manifests[i], fldPath.Child("workload", "manifests").Index(i))...)
	}
	return allErrs
}

// manifestHeader is the part of a manifest every object must have.
type manifestHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func validateManifest(m *runtime.RawExtension, fldPath *field.Path) field.ErrorList {
	if m.Object != nil {
		return nil
	}
	if len(m.Raw) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var h manifestHeader
	if err := json.Unmarshal(m.Raw, &h); err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", "must be a JSON object: "+err.Error())}
	}
	allErrs := ValidateAPIVersion(h.APIVersion, fldPath.Child("apiVersion"))
	if h.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	if h.Metadata.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("metadata", "name"), ""))
	}
	return allErrs
}

// ValidateWorkStatus checks the status of a Work with the given number of
// manifests.
func ValidateWorkStatus(status *federation.WorkStatus, manifests int, fldPath *field.Path) field.ErrorList {
	allErrs := validateConditions(status.Conditions, fldPath.Child("conditions"))
	for i, ms := range status.ManifestStatuses {
		idxPath := fldPath.Child("manifestStatuses").Index(i)
		id, idPath := ms.Identifier, idxPath.Child("identifier")
		if id.Ordinal < 0 || int(id.Ordinal) >= manifests {
			allErrs = append(allErrs, field.Invalid(idPath.Child("ordinal"), id.Ordinal, "must be the index of a manifest in spec.workload.manifests"))
		}
		if id.Version == "" {
			allErrs = append(allErrs, field.Required(idPath.Child("version"), ""))
		}
		if id.Kind == "" {
			allErrs = append(allErrs, field.Required(idPath.Child("kind"), ""))
		}
		if id.Name == "" {
			allErrs = append(allErrs, field.Required(idPath.Child("name"), ""))
		}
		allErrs = append(allErrs, validateEnum(ms.Health, supportedHealth, false, idxPath.Child("health"))...)
	}
	return allErrs
}
