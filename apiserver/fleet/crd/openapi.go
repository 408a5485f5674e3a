package crd

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// establishedCRDs decodes the templates, keeping only those with
// Established=True, as the host's OpenAPI controllers do.
func establishedCRDs(crds []*unstructured.Unstructured) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, u := range crds {
		c, err := decodeV1(u)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", u.GetName(), err)
		}
		if apihelpers.IsCRDConditionTrue(c, apiextensionsv1.Established) {
			out = append(out, c)
		}
	}
	return out, nil
}

// OpenAPIV3 returns the OpenAPI v3 document for one group/version made of the
// given CRDs' served versions in it (builder.BuildOpenAPIV3 merged with
// builder.MergeSpecsV3, as the host's openapiv3 controller does), for the
// fleet's /openapi/v3/apis/<group>/<version> endpoint. Only CRDs with
// Established=True in their status (see SetStatus) are included, as on the
// host. It returns nil, nil when no CRD serves gv.
func OpenAPIV3(crds []*unstructured.Unstructured, gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	established, err := establishedCRDs(crds)
	if err != nil {
		return nil, err
	}
	var specs []*spec3.OpenAPI
	for _, c := range established {
		if c.Spec.Group != gv.Group || !apihelpers.HasServedCRDVersion(c, gv.Version) {
			continue
		}
		s, err := builder.BuildOpenAPIV3(c, gv.Version, builder.Options{
			V2:                      false,
			IncludeSelectableFields: utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CustomResourceFieldSelectors),
		})
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", c.Name, err)
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, nil
	}
	return builder.MergeSpecsV3(specs...)
}

// OpenAPIV2 returns the merged OpenAPI v2 spec of all served versions of the
// given (established) CRDs, for /openapi/v2. See OpenAPIV2WithStatic.
func OpenAPIV2(crds []*unstructured.Unstructured) (*spec.Swagger, error) {
	return OpenAPIV2WithStatic(&spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger: "2.0",
		Info: &spec.Info{InfoProps: spec.InfoProps{
			Title:   "Kubernetes CRD Swagger",
			Version: "v0.1.0",
		}},
	}}, crds)
}

// OpenAPIV2WithStatic is OpenAPIV2 merged into a static spec (e.g. the native
// kinds' spec), which wins on conflicts (builder.MergeSpecs), as the host's
// openapi controller does. Defaults are pruned from the CRD definitions as
// on the host. static is not mutated.
func OpenAPIV2WithStatic(static *spec.Swagger, crds []*unstructured.Unstructured) (*spec.Swagger, error) {
	established, err := establishedCRDs(crds)
	if err != nil {
		return nil, err
	}
	var crdSpecs []*spec.Swagger
	for _, c := range established {
		merged := &spec.Swagger{}
		for _, v := range c.Spec.Versions {
			if !v.Served {
				continue
			}
			s, err := builder.BuildOpenAPIV2(c, v.Name, builder.Options{
				V2:                      true,
				IncludeSelectableFields: utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CustomResourceFieldSelectors),
			})
			if err != nil {
				return nil, fmt.Errorf("CustomResourceDefinition %s: %w", c.Name, err)
			}
			s.Definitions = handler.PruneDefaults(s.Definitions)
			if merged, err = builder.MergeSpecs(merged, s); err != nil {
				return nil, err
			}
		}
		crdSpecs = append(crdSpecs, merged)
	}
	return builder.MergeSpecs(static, crdSpecs...)
}
