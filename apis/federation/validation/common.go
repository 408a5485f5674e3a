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

// Package validation checks federation.fedhq.io objects before they are
// stored. Every function reports all problems it finds, each at the path of
// the offending field.
package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clustervalidation "github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apis/federation"
)

var (
	fieldSelectorKeys      = sets.New(federation.ProviderField, federation.RegionField, federation.ZoneField)
	fieldSelectorOperators = sets.New(corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn,
		corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist)
)

// validateEnum reports an empty value as missing when required, and any
// other value outside supported as not supported.
func validateEnum[T ~string](value T, supported sets.Set[T], required bool, fldPath *field.Path) field.ErrorList {
	switch {
	case value == "":
		if required {
			return field.ErrorList{field.Required(fldPath, "")}
		}
	case !supported.Has(value):
		return field.ErrorList{field.NotSupported(fldPath, value, sets.List(supported))}
	}
	return nil
}

func validateNonnegative(value int64, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(value, fldPath)
}

func validateLabelSelector(sel *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, fldPath)
}

// validateJSONPointer checks a path that must be a JSON pointer.
func validateJSONPointer(path string, fldPath *field.Path) field.ErrorList {
	switch {
	case path == "":
		return field.ErrorList{field.Required(fldPath, "")}
	case !strings.HasPrefix(path, "/"):
		return field.ErrorList{field.Invalid(fldPath, path, "must be a JSON pointer starting with /")}
	}
	return nil
}

// validateClusterNames checks a list of cluster names: each a valid name,
// none repeated.
func validateClusterNames(names []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, name := range names {
		allErrs = append(allErrs, validateClusterName(name, fldPath.Index(i))...)
		if seen.Has(name) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), name))
		}
		seen.Insert(name)
	}
	return allErrs
}

func validateClusterName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	for _, msg := range clustervalidation.ValidateClusterName(name, false) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validateResourceSelectors checks the selectors of a policy. namespace is
// the policy's namespace, empty for cluster-scoped policies.
func validateResourceSelectors(selectors []federation.ResourceSelector, namespace string, required bool, fldPath *field.Path) field.ErrorList {
	if required && len(selectors) == 0 {
		return field.ErrorList{field.Required(fldPath, "at least one resource selector is required")}
	}
	var allErrs field.ErrorList
	for i := range selectors {
		allErrs = append(allErrs, validateResourceSelector(&selectors[i], namespace, fldPath.Index(i))...)
	}
	return allErrs
}

func validateResourceSelector(rs *federation.ResourceSelector, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := ValidateAPIVersion(rs.APIVersion, fldPath.Child("apiVersion"))
	if rs.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	switch {
	case namespace != "" && rs.Namespace != "" && rs.Namespace != namespace:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), rs.Namespace,
			"must be empty or the policy's own namespace "+namespace))
	case rs.Namespace != "":
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(rs.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), rs.Namespace, msg))
		}
	}
	if rs.LabelSelector != nil {
		allErrs = append(allErrs, validateLabelSelector(rs.LabelSelector, fldPath.Child("labelSelector"))...)
	}
	return allErrs
}

// ValidateAPIVersion checks the apiVersion of a reference to a kind: a group
// version such as apps/v1, or v1 for the core group.
func ValidateAPIVersion(apiVersion string, fldPath *field.Path) field.ErrorList {
	if apiVersion == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if gv, err := schema.ParseGroupVersion(apiVersion); err != nil || gv.Version == "" {
		return field.ErrorList{field.Invalid(fldPath, apiVersion, "must be a group version such as apps/v1 or v1")}
	}
	return nil
}

// ValidateClusterAffinity checks a cluster selection.
func ValidateClusterAffinity(aff *federation.ClusterAffinity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if aff.LabelSelector != nil {
		allErrs = append(allErrs, validateLabelSelector(aff.LabelSelector, fldPath.Child("labelSelector"))...)
	}
	if aff.FieldSelector != nil {
		allErrs = append(allErrs, validateFieldSelector(aff.FieldSelector, fldPath.Child("fieldSelector"))...)
	}
	allErrs = append(allErrs, validateClusterNames(aff.ClusterNames, fldPath.Child("clusterNames"))...)
	return append(allErrs, validateClusterNames(aff.ExcludeClusters, fldPath.Child("exclude"))...)
}

func validateFieldSelector(fs *federation.FieldSelector, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, req := range fs.MatchExpressions {
		idxPath := fldPath.Child("matchExpressions").Index(i)
		allErrs = append(allErrs, validateEnum(req.Key, fieldSelectorKeys, true, idxPath.Child("key"))...)
		allErrs = append(allErrs, validateEnum(req.Operator, fieldSelectorOperators, true, idxPath.Child("operator"))...)
		switch req.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(req.Values) == 0 {
				allErrs = append(allErrs, field.Required(idxPath.Child("values"), "must be specified for In and NotIn"))
			}
		case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
			if len(req.Values) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("values"), "must be empty for Exists and DoesNotExist"))
			}
		}
	}
	return allErrs
}

func validateSuspension(s *federation.Suspension, fldPath *field.Path) field.ErrorList {
	if s == nil || s.DispatchingOnClusters == nil {
		return nil
	}
	return validateClusterNames(s.DispatchingOnClusters.ClusterNames, fldPath.Child("dispatchingOnClusters", "clusterNames"))
}
