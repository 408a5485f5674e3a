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
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWithoutTypedParents(t *testing.T) {
	d := yamlObject(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	fields := func(s string) *metav1.FieldsV1 { return &metav1.FieldsV1{Raw: []byte(s)} }
	d.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate,
		FieldsV1: fields(`{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:selector":{},"f:template":{".":{},"f:spec":{".":{},"f:containers":{".":{},"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}}}`),
	}, {
		Manager: "a", Operation: metav1.ManagedFieldsOperationApply,
		FieldsV1: fields(`{"f:spec":{".":{},"f:replicas":{}}}`),
	}})
	withoutTypedParents(d)
	got := d.GetManagedFields()
	var update, apply any
	_ = json.Unmarshal(got[0].FieldsV1.Raw, &update)
	_ = json.Unmarshal(got[1].FieldsV1.Raw, &apply)
	// The labels map and a list item keep their "."; spec, template, its spec and the
	// containers list (there in a typed Deployment's zero value) do not; an Apply entry is
	// left as it is; selector, a field of its own, stays owned.
	want := `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}}}`
	var w any
	_ = json.Unmarshal([]byte(want), &w)
	if b1, b2 := mustJSON(update), mustJSON(w); b1 != b2 {
		t.Errorf("update entry:\n%s\nwant\n%s", b1, b2)
	}
	if b := mustJSON(apply); b != `{"f:spec":{".":{},"f:replicas":{}}}` {
		t.Errorf("apply entry changed: %s", b)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
