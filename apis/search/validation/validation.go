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

// Package validation checks search.fedhq.io objects before they are stored.
// Every function reports all problems it finds, each at the path of the
// offending field.
package validation

import (
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clustervalidation "github.com/fedhq/fed/apis/cluster/validation"
	federationvalidation "github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apis/search"
)

// ValidateResourceRegistry checks a ResourceRegistry on create.
func ValidateResourceRegistry(r *search.ResourceRegistry) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&r.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceRegistrySpec(&r.Spec, field.NewPath("spec"))...)
}

// ValidateResourceRegistryUpdate checks a ResourceRegistry on update. Every
// field of the spec may change: the cache then follows the new selection.
func ValidateResourceRegistryUpdate(newR, oldR *search.ResourceRegistry) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newR.ObjectMeta, &oldR.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceRegistrySpec(&newR.Spec, field.NewPath("spec"))...)
}

// ValidateResourceRegistryStatusUpdate checks a write to the status subresource.
func ValidateResourceRegistryStatusUpdate(newR, oldR *search.ResourceRegistry) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newR.ObjectMeta, &oldR.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceRegistryStatus(&newR.Status, field.NewPath("status"))...)
}

// ValidateResourceRegistrySpec checks the spec of a ResourceRegistry: the
// cluster selection as a PropagationPolicy's clusterAffinity, and at least
// one resource selector, none repeated.
func ValidateResourceRegistrySpec(spec *search.ResourceRegistrySpec, fldPath *field.Path) field.ErrorList {
	allErrs := federationvalidation.ValidateClusterAffinity(&spec.TargetCluster, fldPath.Child("targetCluster"))
	selPath := fldPath.Child("resourceSelectors")
	if len(spec.ResourceSelectors) == 0 {
		return append(allErrs, field.Required(selPath, "at least one resource selector is required: the kinds to cache"))
	}
	seen := sets.New[search.ResourceSelector]()
	for i, rs := range spec.ResourceSelectors {
		idxPath := selPath.Index(i)
		allErrs = append(allErrs, validateKindRef(rs.APIVersion, rs.Kind, rs.Namespace, idxPath)...)
		if seen.Has(rs) {
			allErrs = append(allErrs, field.Duplicate(idxPath, selectorString(rs.APIVersion, rs.Kind, rs.Namespace)))
		}
		seen.Insert(rs)
	}
	return allErrs
}

// validateKindRef checks the apiVersion, kind and namespace of a resource
// selector or a cache.
func validateKindRef(apiVersion, kind, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := federationvalidation.ValidateAPIVersion(apiVersion, fldPath.Child("apiVersion"))
	allErrs = append(allErrs, validateKind(kind, fldPath.Child("kind"))...)
	if namespace != "" {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), namespace, msg))
		}
	}
	return allErrs
}

// validateKind checks a kind name as a CustomResourceDefinition's kind is
// checked: mixed case, but otherwise a DNS-1035 label (a letter first, then
// letters, digits and dashes).
func validateKind(kind string, fldPath *field.Path) field.ErrorList {
	if kind == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if msgs := validation.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(fldPath, kind, "must be a kind name such as Deployment: "+strings.Join(msgs, "; "))}
	}
	return nil
}

// selectorString prints a kind and namespace the way error messages name them.
func selectorString(apiVersion, kind, namespace string) string {
	s := apiVersion + " " + kind
	if namespace != "" {
		s += " in namespace " + namespace
	}
	return s
}

// ValidateResourceRegistryStatus checks the status of a ResourceRegistry: its
// conditions, and one cache at most per cluster, kind and namespace.
func ValidateResourceRegistryStatus(status *search.ResourceRegistryStatus, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateConditions(status.Conditions, fldPath.Child("conditions"))
	type cacheKey struct{ cluster, apiVersion, kind, namespace string }
	seen := sets.New[cacheKey]()
	for i, c := range status.Caches {
		idxPath := fldPath.Child("caches").Index(i)
		if c.Cluster == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("cluster"), ""))
		} else {
			for _, msg := range clustervalidation.ValidateClusterName(c.Cluster, false) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("cluster"), c.Cluster, msg))
			}
		}
		allErrs = append(allErrs, validateKindRef(c.APIVersion, c.Kind, c.Namespace, idxPath)...)
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(c.Objects, idxPath.Child("objects"))...)
		key := cacheKey{c.Cluster, c.APIVersion, c.Kind, c.Namespace}
		if seen.Has(key) {
			allErrs = append(allErrs, field.Duplicate(idxPath, "cluster "+c.Cluster+": "+selectorString(c.APIVersion, c.Kind, c.Namespace)))
		}
		seen.Insert(key)
	}
	return allErrs
}
