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

package bindings

import (
	"context"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
)

// newAccess is an Access over informers of a fake clientset holding objs, synced.
func newAccess(t *testing.T, objs ...runtime.Object) (*Access, *fake.Clientset) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client := fake.NewSimpleClientset(objs...)
	factory := fedinformers.NewSharedInformerFactory(client, 0)
	fed := factory.Federation().V1alpha1()
	a, err := NewAccess(client, fed.ResourceBindings(), fed.ClusterResourceBindings())
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), a.HasSynced) {
		t.Fatal("the informers did not sync")
	}
	return a, client
}

func rb(ns, name string, clusters ...string) *federationv1alpha1.ResourceBinding {
	b := &federationv1alpha1.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"}}
	for _, c := range clusters {
		b.Spec.Clusters = append(b.Spec.Clusters, federationv1alpha1.TargetCluster{Name: c, Replicas: 1})
	}
	return b
}

// eventually waits for cond, which the informers make true after a write.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
	}
}

// TestWorkingCopies: Get returns a copy to change, Peek the shared object; neither kind's
// key reads the other's; a missing binding is NotFound.
func TestWorkingCopies(t *testing.T) {
	crb := &federationv1alpha1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "shared", UID: "c"}}
	a, _ := newAccess(t, rb("ns", "shared", "member1"), crb)

	b, err := a.Get(Key{Namespace: "ns", Name: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	b.Spec.Clusters = nil
	_, spec, err := a.Peek(Key{Namespace: "ns", Name: "shared"})
	if err != nil || len(spec.Clusters) != 1 {
		t.Errorf("Peek after changing a working copy: %v, %v; want the informer's, unchanged", spec, err)
	}
	c, err := a.Get(Key{Name: "shared"})
	if err != nil || c.Meta.GetUID() != "c" {
		t.Errorf("the ClusterResourceBinding of the same name: %v, %v", c, err)
	}
	if _, err := a.Get(Key{Namespace: "ns", Name: "gone"}); !apierrors.IsNotFound(err) {
		t.Errorf("a missing binding: %v, want NotFound", err)
	}
	if _, _, err := a.Peek(Key{Name: "gone"}); !apierrors.IsNotFound(err) {
		t.Errorf("a missing cluster binding: %v, want NotFound", err)
	}
}

// TestWritesAreReadBack: an update and a status update are stored, and the view reads
// them back; Create makes either kind, Delete of a binding already gone is no error.
func TestWritesAreReadBack(t *testing.T) {
	a, client := newAccess(t, rb("ns", "app", "member1"))
	k := Key{Namespace: "ns", Name: "app"}
	b, err := a.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	b.Spec.Clusters = []federationv1alpha1.TargetCluster{{Name: "member2", Replicas: 3}}
	if err := b.Update(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Served at once by the view where resourceVersions tell the newer copy (the mutation
	// package's tests); the fake clientset keeps none, so here once the informer has it.
	eventually(t, "the update read back", func() bool {
		_, spec, err := a.Peek(k)
		return err == nil && len(spec.Clusters) == 1 && spec.Clusters[0].Name == "member2"
	})
	b.Status.SchedulerObservedGeneration = 7
	if err := b.UpdateStatus(context.Background()); err != nil {
		t.Fatal(err)
	}
	stored, err := client.FederationV1alpha1().ResourceBindings("ns").Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil || stored.Status.SchedulerObservedGeneration != 7 || stored.Spec.Clusters[0].Name != "member2" {
		t.Errorf("stored: %+v, %v", stored, err)
	}

	spec2 := &federationv1alpha1.ResourceBindingSpec{Replicas: 2}
	meta := metav1.ObjectMeta{Labels: map[string]string{"l": "v"}}
	if err := a.Create(context.Background(), Key{Namespace: "ns", Name: "new"}, meta, spec2); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(context.Background(), Key{Name: "cluster-new"}, meta, spec2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the informers have both", func() bool {
		m1, s1, err1 := a.Peek(Key{Namespace: "ns", Name: "new"})
		m2, _, err2 := a.Peek(Key{Name: "cluster-new"})
		return err1 == nil && err2 == nil && s1.Replicas == 2 && m1.GetLabels()["l"] == "v" && m2.GetNamespace() == ""
	})
	if err := a.Delete(context.Background(), Key{Namespace: "ns", Name: "new"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(context.Background(), Key{Namespace: "ns", Name: "new"}, ""); err != nil {
		t.Errorf("deleting it again: %v, want no error", err)
	}
}

// TestKeysAndSettled: Keys lists both kinds, or one namespace's ResourceBindings; Settled
// tells each OnSettled function.
func TestKeysAndSettled(t *testing.T) {
	a, _ := newAccess(t, rb("a", "one"), rb("b", "two"), &federationv1alpha1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "three"}})
	all := a.Keys(metav1.NamespaceAll)
	for _, k := range []Key{{"a", "one"}, {"b", "two"}, {"", "three"}} {
		if !slices.Contains(all, k) {
			t.Errorf("Keys() = %v, without %v", all, k)
		}
	}
	if got := a.Keys("a"); !slices.Equal(got, []Key{{"a", "one"}}) {
		t.Errorf("Keys(a) = %v", got)
	}
	var told []Key
	a.OnSettled(func(k Key) { told = append(told, k) })
	a.OnSettled(func(k Key) { told = append(told, k) })
	a.Settled(Key{"a", "one"})
	if len(told) != 2 || told[0] != (Key{"a", "one"}) {
		t.Errorf("told %v, want the key twice", told)
	}
}
