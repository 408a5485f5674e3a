package crd

import (
	"context"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// crdStrategy is the host's CRD registry strategy (PrepareForCreate/Update,
// Validate/ValidateUpdate, warnings).
var crdStrategy = customresourcedefinition.NewStrategy(scheme)

// Default applies the apiextensions.k8s.io/v1 defaults to a CRD template in
// place (as the host would on create/update): spec.names.singular/listKind,
// spec.conversion (strategy None), webhook service ports, and
// status.storedVersions when empty. spec and status are replaced by their
// defaulted, normalized (typed round-trip) form; metadata and any other
// top-level field are left as they are.
func Default(crd *unstructured.Unstructured) error {
	v1crd, err := decodeV1(crd)
	if err != nil {
		return err
	}
	specValue, err := toUnstructuredValue(v1crd.Spec)
	if err != nil {
		return err
	}
	statusValue, err := toUnstructuredValue(v1crd.Status)
	if err != nil {
		return err
	}
	crd.Object["spec"] = specValue
	crd.Object["status"] = statusValue
	return nil
}

// ValidateCreate validates a CRD template exactly as the host's
// apiextensions-apiserver validates a CRD on create: the template is decoded,
// defaulted and converted to the internal version, prepared by the host's
// CRD strategy (status reset, storedVersions = [storage version]) and
// validated by it. The template is not modified. Field paths and messages are
// the host's. A template that cannot be decoded gives one error at the root.
func ValidateCreate(ctx context.Context, crd *unstructured.Unstructured) field.ErrorList {
	_, internal, err := decode(crd)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(""), nil, err.Error())}
	}
	crdStrategy.PrepareForCreate(ctx, internal)
	return crdStrategy.Validate(ctx, internal)
}

// ValidateUpdate validates a CRD template update exactly as the host's
// apiextensions-apiserver does (status taken from old, storage version added
// to storedVersions, ratcheting against old, names immutable once old is
// Established). Neither template is modified.
func ValidateUpdate(ctx context.Context, crd, old *unstructured.Unstructured) field.ErrorList {
	_, internal, err := decode(crd)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(""), nil, err.Error())}
	}
	_, oldInternal, err := decode(old)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(""), nil, "old object: "+err.Error())}
	}
	fillResourceVersion(internal, oldInternal)
	crdStrategy.PrepareForUpdate(ctx, internal, oldInternal)
	return crdStrategy.ValidateUpdate(ctx, internal, oldInternal)
}

// Warnings returns the host's warnings for creating (old == nil) or updating
// a CRD template (unrecognized formats, non-scalar list-type=set items).
func Warnings(ctx context.Context, crd, old *unstructured.Unstructured) []string {
	_, internal, err := decode(crd)
	if err != nil {
		return nil
	}
	if old == nil {
		return crdStrategy.WarningsOnCreate(ctx, internal)
	}
	_, oldInternal, err := decode(old)
	if err != nil {
		return nil
	}
	return crdStrategy.WarningsOnUpdate(ctx, internal, oldInternal)
}

// fillResourceVersion does what the host's store does for an unconditional
// update (allowed for CRDs): a new object without resourceVersion gets the
// old one's. Templates that have none at all (not stored yet) get a
// placeholder, so that the update validation does not fail on it.
func fillResourceVersion(obj, old *apiextensions.CustomResourceDefinition) {
	if old.ResourceVersion == "" {
		old.ResourceVersion = "1"
	}
	if obj.ResourceVersion == "" {
		obj.ResourceVersion = old.ResourceVersion
	}
}
