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

package trim

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

func TestManagedFields(t *testing.T) {
	fields := []metav1.ManagedFieldsEntry{{Manager: "fed", Operation: metav1.ManagedFieldsOperationApply}}
	typed := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", ManagedFields: fields, Labels: map[string]string{"app": "web"}}}
	u := &unstructured.Unstructured{}
	u.SetName("web")
	u.SetManagedFields(fields)
	u.SetLabels(map[string]string{"app": "web"})
	for _, obj := range []metav1.Object{typed, u} {
		out, err := ManagedFields(obj)
		if err != nil {
			t.Fatal(err)
		}
		o := out.(metav1.Object)
		if o.GetManagedFields() != nil {
			t.Errorf("%T: managedFields %v, want none", obj, o.GetManagedFields())
		}
		if o.GetName() != "web" || o.GetLabels()["app"] != "web" {
			t.Errorf("%T: the rest changed: %s %v", obj, o.GetName(), o.GetLabels())
		}
	}
	if _, ok := u.Object["metadata"].(map[string]any)["managedFields"]; ok {
		t.Error("unstructured: the managedFields key is still there")
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/web", Obj: typed}
	if out, err := ManagedFields(tomb); err != nil || out != any(tomb) {
		t.Errorf("a tombstone: %v, %v; want it unchanged", out, err)
	}
}
