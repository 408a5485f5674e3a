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

package crd

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

func loadCRD(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile("testdata/guestbook-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

func guestbookVersion(t *testing.T) Version {
	t.Helper()
	vs, err := Versions(loadCRD(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 {
		t.Fatalf("got %d versions", len(vs))
	}
	return vs[0]
}

func guestbook(name string, spec map[string]interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "webapp.my.domain/v1",
		"kind":       "Guestbook",
		"metadata":   map[string]interface{}{"name": name, "namespace": "default", "creationTimestamp": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

func hasError(errs field.ErrorList, want string) bool {
	for _, e := range errs {
		if strings.Contains(e.Error(), want) {
			return true
		}
	}
	return false
}

func TestVersions(t *testing.T) {
	v := guestbookVersion(t)
	if v.GVR != (schema.GroupVersionResource{Group: "webapp.my.domain", Version: "v1", Resource: "guestbooks"}) {
		t.Errorf("GVR = %v", v.GVR)
	}
	if v.Kind != "Guestbook" || v.ListKind != "GuestbookList" || v.Singular != "guestbook" || !v.Namespaced || !v.Storage || v.StorageVersion != "v1" || !v.Status || v.Deprecated {
		t.Errorf("unexpected version %+v", v)
	}
	if len(v.ShortNames) != 1 || v.ShortNames[0] != "gb" || len(v.Categories) != 1 || v.Categories[0] != "all" {
		t.Errorf("short names %v categories %v", v.ShortNames, v.Categories)
	}
	if v.Scale == nil || *v.Scale != (Scale{".spec.size", ".status.replicas", ".status.selector"}) {
		t.Errorf("scale %+v", v.Scale)
	}
	if v.OpenAPIModels == nil {
		t.Fatal("no OpenAPI models")
	}
	if _, ok := v.OpenAPIModels["domain.my.webapp.v1.Guestbook"]; !ok {
		t.Errorf("no Guestbook model")
	}
	tc, err := managedfields.NewTypeConverter(v.OpenAPIModels, v.PreserveUnknownFields)
	if err != nil {
		t.Fatalf("type converter: %v", err)
	}
	if _, err := tc.ObjectToTyped(guestbook("a", map[string]interface{}{"entries": []interface{}{map[string]interface{}{"name": "x"}}})); err != nil {
		t.Errorf("ObjectToTyped: %v", err)
	}
}

func TestPrepare(t *testing.T) {
	v := guestbookVersion(t)
	obj := guestbook("a", map[string]interface{}{"alias": "Phone", "unknown": "x"})
	obj.Object["unknownTop"] = true
	v.Prepare(obj)
	spec := obj.Object["spec"].(map[string]interface{})
	if _, ok := spec["unknown"]; ok {
		t.Errorf("spec.unknown not pruned")
	}
	if _, ok := obj.Object["unknownTop"]; ok {
		t.Errorf("unknownTop not pruned")
	}
	if spec["size"] != int64(1) {
		t.Errorf("size not defaulted: %#v", spec["size"])
	}
	if obj.GetName() != "a" || obj.GetKind() != "Guestbook" {
		t.Errorf("metadata/kind lost: %v", obj.Object)
	}

	obj = guestbook("a", map[string]interface{}{"unknown": "x"})
	unknown, err := v.Decode(obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 1 || unknown[0] != "spec.unknown" {
		t.Errorf("unknown paths %v", unknown)
	}
}

func TestValidate(t *testing.T) {
	ctx := context.Background()
	v := guestbookVersion(t)

	if errs := v.Validate(ctx, guestbook("ok", map[string]interface{}{"size": int64(3), "alias": "Phone"})); len(errs) != 0 {
		t.Errorf("valid object rejected: %v", errs)
	}

	errs := v.Validate(ctx, guestbook("neg", map[string]interface{}{"size": int64(-1)}))
	if !hasError(errs, "spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0") {
		t.Errorf("size=-1: %v", errs)
	}

	errs = v.Validate(ctx, guestbook("big", map[string]interface{}{"size": int64(101)}))
	if !hasError(errs, "spec: Invalid value: size must be at most 100") {
		t.Errorf("CEL: %v", errs)
	}

	errs = v.Validate(ctx, guestbook("enum", map[string]interface{}{"alias": "Email"}))
	if !hasError(errs, `spec.alias: Unsupported value: "Email": supported values: "Phone", "Address", "Name"`) {
		t.Errorf("enum: %v", errs)
	}

	errs = v.Validate(ctx, guestbook("dup", map[string]interface{}{"entries": []interface{}{
		map[string]interface{}{"name": "x"}, map[string]interface{}{"name": "x"},
	}}))
	if !hasError(errs, "spec.entries[1]: Duplicate value") {
		t.Errorf("list map: %v", errs)
	}

	wrongKind := guestbook("k", nil)
	wrongKind.SetKind("Other")
	if errs := v.Validate(ctx, wrongKind); !hasError(errs, "kind: Invalid value: \"Other\": must be Guestbook") {
		t.Errorf("kind: %v", errs)
	}

	// transition: CEL on update; ratcheting keeps an unchanged invalid value
	old := guestbook("u", map[string]interface{}{"size": int64(200)})
	old.SetResourceVersion("1")
	upd := old.DeepCopy()
	upd.SetLabels(map[string]string{"a": "b"})
	if errs := v.ValidateUpdate(ctx, upd, old); len(errs) != 0 {
		t.Errorf("ratcheting: %v", errs)
	}
	upd.Object["spec"] = map[string]interface{}{"size": int64(150)}
	if errs := v.ValidateUpdate(ctx, upd, old); !hasError(errs, "size must be at most 100") {
		t.Errorf("update CEL: %v", errs)
	}
}

func TestTable(t *testing.T) {
	ctx := context.Background()
	v := guestbookVersion(t)
	obj := guestbook("a", map[string]interface{}{"size": int64(3), "alias": "Phone"})
	table, err := v.Table.ConvertToTable(ctx, obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	var headers []string
	for _, c := range table.ColumnDefinitions {
		headers = append(headers, c.Name)
	}
	if strings.Join(headers, ",") != "Name,Size,Alias,Age" {
		t.Errorf("headers %v", headers)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("rows %v", table.Rows)
	}
	cells := table.Rows[0].Cells
	if cells[0] != "a" || cells[1] != int64(3) || cells[2] != "Phone" || cells[3] != "60m" {
		t.Errorf("cells %#v", cells)
	}
	if table.Rows[0].Object.Object != obj {
		t.Errorf("row object not set")
	}

	list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": "webapp.my.domain/v1", "kind": "GuestbookList", "metadata": map[string]interface{}{"resourceVersion": "7"}}}
	list.Items = []unstructured.Unstructured{*guestbook("a", map[string]interface{}{"size": int64(1)}), *guestbook("b", map[string]interface{}{"size": int64(2), "alias": "Name"})}
	table, err = v.Table.ConvertToTable(ctx, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 2 || table.ResourceVersion != "7" {
		t.Fatalf("list table %+v", table)
	}
	if c := table.Rows[1].Cells; c[0] != "b" || c[1] != int64(2) || c[2] != "Name" {
		t.Errorf("cells %#v", c)
	}
	if c := table.Rows[0].Cells; c[2] != nil {
		t.Errorf("missing alias cell %#v", c[2])
	}
	if table.Rows[1].Object.Object == nil {
		t.Errorf("row object not set")
	}
}

func TestSelectableFields(t *testing.T) {
	v := guestbookVersion(t)
	f, err := v.SelectableFields(guestbook("a", map[string]interface{}{"alias": "Phone"}))
	if err != nil {
		t.Fatal(err)
	}
	want := fields.Set{"metadata.name": "a", "metadata.namespace": "default", "spec.alias": "Phone"}
	if !maps.Equal(f, want) {
		t.Errorf("got %v want %v", f, want)
	}
}

func TestValidateCreate(t *testing.T) {
	ctx := context.Background()
	if errs := ValidateCreate(ctx, loadCRD(t)); len(errs) != 0 {
		t.Fatalf("valid CRD rejected: %v", errs)
	}

	c := loadCRD(t)
	c.SetName("guestbook.webapp.my.domain")
	errs := ValidateCreate(ctx, c)
	if !hasError(errs, `metadata.name: Invalid value: "guestbook.webapp.my.domain": must be spec.names.plural+"."+spec.group`) {
		t.Errorf("name: %v", errs)
	}

	c = loadCRD(t)
	versions, _, _ := unstructured.NestedSlice(c.Object, "spec", "versions")
	versions[0].(map[string]interface{})["storage"] = false
	_ = unstructured.SetNestedSlice(c.Object, versions, "spec", "versions")
	errs = ValidateCreate(ctx, c)
	if !hasError(errs, "spec.versions: Invalid value: ") || !hasError(errs, ": must have exactly one version marked as storage version") {
		t.Errorf("storage: %v", errs)
	}
	if _, err := Versions(c); err == nil {
		t.Errorf("Versions accepted a CRD without storage version")
	}

	// update: the scope is immutable
	old := loadCRD(t)
	SetStatus(old, Names{}, metav1.Now())
	upd := loadCRD(t)
	_ = unstructured.SetNestedField(upd.Object, "Cluster", "spec", "scope")
	if errs := ValidateUpdate(ctx, upd, old); !hasError(errs, "spec.scope: Invalid value: \"Cluster\": field is immutable") {
		t.Errorf("update scope: %v", errs)
	}
	if errs := ValidateUpdate(ctx, loadCRD(t), old); len(errs) != 0 {
		t.Errorf("no-op update: %v", errs)
	}
}

func TestDefault(t *testing.T) {
	c := loadCRD(t)
	unstructured.RemoveNestedField(c.Object, "spec", "names", "listKind")
	if err := Default(c); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := unstructured.NestedString(c.Object, "spec", "conversion", "strategy"); s != "None" {
		t.Errorf("conversion strategy %q", s)
	}
	if s, _, _ := unstructured.NestedString(c.Object, "spec", "names", "listKind"); s != "GuestbookList" {
		t.Errorf("listKind %q", s)
	}
	if s, _, _ := unstructured.NestedStringSlice(c.Object, "status", "storedVersions"); len(s) != 1 || s[0] != "v1" {
		t.Errorf("storedVersions %v", s)
	}
	if c.GetName() != "guestbooks.webapp.my.domain" {
		t.Errorf("metadata changed")
	}
}

func condition(t *testing.T, c *unstructured.Unstructured, typ string) map[string]interface{} {
	t.Helper()
	conds, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions")
	for _, x := range conds {
		m := x.(map[string]interface{})
		if m["type"] == typ {
			return m
		}
	}
	t.Fatalf("no condition %s in %v", typ, conds)
	return nil
}

func TestSetStatus(t *testing.T) {
	c := loadCRD(t)
	t1 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	SetStatus(c, Names{}, t1)
	if !Established(c) {
		t.Fatalf("not established: %v", c.Object["status"])
	}
	na := condition(t, c, "NamesAccepted")
	if na["status"] != "True" || na["reason"] != "NoConflicts" || na["message"] != "no conflicts found" {
		t.Errorf("NamesAccepted %v", na)
	}
	est := condition(t, c, "Established")
	if est["status"] != "True" || est["reason"] != "InitialNamesAccepted" || est["message"] != "the initial names have been accepted" || est["lastTransitionTime"] != "2026-01-01T00:00:00Z" {
		t.Errorf("Established %v", est)
	}
	if p, _, _ := unstructured.NestedString(c.Object, "status", "acceptedNames", "plural"); p != "guestbooks" {
		t.Errorf("accepted plural %q", p)
	}
	if s, _, _ := unstructured.NestedStringSlice(c.Object, "status", "storedVersions"); len(s) != 1 || s[0] != "v1" {
		t.Errorf("storedVersions %v", s)
	}
	// unchanged status keeps lastTransitionTime; own names never conflict
	var own Names
	own.Add("guestbooks", "guestbook", "Guestbook", "GuestbookList", "gb")
	SetStatus(c, own, metav1.NewTime(t1.Add(time.Hour)))
	if est := condition(t, c, "Established"); est["lastTransitionTime"] != "2026-01-01T00:00:00Z" || est["status"] != "True" {
		t.Errorf("Established after resync %v", est)
	}

	// a plural taken by another CRD or a native kind
	c = loadCRD(t)
	var taken Names
	taken.Add("guestbooks", "", "", "")
	SetStatus(c, taken, t1)
	na = condition(t, c, "NamesAccepted")
	if na["status"] != "False" || na["reason"] != "PluralConflict" || na["message"] != `"guestbooks" is already in use` {
		t.Errorf("NamesAccepted %v", na)
	}
	est = condition(t, c, "Established")
	if est["status"] != "False" || est["reason"] != "NotAccepted" || est["message"] != "not all names are accepted" {
		t.Errorf("Established %v", est)
	}
	if Established(c) {
		t.Errorf("established despite conflict")
	}
	if p, _, _ := unstructured.NestedString(c.Object, "status", "acceptedNames", "plural"); p != "" {
		t.Errorf("conflicting plural accepted: %q", p)
	}

	// TakenNames of other templates in the group
	other := loadCRD(t)
	SetStatus(other, Names{}, t1)
	other.SetName("other.webapp.my.domain")
	tn := TakenNames("webapp.my.domain", []*unstructured.Unstructured{other, loadCRD(t)}, "guestbooks.webapp.my.domain")
	if !tn.Plurals.Has("guestbooks") || !tn.Kinds.Has("Guestbook") || !tn.ShortNames.Has("gb") {
		t.Errorf("TakenNames %+v", tn)
	}
}

func TestOpenAPI(t *testing.T) {
	c := loadCRD(t)
	SetStatus(c, Names{}, metav1.Now())
	doc, err := OpenAPIV3([]*unstructured.Unstructured{c}, schema.GroupVersion{Group: "webapp.my.domain", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if doc == nil || doc.Components == nil {
		t.Fatal("empty document")
	}
	s, ok := doc.Components.Schemas["domain.my.webapp.v1.Guestbook"]
	if !ok {
		t.Fatalf("no Guestbook schema in %v", keys(doc.Components.Schemas))
	}
	gvk, ok := s.Extensions["x-kubernetes-group-version-kind"].([]interface{})
	if !ok || len(gvk) != 1 || gvk[0].(map[string]interface{})["kind"] != "Guestbook" {
		t.Errorf("x-kubernetes-group-version-kind %#v", s.Extensions["x-kubernetes-group-version-kind"])
	}
	if _, ok := s.Properties["spec"].Properties["size"]; !ok {
		t.Errorf("no spec.size in schema")
	}
	if _, ok := doc.Paths.Paths["/apis/webapp.my.domain/v1/namespaces/{namespace}/guestbooks/{name}/scale"]; !ok {
		t.Errorf("no scale path")
	}
	if doc, err := OpenAPIV3([]*unstructured.Unstructured{c}, schema.GroupVersion{Group: "webapp.my.domain", Version: "v2"}); err != nil || doc != nil {
		t.Errorf("v2: %v %v", doc, err)
	}

	sw, err := OpenAPIV2([]*unstructured.Unstructured{c})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sw.Definitions["domain.my.webapp.v1.Guestbook"]; !ok {
		t.Errorf("no Guestbook definition in v2")
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestTwoVersions(t *testing.T) {
	c := loadCRD(t)
	versions, _, _ := unstructured.NestedSlice(c.Object, "spec", "versions")
	beta := runtimeDeepCopy(versions[0].(map[string]interface{}))
	beta["name"] = "v1beta1"
	beta["storage"] = false
	beta["deprecated"] = true
	_ = unstructured.SetNestedSlice(c.Object, []interface{}{beta, versions[0]}, "spec", "versions")
	if errs := ValidateCreate(context.Background(), c); len(errs) != 0 {
		t.Fatalf("two-version CRD rejected: %v", errs)
	}
	vs, err := Versions(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("got %d versions", len(vs))
	}
	if vs[0].GVR.Version != "v1beta1" || vs[0].Storage || vs[1].GVR.Version != "v1" || !vs[1].Storage {
		t.Errorf("versions %v/%v %v/%v", vs[0].GVR, vs[0].Storage, vs[1].GVR, vs[1].Storage)
	}
	if vs[0].StorageVersion != "v1" || !vs[0].Deprecated || vs[0].DeprecationWarning != "webapp.my.domain/v1beta1 Guestbook is deprecated; use webapp.my.domain/v1 Guestbook" {
		t.Errorf("v1beta1 %+v", vs[0])
	}
	// a v1beta1 object is validated against v1beta1's GVK
	obj := guestbook("a", map[string]interface{}{"size": int64(2)})
	obj.SetAPIVersion("webapp.my.domain/v1beta1")
	if errs := vs[0].Validate(context.Background(), obj); len(errs) != 0 {
		t.Errorf("v1beta1 object: %v", errs)
	}
}

func TestReplicasPaths(t *testing.T) {
	c := loadCRD(t)
	versions, _, _ := unstructured.NestedSlice(c.Object, "spec", "versions")
	beta := runtimeDeepCopy(versions[0].(map[string]interface{}))
	beta["name"] = "v1beta1"
	beta["storage"] = false
	unstructured.RemoveNestedField(beta, "subresources", "scale")
	_ = unstructured.SetNestedSlice(c.Object, []interface{}{beta, versions[0]}, "spec", "versions")
	v1crd, err := decodeV1(c)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := replicasPaths(v1crd)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths["webapp.my.domain/v1beta1"] != nil || paths["webapp.my.domain/v1"].String() != ".spec.size" {
		t.Errorf("replicas paths %v", paths)
	}
}

func runtimeDeepCopy(m map[string]interface{}) map[string]interface{} {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}
