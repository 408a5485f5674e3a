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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

func TestCompact(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{
			"name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "42", "generation": int64(3),
			"labels": map[string]any{"app": "web"}, "annotations": map[string]any{"note": "kept", corev1.LastAppliedConfigAnnotation: "{}"},
			"managedFields": []any{map[string]any{"manager": "fed", "operation": "Apply"}},
		},
		"spec":   map[string]any{"replicas": int64(2)},
		"status": map[string]any{"readyReplicas": int64(1)},
	}}
	kept, err := Compact(u.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := kept.(*Compacted)
	if !ok {
		t.Fatalf("Compact kept a %T, want *Compacted", kept)
	}
	if c.Name != "web" || c.Namespace != "shop" || c.UID != "u-1" || c.ResourceVersion != "42" || c.Generation != 3 ||
		c.Labels["app"] != "web" || c.Annotations["note"] != "kept" || len(c.Annotations) != 1 {
		t.Errorf("metadata: %+v", c.ObjectMeta)
	}
	if key, err := cache.MetaNamespaceKeyFunc(c); err != nil || key != "shop/web" {
		t.Errorf("its key: %q, %v", key, err)
	}
	got, ok, err := Unstructured(c)
	if err != nil || !ok {
		t.Fatalf("Unstructured: %v, %v", ok, err)
	}
	want := u.DeepCopy()
	want.SetManagedFields(nil)
	if !equality.Semantic.DeepEqual(got.Object, want.Object) {
		t.Errorf("decoded again:\n%v\nwant\n%v", got.Object, want.Object)
	}
	// Each read is a copy of its own: changing one changes neither the kept object nor the next read.
	got.SetLabels(map[string]string{"app": "changed"})
	if again, _, _ := Unstructured(c); again.GetLabels()["app"] != "web" || c.Labels["app"] != "web" {
		t.Errorf("a read changed what is kept: %v, %v", again.GetLabels(), c.Labels)
	}
	if raw, _ := want.MarshalJSON(); len(c.packed) >= len(raw) {
		t.Errorf("kept %d bytes of a JSON of %d", len(c.packed), len(raw))
	}
	if cp := c.DeepCopyObject().(*Compacted); cp.Labels["app"] != "web" || string(cp.packed) != string(c.packed) {
		t.Errorf("DeepCopyObject: %+v", cp)
	}
	// A kept object passes again unchanged; a tombstone, a typed object pass as ManagedFields passes them.
	if again, err := Compact(c); err != nil || again != any(c) {
		t.Errorf("Compact of a kept object: %v, %v", again, err)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "shop/web", Obj: c}
	if out, err := Compact(tomb); err != nil || out != any(tomb) {
		t.Errorf("a tombstone: %v, %v", out, err)
	}
	if _, ok, _ := Unstructured(&appsv1.Deployment{}); ok {
		t.Error("Unstructured of a typed object: ok, want not")
	}
	// Whole: the object, or nil for what holds none or does not decode.
	if w := Whole(c); w == nil || w.GetName() != "web" {
		t.Errorf("Whole of a kept object: %v", w)
	}
	if w := Whole(&appsv1.Deployment{}); w != nil {
		t.Errorf("Whole of a typed object: %v, want nil", w)
	}
	if w := Whole(&Compacted{packed: []byte("not s2")}); w != nil {
		t.Errorf("Whole of a corrupt kept object: %v, want nil", w)
	}
}
