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

package works

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
)

func newAccess(t *testing.T, objs ...runtime.Object) (*Access, *fake.Clientset) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client := fake.NewSimpleClientset(objs...)
	factory := fedinformers.NewSharedInformerFactory(client, 0)
	a, err := New(client, factory.Federation().V1alpha1().Works())
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), a.Informer().HasSynced) {
		t.Fatal("the informer did not sync")
	}
	return a, client
}

func work(cluster, name, binding string) *federationv1alpha1.Work {
	w := &federationv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.ExecutionNamespace(cluster), Name: name,
		UID: types.UID("uid-" + cluster + name), Generation: 2}}
	if binding != "" {
		w.Annotations = map[string]string{federationv1alpha1.AnnotationBinding: binding}
	}
	return w
}

func TestSpecAndSpecEqual(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a"}, "data": map[string]any{"k": "v"}}}
	spec, err := Spec(cm)
	if err != nil || len(spec.Workload.Manifests) != 1 {
		t.Fatalf("Spec: %v, %v", spec, err)
	}
	reordered := federationv1alpha1.WorkSpec{Workload: federationv1alpha1.WorkloadTemplate{Manifests: []runtime.RawExtension{
		{Raw: []byte(`{"data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"a"},"apiVersion":"v1"}`)}}}}
	if !SpecEqual(&spec, &reordered) {
		t.Errorf("the same JSON in another order compares unequal")
	}
	changed := *reordered.DeepCopy()
	changed.Workload.Manifests[0].Raw = []byte(`{"data":{"k":"w"},"kind":"ConfigMap","metadata":{"name":"a"},"apiVersion":"v1"}`)
	if SpecEqual(&spec, &changed) {
		t.Errorf("a changed value compares equal")
	}
	suspended := *spec.DeepCopy()
	suspended.SuspendDispatching = ptr.To(true)
	if SpecEqual(&spec, &suspended) {
		t.Errorf("a suspended Work compares equal to one that is not")
	}
	if SpecEqual(&spec, &federationv1alpha1.WorkSpec{}) {
		t.Errorf("a Work with no manifest compares equal")
	}
}

// TestWrite: a Work is created with execution's finalizer, left alone while it is as
// wanted, updated when its spec or annotations differ, and refused while being deleted.
func TestWrite(t *testing.T) {
	deleting := work("member1", "going", "")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{federationv1alpha1.FinalizerExecution}
	a, client := newAccess(t, deleting)
	ctx := context.Background()
	k := types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace("member1"), Name: "w"}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}}
	spec, _ := Spec(cm)
	annotations := map[string]string{"a": "1"}

	wrote, err := a.Write(ctx, k, nil, annotations, spec)
	if err != nil || !wrote {
		t.Fatalf("create: %v, %v", wrote, err)
	}
	created, err := client.FederationV1alpha1().Works(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil || len(created.Finalizers) != 1 || created.Finalizers[0] != federationv1alpha1.FinalizerExecution || created.Annotations["a"] != "1" {
		t.Fatalf("created: %+v, %v", created, err)
	}
	if wrote, err := a.Write(ctx, k, nil, annotations, spec); err != nil || wrote {
		t.Errorf("created again (AlreadyExists), the same: %v, %v; want no write, no error", wrote, err)
	}
	// Created again with another spec before the informer had the first (an
	// OverridePolicy made right after the Work): the Work is read and updated.
	cm.SetLabels(map[string]string{"overridden": "yes"})
	overridden, _ := Spec(cm)
	if wrote, err := a.Write(ctx, k, nil, annotations, overridden); err != nil || !wrote {
		t.Errorf("created again (AlreadyExists), another spec: %v, %v; want a write", wrote, err)
	}
	got, err := client.FederationV1alpha1().Works(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil || !SpecEqual(&got.Spec, &overridden) {
		t.Fatalf("after the second create: %v, %v; want the overridden spec", got, err)
	}
	created, spec = got, overridden
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if w, _ := a.Get(k); w != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the informer never had the Work created")
		}
	}
	client.ClearActions()
	if wrote, err := a.Write(ctx, k, created, map[string]string{"a": "1"}, spec); err != nil || wrote || len(client.Actions()) != 0 {
		t.Errorf("as wanted: wrote %v, %v, actions %v; want none", wrote, err, client.Actions())
	}
	if wrote, err := a.Write(ctx, k, created, map[string]string{"a": "2"}, spec); err != nil || !wrote {
		t.Errorf("new annotations: %v, %v; want a write", wrote, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got, _ := a.Get(k); got != nil && got.Annotations["a"] == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the view never read the update back")
		}
	}
	if _, err := a.Write(ctx, types.NamespacedName{Namespace: deleting.Namespace, Name: deleting.Name}, deleting, nil, spec); !errors.Is(err, ErrDeleting) {
		t.Errorf("a Work being deleted: %v, want ErrDeleting", err)
	}
	if err := a.Delete(ctx, created); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, created); err != nil {
		t.Errorf("deleting it again: %v, want no error", err)
	}
}

// TestOfBindingAndAppliedFor: Works are found by their binding, keyed by cluster; a Work is
// applied for a cluster's replicas only at its generation, with its replicas annotation.
func TestOfBindingAndAppliedFor(t *testing.T) {
	w1, w2, other := work("member1", "app", "ns/app"), work("member2", "app", "ns/app"), work("member1", "other", "ns/other")
	w1.Spec.Workload.Manifests = []runtime.RawExtension{{Raw: []byte(`{}`)}}
	w1.Annotations[federationv1alpha1.AnnotationReplicas] = "3"
	w1.Status.Conditions = []metav1.Condition{{Type: federationv1alpha1.WorkConditionApplied, Status: metav1.ConditionTrue, ObservedGeneration: 2}}
	a, _ := newAccess(t, w1, w2, other, work("member1", "loose", ""))

	got, err := a.OfBinding("ns", "app")
	if err != nil || len(got) != 2 || got["member1"] == nil || got["member2"] == nil {
		t.Errorf("OfBinding: %v, %v; want member1 and member2", got, err)
	}
	if ns, name, ok := BindingOf(w1); !ok || ns != "ns" || name != "app" {
		t.Errorf("BindingOf: %q %q %v", ns, name, ok)
	}
	if _, _, ok := BindingOf(work("member1", "loose", "")); ok {
		t.Errorf("BindingOf a Work of no binding: ok")
	}
	if n := len(a.List(federationv1alpha1.ExecutionNamespace("member1"))); n != 3 {
		t.Errorf("List(member1's namespace): %d Works, want 3", n)
	}
	for _, c := range []struct {
		replicas int32
		mutate   func(*federationv1alpha1.Work)
		want     bool
	}{
		{3, nil, true},
		{0, nil, true},
		{2, nil, false},
		{3, func(w *federationv1alpha1.Work) { w.Generation = 3 }, false},
		{3, func(w *federationv1alpha1.Work) { w.Status.Conditions[0].Status = metav1.ConditionFalse }, false},
		{3, func(w *federationv1alpha1.Work) { w.DeletionTimestamp = &metav1.Time{} }, false},
	} {
		w := w1.DeepCopy()
		if c.mutate != nil {
			c.mutate(w)
		}
		if got := AppliedFor(w, c.replicas); got != c.want {
			t.Errorf("AppliedFor(%d) of %+v: %v, want %v", c.replicas, w.ObjectMeta, got, c.want)
		}
	}
	if AppliedFor(nil, 0) {
		t.Errorf("AppliedFor(nil): true")
	}
}

// TestOfBindingServesWrites: a Work fed wrote is read back as written before the informer
// has it. Read from the informer, a spec changed back to the older copy's read as
// written, and the Work kept what was written in between (seed 31337).
func TestOfBindingServesWrites(t *testing.T) {
	// An informer that is not running: it never catches up.
	client := fake.NewSimpleClientset()
	a, err := New(client, fedinformers.NewSharedInformerFactory(client, 0).Federation().V1alpha1().Works())
	if err != nil {
		t.Fatal(err)
	}
	old := work("member3", "svc", "ns/svc")
	old.ResourceVersion = "10"
	if err := a.Informer().GetIndexer().Add(old); err != nil {
		t.Fatal(err)
	}
	overridden := old.DeepCopy()
	overridden.ResourceVersion, overridden.Generation = "11", 3
	overridden.Spec.Workload.Manifests = []runtime.RawExtension{{Raw: []byte(`{"metadata":{"labels":{"override":"v47"}}}`)}}
	a.Wrote(overridden)
	got, err := a.OfBinding("ns", "svc")
	if err != nil || got["member3"] == nil || got["member3"].ResourceVersion != "11" {
		t.Errorf("OfBinding after a write the informer has not seen: %v %v, want the written copy (resourceVersion 11)", got, err)
	}
	if l := a.List(old.Namespace); len(l) != 1 || l[0].ResourceVersion != "11" {
		t.Errorf("List: %v, want the written copy", l)
	}
}
