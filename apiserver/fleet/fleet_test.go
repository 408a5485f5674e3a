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

package fleet

import (
	"bytes"
	"context"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/apis/native"
	"github.com/fedhq/fed/apiserver/internal/subtree"
)

func TestRequestInfoOfFleetPaths(t *testing.T) {
	delegate := &request.RequestInfoFactory{APIPrefixes: subtree.RequestInfoFactory.APIPrefixes, GrouplessAPIPrefixes: subtree.RequestInfoFactory.GrouplessAPIPrefixes}
	resolver := RequestInfoResolver(delegate)
	cases := []struct {
		method, path                                string
		resource, group, namespace, name, verb, sub string
		isResource                                  bool
	}{
		{"POST", Path + "/apis/apps/v1/namespaces/a/deployments", "deployments", "apps", "a", "", "create", "", true},
		{"GET", Path + "/api/v1/namespaces/a/configmaps?watch=true", "configmaps", "", "a", "", "watch", "", true},
		{"PUT", Path + "/apis/apps/v1/namespaces/a/deployments/web/scale", "deployments", "apps", "a", "web", "update", "scale", true},
		{"GET", Path + "/apis", "", "", "", "", "get", "", false},
		{"GET", Path, "", "", "", "", "get", "", false},
		// Outside the fleet, the path is fed's own: the fleet is the proxy of fleets/default.
		{"GET", Path + "x/apis", "fleets", "federation.fedhq.io", "", "default", "get", "proxyx", true},
		{"GET", "/apis/federation.fedhq.io/v1alpha1/namespaces/a/propagationpolicies", "propagationpolicies", "federation.fedhq.io", "a", "", "list", "", true},
	}
	for _, c := range cases {
		info, err := resolver.NewRequestInfo(httptest.NewRequest(c.method, c.path, nil))
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		got := []any{info.IsResourceRequest, info.Resource, info.APIGroup, info.Namespace, info.Name, info.Verb, info.Subresource}
		want := []any{c.isResource, c.resource, c.group, c.namespace, c.name, c.verb, c.sub}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s %s: got %v, want %v", c.method, c.path, got, want)
				break
			}
		}
	}
}

func TestInnerPath(t *testing.T) {
	for in, want := range map[string]string{
		Path:                      "/",
		Path + "/":                "/",
		Path + "/api/v1/pods":     "/api/v1/pods",
		Path + "/openapi/v3/apis": "/openapi/v3/apis",
	} {
		if got, ok := subtree.Inner(in, Path); !ok || got != want {
			t.Errorf("innerPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := subtree.Inner(Path+"extra/apis", Path); ok {
		t.Errorf("a path that only starts like the fleet's is not the fleet's")
	}
}

func mustUnstructured(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: a, resourceVersion: "7"}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`

func TestConverter(t *testing.T) {
	d := mustUnstructured(t, deploymentYAML)
	gv := schema.GroupVersion{Group: "apps", Version: "v1"}

	// The strategic merge patch handler's schema reference is typed; objects stay as they are.
	ref := newUnstructured(gv.WithKind("Deployment"))
	typed, err := converter{typedReferences: true}.ConvertToVersion(ref, gv)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := typed.(*appsv1.Deployment); !ok {
		t.Errorf("schema reference converted to %T, want *v1.Deployment", typed)
	}
	// For the patch handler, a template is converted to a copy of itself: the handler
	// patches what it gets in place, which must not be the stored object.
	same, err := converter{typedReferences: true}.ConvertToVersion(d, gv)
	if err != nil || same == d || !apiequality.Semantic.DeepEqual(same, d) {
		t.Errorf("a template is converted to a copy of itself, got %T (the same: %v), %v", same, same == d, err)
	}
	if obj, _ := (converter{}).ConvertToVersion(ref, gv); obj != ref {
		t.Errorf("without typedReferences the reference stays unstructured, got %T", obj)
	}

	// Custom resources change version by apiVersion alone, lists with their items.
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "WidgetList"}}
	list.Items = []unstructured.Unstructured{*newUnstructured(schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Widget"})}
	out, err := (converter{}).ConvertToVersion(list, schema.GroupVersion{Group: "example.io", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	converted := out.(*unstructured.UnstructuredList)
	if converted.GetAPIVersion() != "example.io/v2" || converted.Items[0].GetAPIVersion() != "example.io/v2" {
		t.Errorf("list converted to %s with item %s", converted.GetAPIVersion(), converted.Items[0].GetAPIVersion())
	}
	if _, err := (converter{}).ConvertToVersion(d, schema.GroupVersion{Group: "example.io", Version: "v1"}); err == nil {
		t.Errorf("a Deployment cannot become another group's kind")
	}
}

func TestFieldLabels(t *testing.T) {
	r := &resource{namespaced: true, fields: native.FieldLabels(schema.GroupResource{Resource: "events"})}
	c := fieldLabelConverter{r: r}
	for _, label := range []string{"metadata.name", "metadata.namespace", "involvedObject.name", "reason"} {
		if _, _, err := c.ConvertFieldLabel(schema.GroupVersionKind{}, label, "x"); err != nil {
			t.Errorf("%s: %v", label, err)
		}
	}
	if _, _, err := c.ConvertFieldLabel(schema.GroupVersionKind{}, "spec.replicas", "3"); err == nil || err.Error() != "field label not supported: spec.replicas" {
		t.Errorf("spec.replicas: %v", err)
	}
	u := mustUnstructured(t, "apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: a}\ninvolvedObject: {name: web, kind: Deployment}\nreason: Scheduled\n")
	_, set, err := newStrategy(r).GetAttrs(u)
	if err != nil {
		t.Fatal(err)
	}
	if set["involvedObject.name"] != "web" || set["reason"] != "Scheduled" || set["metadata.namespace"] != "a" || set["involvedObject.uid"] != "" {
		t.Errorf("fields %v", set)
	}
}

func TestStrategyKeepsStatusAndCountsGenerations(t *testing.T) {
	r := &resource{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, kind: "Deployment", namespaced: true, status: true}
	s := newStrategy(r)
	ctx := context.Background()

	created := mustUnstructured(t, deploymentYAML)
	created.Object["status"] = map[string]any{"replicas": int64(9)}
	s.PrepareForCreate(ctx, created)
	if _, ok := created.Object["status"]; ok || created.GetGeneration() != 1 {
		t.Fatalf("create keeps status %v or generation %d", created.Object["status"], created.GetGeneration())
	}

	old := created.DeepCopy()
	old.Object["status"] = map[string]any{"replicas": int64(2)}
	labelled := old.DeepCopy()
	labelled.SetLabels(map[string]string{"tier": "web"})
	delete(labelled.Object, "status")
	s.PrepareForUpdate(ctx, labelled, old)
	if labelled.GetGeneration() != 1 || labelled.Object["status"] == nil {
		t.Errorf("a metadata change: generation %d, status %v", labelled.GetGeneration(), labelled.Object["status"])
	}
	scaled := old.DeepCopy()
	_ = unstructured.SetNestedField(scaled.Object, int64(3), "spec", "replicas")
	s.PrepareForUpdate(ctx, scaled, old)
	if scaled.GetGeneration() != 2 {
		t.Errorf("a spec change: generation %d, want 2", scaled.GetGeneration())
	}

	status := old.DeepCopy()
	status.Object["status"] = map[string]any{"replicas": int64(3)}
	_ = unstructured.SetNestedField(status.Object, int64(5), "spec", "replicas")
	statusStrategy{s}.PrepareForUpdate(ctx, status, old)
	if replicas, _, _ := unstructured.NestedInt64(status.Object, "spec", "replicas"); replicas != 0 {
		t.Errorf("a status update changed spec.replicas to %d", replicas)
	}
	if replicas, _, _ := unstructured.NestedInt64(status.Object, "status", "replicas"); replicas != 3 {
		t.Errorf("a status update did not write status: %d", replicas)
	}
	if errs := s.Validate(ctx, mustUnstructured(t, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x, namespace: a}\n")); len(errs) != 1 || errs[0].Field != "kind" {
		t.Errorf("wrong kind: %v", errs)
	}
}

type fixedUpdate struct{ scale *autoscalingv1.Scale }

func (f fixedUpdate) Preconditions() *metav1.Preconditions { return nil }
func (f fixedUpdate) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return f.scale, nil
}

var _ rest.UpdatedObjectInfo = fixedUpdate{}

func TestScale(t *testing.T) {
	r := &resource{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, scale: true}
	s := &scaleREST{r: r}
	d := mustUnstructured(t, deploymentYAML)
	scale, err := s.toScale(d)
	if err != nil {
		t.Fatal(err)
	}
	if scale.Spec.Replicas != 1 || scale.Status.Selector != "app=web" || scale.ResourceVersion != "7" {
		t.Errorf("scale of an unset replicas: %+v", scale)
	}

	update := &scaleUpdate{scale: s, info: fixedUpdate{&autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 4}}}}
	obj, err := update.UpdatedObject(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if replicas, _, _ := unstructured.NestedInt64(obj.(*unstructured.Unstructured).Object, "spec", "replicas"); replicas != 4 {
		t.Errorf("scaled to %d, want 4", replicas)
	}
	negative := &scaleUpdate{scale: s, info: fixedUpdate{&autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: -1}}}}
	if _, err := negative.UpdatedObject(context.Background(), d); !apierrors.IsInvalid(err) {
		t.Errorf("negative replicas: %v", err)
	}
	stale := &scaleUpdate{scale: s, info: fixedUpdate{&autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "6"}, Spec: autoscalingv1.ScaleSpec{Replicas: 2}}}}
	if _, err := stale.UpdatedObject(context.Background(), d); !apierrors.IsConflict(err) {
		t.Errorf("a stale resourceVersion: %v", err)
	}
}

func TestProtobufRoundTrip(t *testing.T) {
	info := newProtobufInfo()
	d := mustUnstructured(t, deploymentYAML)
	var buf bytes.Buffer
	if err := info.Serializer.Encode(d, &buf); err != nil {
		t.Fatal(err)
	}
	obj, gvk, err := info.Serializer.Decode(buf.Bytes(), nil, &unstructured.Unstructured{})
	if err != nil {
		t.Fatal(err)
	}
	u := obj.(*unstructured.Unstructured)
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	if gvk.Kind != "Deployment" || u.GetName() != "web" || len(containers) != 1 {
		t.Errorf("decoded %s %s with containers %v", gvk, u.GetName(), containers)
	}
	if containers[0].(map[string]any)["image"] != "nginx" {
		t.Errorf("image %v", containers[0])
	}
	if err := info.Serializer.Encode(newUnstructured(schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Widget"}), &buf); err == nil {
		t.Errorf("a kind without a Go type has no protobuf form")
	}
}
