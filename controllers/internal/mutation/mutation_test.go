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

package mutation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// TestWrote: a written copy is served until the informer has that version; one the
// informer has already is not kept; neither keeps managedFields.
func TestWrote(t *testing.T) {
	inf := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().ConfigMaps().Informer()
	c := New(inf)
	cm := func(rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: rv,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "fed"}}}}
	}
	if err := inf.GetStore().Add(cm("5")); err != nil {
		t.Fatal(err)
	}
	c.Wrote(cm("4")) // older than the informer's: nothing to keep
	if obj, _, _ := c.GetByKey("ns/cm"); obj.(*corev1.ConfigMap).ResourceVersion != "5" {
		t.Errorf("after an older write: %s, want the informer's 5", obj.(*corev1.ConfigMap).ResourceVersion)
	}
	newer := cm("7")
	c.Wrote(newer)
	if len(newer.ManagedFields) != 0 {
		t.Errorf("the written copy kept its managedFields: %v", newer.ManagedFields)
	}
	if obj, _, _ := c.GetByKey("ns/cm"); obj.(*corev1.ConfigMap).ResourceVersion != "7" {
		t.Errorf("after a newer write: %s, want the written 7", obj.(*corev1.ConfigMap).ResourceVersion)
	}
	caught := cm("7")
	if err := inf.GetStore().Update(caught); err != nil {
		t.Fatal(err)
	}
	c.Observe(caught, false)
	c.Wrote(cm("7")) // the informer has it: not kept again
	if c.caughtUp(cm("8")) || !c.caughtUp(cm("7")) {
		t.Error("caughtUp compares resourceVersions wrongly")
	}
}
