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

package openapi

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"

	clusterinstall "github.com/fedhq/fed/apis/cluster/install"
	federationinstall "github.com/fedhq/fed/apis/federation/install"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchinstall "github.com/fedhq/fed/apis/search/install"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

func definitions() map[string]common.OpenAPIDefinition {
	return GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + name)
	})
}

// TestDefinitionsAreComplete checks that every type a definition refers to
// has a definition too, so the server can publish a complete schema.
func TestDefinitionsAreComplete(t *testing.T) {
	defs := definitions()
	for name, def := range defs {
		for _, dep := range def.Dependencies {
			if _, ok := defs[dep]; !ok {
				t.Errorf("%s refers to %s, which has no definition", name, dep)
			}
		}
	}
}

// TestServerSideApplySchema builds the schema server-side apply uses from
// the definitions, marking each fed kind with its group, version and kind as
// the server does, and converts objects with free-form fields, one with a
// type of another fed group (a ResourceRegistry's ClusterAffinity), and one
// with a Kubernetes type (a MultiClusterIngress's IngressSpec), through it.
func TestServerSideApplySchema(t *testing.T) {
	scheme := runtime.NewScheme()
	clusterinstall.Install(scheme)
	federationinstall.Install(scheme)
	searchinstall.Install(scheme)

	defs := definitions()
	schemas := make(map[string]*spec.Schema, len(defs))
	for name, def := range defs {
		s := def.Schema
		schemas[name] = &s
	}
	for gvk := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		obj, err := scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		namer, ok := obj.(interface{ OpenAPIModelName() string })
		if !ok {
			continue // meta.k8s.io types registered alongside the group
		}
		s, ok := schemas[namer.OpenAPIModelName()]
		if !ok {
			t.Errorf("%v has no definition", gvk)
			continue
		}
		s.AddExtension("x-kubernetes-group-version-kind", []interface{}{
			map[string]interface{}{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
		})
	}
	converter, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		t.Fatalf("building the server-side apply schema: %v", err)
	}

	policy := &federationv1alpha1.OverridePolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "federation.fedhq.io/v1alpha1", Kind: "OverridePolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "guestbook-sample", Namespace: "default"},
		Spec: federationv1alpha1.OverrideSpec{OverrideRules: []federationv1alpha1.RuleWithCluster{{
			Overriders: federationv1alpha1.Overriders{Plaintext: []federationv1alpha1.PlaintextOverrider{
				{Path: "/spec/size", Operator: federationv1alpha1.OverriderOpReplace, Value: &apiextensionsv1.JSON{Raw: []byte("4")}},
				{Path: "/metadata/annotations", Operator: federationv1alpha1.OverriderOpAdd, Value: &apiextensionsv1.JSON{Raw: []byte(`{"OverridePolicy":"test"}`)}},
			}},
		}}},
	}
	work := &federationv1alpha1.Work{
		TypeMeta:   metav1.TypeMeta{APIVersion: "federation.fedhq.io/v1alpha1", Kind: "Work"},
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-member1", Namespace: "fed-es-member1"},
		Spec: federationv1alpha1.WorkSpec{Workload: federationv1alpha1.WorkloadTemplate{Manifests: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`)},
		}}},
	}
	registry := &searchv1alpha1.ResourceRegistry{
		TypeMeta:   metav1.TypeMeta{APIVersion: "search.fedhq.io/v1alpha1", Kind: "ResourceRegistry"},
		ObjectMeta: metav1.ObjectMeta{Name: "apps"},
		Spec: searchv1alpha1.ResourceRegistrySpec{
			TargetCluster:     federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}},
			ResourceSelectors: []searchv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}},
		},
	}
	// A Kubernetes type inside a fed kind: the IngressSpec of a MultiClusterIngress.
	ingress := &federationv1alpha1.MultiClusterIngress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "federation.fedhq.io/v1alpha1", Kind: "MultiClusterIngress"},
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-mci", Namespace: "default"},
		Spec: federationv1alpha1.MultiClusterIngressSpec{Template: federationv1alpha1.IngressTemplate{Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{Host: "nginx.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
				HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix),
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "nginx-mcs",
						Port: networkingv1.ServiceBackendPort{Number: 80}}}}}},
			}}},
		}}},
	}
	for _, obj := range []runtime.Object{policy, work, registry, ingress} {
		if _, err := converter.ObjectToTyped(obj); err != nil {
			t.Errorf("%T: %v", obj, err)
		}
	}
}
