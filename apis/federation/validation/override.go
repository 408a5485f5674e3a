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

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clustervalidation "github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/policy"
)

var (
	patchOperators      = sets.New(federation.OverriderOpAdd, federation.OverriderOpRemove, federation.OverriderOpReplace)
	listOperators       = sets.New(federation.OverriderOpAdd, federation.OverriderOpRemove)
	metadataOperators   = sets.New(federation.OverriderOpAddIfAbsent, federation.OverriderOpAdd, federation.OverriderOpRemove, federation.OverriderOpReplace)
	supportedComponents = sets.New(federation.ImageRegistry, federation.ImageRepository, federation.ImageTag)
)

// ValidateOverridePolicy checks an OverridePolicy on create.
func ValidateOverridePolicy(p *federation.OverridePolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateOverrideSpec(&p.Spec, p.Namespace, field.NewPath("spec"))...)
}

// ValidateOverridePolicyUpdate checks an OverridePolicy on update.
func ValidateOverridePolicyUpdate(newP, oldP *federation.OverridePolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateOverrideSpec(&newP.Spec, newP.Namespace, field.NewPath("spec"))...)
}

// ValidateClusterOverridePolicy checks a ClusterOverridePolicy on create.
func ValidateClusterOverridePolicy(p *federation.ClusterOverridePolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateOverrideSpec(&p.Spec, "", field.NewPath("spec"))...)
}

// ValidateClusterOverridePolicyUpdate checks a ClusterOverridePolicy on update.
func ValidateClusterOverridePolicyUpdate(newP, oldP *federation.ClusterOverridePolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateOverrideSpec(&newP.Spec, "", field.NewPath("spec"))...)
}

// ValidateOverrideSpec checks the spec of an override policy; namespace is
// the policy's namespace, empty for a ClusterOverridePolicy.
func ValidateOverrideSpec(spec *federation.OverrideSpec, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceSelectors(spec.ResourceSelectors, namespace, false, fldPath.Child("resourceSelectors"))
	for i := range spec.OverrideRules {
		rule, idxPath := &spec.OverrideRules[i], fldPath.Child("overrideRules").Index(i)
		if rule.TargetCluster != nil {
			allErrs = append(allErrs, ValidateClusterAffinity(rule.TargetCluster, idxPath.Child("targetCluster"))...)
		}
		allErrs = append(allErrs, validateOverriders(&rule.Overriders, idxPath.Child("overriders"))...)
	}
	return allErrs
}

func validateOverriders(o *federation.Overriders, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, p := range o.Plaintext {
		idxPath := fldPath.Child("plaintext").Index(i)
		allErrs = append(allErrs, validateJSONPointer(p.Path, idxPath.Child("path"))...)
		allErrs = append(allErrs, validateNotIdentity(p.Path, idxPath.Child("path"))...)
		allErrs = append(allErrs, validatePatchValue(p.Operator, p.Value != nil, idxPath)...)
	}
	for i, img := range o.ImageOverrider {
		idxPath := fldPath.Child("imageOverrider").Index(i)
		if img.Predicate != nil {
			allErrs = append(allErrs, validateJSONPointer(img.Predicate.Path, idxPath.Child("predicate", "path"))...)
		}
		allErrs = append(allErrs, validateEnum(img.Component, supportedComponents, true, idxPath.Child("component"))...)
		allErrs = append(allErrs, validateEnum(img.Operator, patchOperators, true, idxPath.Child("operator"))...)
		if img.Value == "" && img.Operator != federation.OverriderOpRemove {
			allErrs = append(allErrs, field.Required(idxPath.Child("value"), "required for add and replace"))
		}
	}
	allErrs = append(allErrs, validateCommandArgs(o.CommandOverrider, fldPath.Child("commandOverrider"))...)
	allErrs = append(allErrs, validateCommandArgs(o.ArgsOverrider, fldPath.Child("argsOverrider"))...)
	for i, l := range o.LabelsOverrider {
		idxPath := fldPath.Child("labelsOverrider").Index(i)
		allErrs = append(allErrs, validateEnum(l.Operator, metadataOperators, true, idxPath.Child("operator"))...)
		allErrs = append(allErrs, validateRequiredMap(l.Value, idxPath.Child("value"))...)
		allErrs = append(allErrs, metav1validation.ValidateLabels(l.Value, idxPath.Child("value"))...)
	}
	for i, a := range o.AnnotationsOverrider {
		idxPath := fldPath.Child("annotationsOverrider").Index(i)
		allErrs = append(allErrs, validateEnum(a.Operator, metadataOperators, true, idxPath.Child("operator"))...)
		allErrs = append(allErrs, validateRequiredMap(a.Value, idxPath.Child("value"))...)
		allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(a.Value, idxPath.Child("value"))...)
	}
	for i := range o.FieldOverrider {
		allErrs = append(allErrs, validateFieldOverrider(&o.FieldOverrider[i], fldPath.Child("fieldOverrider").Index(i))...)
	}
	if len(o.ReplicasOverrider) > 1 {
		allErrs = append(allErrs, field.TooMany(fldPath.Child("replicasOverrider"), len(o.ReplicasOverrider), 1))
	}
	for i, r := range o.ReplicasOverrider {
		allErrs = append(allErrs, validateNonnegative(int64(r.Value), fldPath.Child("replicasOverrider").Index(i).Child("value"))...)
	}
	for i := range o.ResourcesOverrider {
		r, idxPath := &o.ResourcesOverrider[i], fldPath.Child("resourcesOverrider").Index(i)
		if r.ContainerName == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("containerName"), ""))
		}
		allErrs = append(allErrs, validateResourceRequirements(&r.Value, idxPath.Child("value"))...)
	}
	return allErrs
}

// validateNotIdentity refuses an overrider path that could change which object a template
// becomes in a member (policy.TouchesIdentity): its apiVersion, kind, namespace or name
// are what its author was allowed to write.
func validateNotIdentity(path string, fldPath *field.Path) field.ErrorList {
	if f, ok := policy.TouchesIdentity(path); ok && path != "" {
		return field.ErrorList{field.Forbidden(fldPath, fmt.Sprintf(
			"an override may not change %s: a template's apiVersion, kind, namespace and name stay what its author wrote (create another template instead)", f))}
	}
	return nil
}

// validatePatchValue checks the operator of a patch-like operation and that
// a value is given exactly when the operator needs one.
func validatePatchValue(op federation.OverriderOperator, hasValue bool, fldPath *field.Path) field.ErrorList {
	allErrs := validateEnum(op, patchOperators, true, fldPath.Child("operator"))
	switch {
	case op == federation.OverriderOpRemove && hasValue:
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("value"), "must be empty for remove"))
	case op != federation.OverriderOpRemove && !hasValue:
		allErrs = append(allErrs, field.Required(fldPath.Child("value"), "required for add and replace"))
	}
	return allErrs
}

func validateCommandArgs(overriders []federation.CommandArgsOverrider, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, c := range overriders {
		idxPath := fldPath.Index(i)
		if c.ContainerName == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("containerName"), ""))
		}
		allErrs = append(allErrs, validateEnum(c.Operator, listOperators, true, idxPath.Child("operator"))...)
		if len(c.Value) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("value"), ""))
		}
	}
	return allErrs
}

func validateRequiredMap(m map[string]string, fldPath *field.Path) field.ErrorList {
	if len(m) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return nil
}

func validateFieldOverrider(f *federation.FieldOverrider, fldPath *field.Path) field.ErrorList {
	allErrs := validateJSONPointer(f.FieldPath, fldPath.Child("fieldPath"))
	allErrs = append(allErrs, validateNotIdentity(f.FieldPath, fldPath.Child("fieldPath"))...)
	switch {
	case len(f.JSON) > 0 && len(f.YAML) > 0:
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("yaml"), "cannot be set together with json"))
	case len(f.JSON) == 0 && len(f.YAML) == 0:
		allErrs = append(allErrs, field.Required(fldPath, "one of json or yaml is required"))
	}
	for i, op := range f.JSON {
		idxPath := fldPath.Child("json").Index(i)
		allErrs = append(allErrs, validateJSONPointer(op.SubPath, idxPath.Child("subPath"))...)
		allErrs = append(allErrs, validatePatchValue(op.Operator, op.Value != nil, idxPath)...)
	}
	for i, op := range f.YAML {
		idxPath := fldPath.Child("yaml").Index(i)
		allErrs = append(allErrs, validateJSONPointer(op.SubPath, idxPath.Child("subPath"))...)
		allErrs = append(allErrs, validatePatchValue(op.Operator, op.Value != nil, idxPath)...)
	}
	return allErrs
}

// validateResourceRequirements checks that quantities are not negative and
// that no request exceeds its limit.
func validateResourceRequirements(r *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	allErrs := clustervalidation.ValidateResourceList(r.Limits, fldPath.Child("limits"))
	allErrs = append(allErrs, clustervalidation.ValidateResourceList(r.Requests, fldPath.Child("requests"))...)
	for _, name := range sets.List(sets.KeySet(r.Requests)) {
		limit, ok := r.Limits[name]
		if request := r.Requests[name]; ok && request.Cmp(limit) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("requests").Key(string(name)), request.String(),
				"must be less than or equal to the "+string(name)+" limit "+limit.String()))
		}
	}
	return allErrs
}
