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

// Package crd turns a CustomResourceDefinition template stored in the fleet
// API into everything needed to serve its custom resources with the same
// semantics as the host's apiextensions-apiserver: schema validation, pruning,
// defaulting, status/scale subresources, printer columns, selectable fields
// and OpenAPI.
//
// It only composes exported packages of k8s.io/apiextensions-apiserver: the
// CRD validation and defaulting of its apis package and CRD registry
// strategy, the custom resource registry strategy (schema, embedded
// ObjectMeta, list-type, CEL and scale validation, selectable fields) and
// storage (status and scale subresources), the structural schema algorithms
// (pruning, defaulting, ObjectMeta coercion), the table convertor and the
// OpenAPI builder.
package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// scheme knows apiextensions.k8s.io (internal and v1) with its defaulting
// and conversion functions, as the host's apiextensions-apiserver does.
var scheme = runtime.NewScheme()

func init() {
	apiextensionsinstall.Install(scheme)
}

// Version is one served version of a custom resource, as the fleet serves it.
type Version struct {
	GVR                    schema.GroupVersionResource // plural from spec.names.plural
	Kind, ListKind         string
	Singular               string
	ShortNames, Categories []string
	Namespaced             bool
	// Storage is true for the storage version (objects are stored at this
	// version; the fleet converts others by rewriting apiVersion only, i.e.
	// conversion strategy None).
	Storage bool
	// StorageVersion is the name of the CRD's storage version (which may be
	// a version that is not served).
	StorageVersion     string
	Deprecated         bool
	DeprecationWarning string // set when Deprecated: spec's deprecationWarning or the host's default message
	Status             bool   // status subresource
	Scale              *Scale // nil: no scale subresource
	// Table is built from additionalPrinterColumns (tableconvertor.New),
	// default NAME/AGE when none (and, as on the host, NAME only if the
	// columns cannot be parsed).
	Table rest.TableConvertor
	// Prepare prunes fields unknown to the schema (unless
	// x-kubernetes-preserve-unknown-fields / spec.preserveUnknownFields),
	// drops non-nullable nulls, coerces metadata and applies the schema's
	// defaults, as the apiextensions-apiserver does when reading from
	// storage (malformed metadata fields are dropped). obj should be of this
	// version's group and kind; other objects are left alone except for
	// their metadata.
	Prepare func(obj *unstructured.Unstructured)
	// Decode does what Prepare does, as the apiextensions-apiserver does
	// when decoding a request body: malformed metadata is an error rather
	// than dropped, and the paths of the pruned unknown fields are returned
	// (for fieldValidation=Warn/Strict; the host reports each as
	// `unknown field "<path>"`).
	Decode func(obj *unstructured.Unstructured) (unknownFieldPaths []string, err error)
	// Validate validates a new object: apiVersion/kind, metadata, schema,
	// embedded ObjectMeta, list-type invariants, CEL x-kubernetes-validations,
	// scale paths (the host's custom resource strategy).
	Validate func(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList
	// ValidateUpdate validates an update, incl. CEL transition rules and
	// validation ratcheting.
	ValidateUpdate func(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList
	// NewStorage builds apiextensions' storage of this version
	// (customresource.NewStorage) with the host's custom resource strategy;
	// its Status and Scale serve the status and scale subresources as the
	// host's do.
	NewStorage func(optsGetter generic.RESTOptionsGetter) (customresource.CustomResourceStorage, error)
	// SelectableFields returns metadata.name, metadata.namespace (if
	// namespaced) and the CRD's spec.versions[].selectableFields values of obj.
	SelectableFields func(obj *unstructured.Unstructured) (fields.Set, error)
	// Warnings returns the host's warnings for a create (old == nil) or an
	// update of obj (finalizer names).
	Warnings func(ctx context.Context, obj, old *unstructured.Unstructured) []string
	// OpenAPIModels are the OpenAPI v3 schema definitions of this CRD's
	// kinds (with x-kubernetes-group-version-kind, and the meta.v1 types they
	// reference) for managedfields.NewTypeConverter (pass
	// PreserveUnknownFields as its second argument), so server-side apply
	// merges lists by their keys; nil means the caller uses a deduced type
	// converter. The map is shared by all versions of a CRD; do not mutate.
	OpenAPIModels map[string]*spec.Schema
	// PreserveUnknownFields is the CRD's spec.preserveUnknownFields.
	PreserveUnknownFields bool
}

// Scale is a scale subresource. LabelSelectorPath is "" when not set.
type Scale struct{ SpecReplicasPath, StatusReplicasPath, LabelSelectorPath string }

// Versions returns the served versions of a CRD template (an
// apiextensions.k8s.io/v1 CustomResourceDefinition as unstructured), in
// spec.versions order. The template is defaulted (on a copy) first. A CRD
// that is not valid returns an error: it is checked with the host's update
// validation of the CRD against itself (so everything the host would still
// accept for a stored CRD, incl. ratcheted fields, is accepted; names are
// checked by ValidateCreate only). Names come from spec.names, not
// status.acceptedNames; whether to serve is the caller's business (see
// SetStatus / Established).
func Versions(crd *unstructured.Unstructured) ([]Version, error) {
	v1crd, internal, err := decode(crd)
	if err != nil {
		return nil, err
	}
	// the stored CRD must pass the host's update validation against itself
	cp := internal.DeepCopy()
	fillResourceVersion(cp, internal)
	crdStrategy.PrepareForUpdate(context.TODO(), cp, internal)
	if errs := crdStrategy.ValidateUpdate(context.TODO(), cp, internal); len(errs) > 0 {
		return nil, fmt.Errorf("invalid CustomResourceDefinition %s: %w", v1crd.Name, errs.ToAggregate())
	}

	storageVersion, err := apihelpers.GetCRDStorageVersion(v1crd)
	if err != nil {
		return nil, err
	}
	group := v1crd.Spec.Group
	names := v1crd.Spec.Names
	namespaced := v1crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	preserve := v1crd.Spec.PreserveUnknownFields
	models := openAPIModels(v1crd)
	replicasPaths, err := replicasPaths(v1crd)
	if err != nil {
		return nil, err
	}

	var out []Version
	for i := range v1crd.Spec.Versions {
		v := &v1crd.Spec.Versions[i]
		if !v.Served {
			continue
		}
		gvk := schema.GroupVersionKind{Group: group, Version: v.Name, Kind: names.Kind}

		// schemas, as the host's handler builds them
		var internalValidation *apiextensions.CustomResourceValidation
		var structural *structuralschema.Structural
		if val, err := apihelpers.GetSchemaForVersion(v1crd, v.Name); err != nil {
			return nil, err
		} else if val != nil {
			internalValidation = &apiextensions.CustomResourceValidation{}
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internalValidation, nil); err != nil {
				return nil, fmt.Errorf("failed converting CRD validation to internal version: %w", err)
			}
			s, err := structuralschema.NewStructural(internalValidation.OpenAPIV3Schema)
			if !preserve && err != nil {
				return nil, fmt.Errorf("version %s: schema is not structural: %w", v.Name, err)
			}
			if !preserve {
				s = s.DeepCopy()
				if err := structuraldefaulting.PruneDefaults(s); err != nil {
					return nil, fmt.Errorf("version %s: failed to prune defaults: %w", v.Name, err)
				}
			}
			structural = s
		}
		var internalSchemaProps *apiextensions.JSONSchemaProps
		if internalValidation != nil {
			internalSchemaProps = internalValidation.OpenAPIV3Schema
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internalSchemaProps)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}

		subresources, err := apihelpers.GetSubresourcesForVersion(v1crd, v.Name)
		if err != nil {
			return nil, err
		}
		var statusSpec *apiextensions.CustomResourceSubresourceStatus
		var statusValidator apiservervalidation.SchemaValidator
		if subresources != nil && subresources.Status != nil {
			statusSpec = &apiextensions.CustomResourceSubresourceStatus{}
			if internalSchemaProps != nil && internalSchemaProps.Properties != nil {
				if statusSchema, ok := internalSchemaProps.Properties["status"]; ok {
					statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema)
					if err != nil {
						return nil, fmt.Errorf("version %s: %w", v.Name, err)
					}
				}
			}
		}
		var scaleSpec *apiextensions.CustomResourceSubresourceScale
		var scale *Scale
		if subresources != nil && subresources.Scale != nil {
			scaleSpec = &apiextensions.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
				return nil, fmt.Errorf("failed converting CRD scale subresource to internal version: %w", err)
			}
			scale = &Scale{SpecReplicasPath: subresources.Scale.SpecReplicasPath, StatusReplicasPath: subresources.Scale.StatusReplicasPath}
			if subresources.Scale.LabelSelectorPath != nil {
				scale.LabelSelectorPath = *subresources.Scale.LabelSelectorPath
			}
		}

		columns := v.AdditionalPrinterColumns
		if len(columns) == 0 {
			columns = []apiextensionsv1.CustomResourceColumnDefinition{
				{Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"},
			}
		}
		// on error New returns a NAME-only convertor, which the host serves too
		table, _ := tableconvertor.New(columns)

		strategy := customresource.NewStrategy(
			unstructuredscheme.NewUnstructuredObjectTyper(),
			namespaced, gvk, validator, statusValidator, structural, statusSpec, scaleSpec, v.SelectableFields)

		c := coercer{gk: gvk.GroupKind(), structural: structural, preserveUnknownFields: preserve}
		warning := ""
		if v.Deprecated {
			if v.DeprecationWarning != nil {
				warning = *v.DeprecationWarning
			} else {
				warning = defaultDeprecationWarning(v.Name, &v1crd.Spec)
			}
		}

		gvr := gvk.GroupVersion().WithResource(names.Plural)
		listGVK := gvk.GroupVersion().WithKind(names.ListKind)
		out = append(out, Version{
			GVR:                   gvr,
			Kind:                  names.Kind,
			ListKind:              names.ListKind,
			Singular:              names.Singular,
			ShortNames:            names.ShortNames,
			Categories:            names.Categories,
			Namespaced:            namespaced,
			Storage:               v.Storage,
			StorageVersion:        storageVersion,
			Deprecated:            v.Deprecated,
			DeprecationWarning:    warning,
			Status:                statusSpec != nil,
			Scale:                 scale,
			Table:                 table,
			OpenAPIModels:         models,
			PreserveUnknownFields: preserve,
			Prepare: func(obj *unstructured.Unstructured) {
				_, _ = c.apply(obj, true, false)
			},
			Decode: func(obj *unstructured.Unstructured) ([]string, error) {
				return c.apply(obj, false, true)
			},
			Validate: func(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList {
				return strategy.Validate(ctx, obj)
			},
			ValidateUpdate: func(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList {
				return strategy.ValidateUpdate(ctx, obj, old)
			},
			NewStorage: func(optsGetter generic.RESTOptionsGetter) (customresource.CustomResourceStorage, error) {
				return customresource.NewStorage(gvr.GroupResource(), schema.GroupResource{Group: group, Resource: names.Singular},
					gvk, listGVK, strategy, optsGetter, names.Categories, table, replicasPaths)
			},
			SelectableFields: func(obj *unstructured.Unstructured) (fields.Set, error) {
				_, f, err := strategy.GetAttrs(obj)
				return f, err
			},
			Warnings: func(ctx context.Context, obj, old *unstructured.Unstructured) []string {
				if old == nil {
					return strategy.WarningsOnCreate(ctx, obj)
				}
				return strategy.WarningsOnUpdate(ctx, obj, old)
			},
		})
	}
	return out, nil
}

// replicasPaths maps every version of a CRD to the path of its spec replicas (nil
// without a scale subresource), for the managed fields of scale updates, as the host's
// handler builds them.
func replicasPaths(crd *apiextensionsv1.CustomResourceDefinition) (managedfields.ResourcePathMappings, error) {
	paths := managedfields.ResourcePathMappings{}
	for _, v := range crd.Spec.Versions {
		gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}.String()
		subresources, err := apihelpers.GetSubresourcesForVersion(crd, v.Name)
		if err != nil {
			return nil, err
		}
		if subresources == nil || subresources.Scale == nil {
			paths[gv] = nil
			continue
		}
		var path fieldpath.Path
		for _, name := range strings.Split(strings.TrimPrefix(subresources.Scale.SpecReplicasPath, "."), ".") {
			path = append(path, fieldpath.PathElement{FieldName: &name})
		}
		paths[gv] = path
	}
	return paths, nil
}

// coercer applies to a custom resource what the apiextensions-apiserver's
// decoders apply (unstructured schema coercion, then defaulting), composed
// from the exported structural schema algorithms.
type coercer struct {
	gk                    schema.GroupKind
	structural            *structuralschema.Structural
	preserveUnknownFields bool
}

func (c coercer) apply(u *unstructured.Unstructured, dropInvalidMetadata, trackUnknown bool) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields:     dropInvalidMetadata,
		ReturnUnknownFieldPaths: trackUnknown,
	})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	ours := gv.Group == c.gk.Group && kind == c.gk.Kind
	if ours {
		if !c.preserveUnknownFields {
			unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, c.structural, true,
				structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: trackUnknown})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, c.structural)
		}
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, c.structural, false, schemaobjectmeta.CoerceOptions{
			DropInvalidFields:       dropInvalidMetadata,
			ReturnUnknownFieldPaths: trackUnknown,
		})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	if ours {
		structuraldefaulting.Default(u.Object, c.structural)
	}
	return unknown, nil
}

// defaultDeprecationWarning is the warning the host sends for a deprecated
// version without spec.versions[].deprecationWarning.
func defaultDeprecationWarning(deprecatedVersion string, crdSpec *apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", crdSpec.Group, deprecatedVersion, crdSpec.Names.Kind)
	var newer []string
	for _, v := range crdSpec.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecatedVersion, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0
	})
	return msg + fmt.Sprintf("; use %s/%s %s", crdSpec.Group, newer[0], crdSpec.Names.Kind)
}

// openAPIModels builds the models for server-side apply as the host's
// handler does (all versions of the CRD merged), without the static spec:
// the builder adds the meta.v1 definitions the schemas reference. nil on
// error, as on the host.
func openAPIModels(crd *apiextensionsv1.CustomResourceDefinition) map[string]*spec.Schema {
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		s, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{})
		if err != nil {
			return nil
		}
		specs = append(specs, s)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil || merged.Components == nil {
		return nil
	}
	return merged.Components.Schemas
}

// decodeV1 converts a CRD template to the typed v1 CRD, defaulted as the
// host defaults a decoded request.
func decodeV1(crd *unstructured.Unstructured) (*apiextensionsv1.CustomResourceDefinition, error) {
	if crd == nil {
		return nil, fmt.Errorf("nil CustomResourceDefinition")
	}
	gvk := crd.GroupVersionKind()
	if gvk != apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition") {
		return nil, fmt.Errorf("expected %s, got %s", apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), gvk)
	}
	data, err := json.Marshal(crd.Object)
	if err != nil {
		return nil, err
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := utiljson.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("decoding CustomResourceDefinition: %w", err)
	}
	scheme.Default(out)
	return out, nil
}

// decode returns the defaulted v1 CRD and its internal version.
func decode(crd *unstructured.Unstructured) (*apiextensionsv1.CustomResourceDefinition, *apiextensions.CustomResourceDefinition, error) {
	v1crd, err := decodeV1(crd)
	if err != nil {
		return nil, nil, err
	}
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(v1crd, internal, nil); err != nil {
		return nil, nil, fmt.Errorf("converting CustomResourceDefinition to internal version: %w", err)
	}
	return v1crd, internal, nil
}

// toUnstructuredValue round-trips a typed value to its JSON-compatible
// unstructured form.
func toUnstructuredValue(in interface{}) (interface{}, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var out interface{}
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
