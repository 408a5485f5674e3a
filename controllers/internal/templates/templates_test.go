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

package templates

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// resettable is a fixed mapper that has nothing to read again.
type resettable struct{ meta.RESTMapper }

func (resettable) Reset() {}

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

func deployment(name, uid string, deleting bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetUID(k8stypes.UID(uid))
	if deleting {
		u.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
		u.SetFinalizers([]string{"f"})
	}
	return u
}

// TestBound: a binding works for its template only while the fleet has that very one (its
// UID), not on its way out; kinds map both ways; reads wait for the informer to list.
func TestBound(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{deployments: "DeploymentList"},
		deployment("web", "u1", false), deployment("old", "u2", true))
	tmpls := New(client, resettable{mapper})
	if _, err := tmpls.Get(deployments, "ns", "web"); !errors.Is(err, reconciler.ErrRetrySoon) {
		t.Errorf("before the informer runs: %v, want ErrNotSynced (retry soon)", err)
	}
	var told []string
	tmpls.AddHandler(func(_ schema.GroupVersionResource, obj *unstructured.Unstructured) {
		told = append(told, obj.GetName())
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tmpls.Start(ctx)

	ref := func(name, uid string) federationv1alpha1.ObjectReference {
		return federationv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: name, UID: k8stypes.UID(uid)}
	}
	var got *unstructured.Unstructured
	var ok bool
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, _, ok, err = tmpls.Bound(ref("web", "u1"))
		if !errors.Is(err, reconciler.ErrRetrySoon) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || !ok || got.GetName() != "web" {
		t.Fatalf("Bound(web, its UID): %v, %v, %v", got, ok, err)
	}
	for _, c := range []struct{ name, uid string }{{"web", "an-older-one"}, {"old", "u2"}, {"gone", "u3"}} {
		if _, _, ok, err := tmpls.Bound(ref(c.name, c.uid)); ok || err != nil {
			t.Errorf("Bound(%s, %s): %v, %v; want nothing to work for", c.name, c.uid, ok, err)
		}
	}
	if _, err := tmpls.Get(deployments, "ns", "gone"); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing template: %v, want NotFound", err)
	}
	if gvr, namespaced, err := tmpls.Resource("apps/v1", "Deployment"); err != nil || gvr != deployments || !namespaced {
		t.Errorf("Resource: %v %v %v", gvr, namespaced, err)
	}
	if gvk, err := tmpls.Kind(deployments); err != nil || gvk.Kind != "Deployment" {
		t.Errorf("Kind: %v %v", gvk, err)
	}
	if n := len(tmpls.List(deployments)); n != 2 {
		t.Errorf("List: %d templates, want 2", n)
	}
	if len(told) != 2 {
		t.Errorf("handlers told of %v, want both templates", told)
	}
}
