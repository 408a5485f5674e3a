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
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"

	"github.com/fedhq/fed/apiserver/fleet/crd"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
	"github.com/fedhq/fed/apiserver/storage/badger"
	badgeroptions "github.com/fedhq/fed/apiserver/storage/badger/options"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.io}
spec:
  group: example.io
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 0}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

// storageFactory stores every resource with the defaults; the fleet's optsGetter sets
// the codec and prefix.
type storageFactory struct{ serverstorage.StorageFactory }

func (storageFactory) NewConfig(gr schema.GroupResource, _ runtime.Object) (*storagebackend.ConfigForResource, error) {
	return storagebackend.NewDefaultConfig("/registry", nil).ForResource(gr), nil
}
func (storageFactory) ResourcePrefix(gr schema.GroupResource) string { return gr.String() }

// testOptsGetter stores templates in an in-memory Badger database, behind the watch cache.
func testOptsGetter(t *testing.T) optsGetter {
	t.Helper()
	db, err := badger.Open("", badger.WithInMemory(), badger.WithCompactionInterval(0), badger.WithValueLogGCInterval(0),
		badger.WithProgressNotifyInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return optsGetter{&badgeroptions.RESTOptionsGetter{DB: db, StorageFactory: storageFactory{}, EnableWatchCache: true}}
}

func widget(replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "a"},
		"spec":     map[string]any{"replicas": replicas},
	}}
}

// TestCustomResourceSubresources serves a custom resource's status and scale with
// apiextensions' storage, on the storage of the fleet's store of the kind.
func TestCustomResourceSubresources(t *testing.T) {
	versions, err := crd.Versions(mustUnstructured(t, widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStorage(customResource(versions[0]), testOptsGetter(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.destroy)
	if _, ok := st.status.(*customresource.StatusREST); !ok {
		t.Fatalf("status is served by %T", st.status)
	}
	if _, ok := st.scale.(*customresource.ScaleREST); !ok {
		t.Fatalf("scale is served by %T", st.scale)
	}
	ctx := request.WithNamespace(context.Background(), "a")
	if _, err := st.main.Create(ctx, widget(2), rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	get := func() *unstructured.Unstructured {
		t.Helper()
		obj, err := st.main.Get(ctx, "w", &metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*unstructured.Unstructured)
	}
	updateStatus := func(status map[string]any) error {
		obj := get()
		obj.Object["status"] = status
		_ = unstructured.SetNestedField(obj.Object, int64(9), "spec", "replicas")
		_, _, err := st.status.Update(ctx, "w", rest.DefaultUpdatedObjectInfo(obj), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		return err
	}

	if err := updateStatus(map[string]any{"replicas": int64(2), "selector": "app=w"}); err != nil {
		t.Fatal(err)
	}
	obj := get()
	if replicas, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); replicas != 2 || obj.GetGeneration() != 1 {
		t.Errorf("a status update changed spec.replicas to %d, generation to %d", replicas, obj.GetGeneration())
	}
	if selector, _, _ := unstructured.NestedString(obj.Object, "status", "selector"); selector != "app=w" {
		t.Errorf("a status update did not write status: %v", obj.Object["status"])
	}
	if err := updateStatus(map[string]any{"replicas": int64(-2)}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), ".status.replicas: Invalid value: -2: should be a non-negative integer") {
		t.Errorf("a negative status.replicas: %v", err)
	}

	got, err := st.scale.Get(ctx, "w", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if scale := got.(*autoscalingv1.Scale); scale.Spec.Replicas != 2 || scale.Status.Replicas != 2 || scale.Status.Selector != "app=w" ||
		scale.ResourceVersion != obj.GetResourceVersion() {
		t.Errorf("scale %+v", scale)
	}
	// The scale's manager owns the replicas in the custom resource's version.
	managedFields := []metav1.ManagedFieldsEntry{{Manager: "scaler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "autoscaling/v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}}
	scaleTo := func(replicas int32, resourceVersion string) error {
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "a", ResourceVersion: resourceVersion, ManagedFields: managedFields},
			Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
		_, _, err := st.scale.Update(ctx, "w", rest.DefaultUpdatedObjectInfo(scale), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		return err
	}
	if err := scaleTo(4, ""); err != nil {
		t.Fatal(err)
	}
	scaled := get()
	if replicas, _, _ := unstructured.NestedInt64(scaled.Object, "spec", "replicas"); replicas != 4 || scaled.GetGeneration() != 2 {
		t.Errorf("scaled to %d, generation %d; want 4, 2", replicas, scaled.GetGeneration())
	}
	if selector, _, _ := unstructured.NestedString(scaled.Object, "status", "selector"); selector != "app=w" {
		t.Errorf("scaling lost the status: %v", scaled.Object["status"])
	}
	if m := scaled.GetManagedFields(); len(m) != 1 || m[0].Manager != "scaler" || m[0].APIVersion != "example.io/v1" ||
		string(m[0].FieldsV1.Raw) != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("managed fields after scaling: %v", m)
	}
	if err := scaleTo(3, obj.GetResourceVersion()); !apierrors.IsConflict(err) {
		t.Errorf("a stale resourceVersion: %v", err)
	}
	if err := scaleTo(-1, ""); !apierrors.IsInvalid(err) {
		t.Errorf("negative replicas: %v", err)
	}
}

// TestNativeSubresources serves a native kind's status with fed's StatusREST and its
// scale with fed's scaleREST.
func TestNativeSubresources(t *testing.T) {
	r := &resource{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, kind: "Deployment",
		listKind: "DeploymentList", singular: "deployment", namespaced: true, status: true, scale: true}
	st, err := newStorage(r, testOptsGetter(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.destroy)
	if _, ok := st.status.(*registrykit.StatusREST); !ok {
		t.Errorf("status is served by %T", st.status)
	}
	if _, ok := st.scale.(*scaleREST); !ok {
		t.Errorf("scale is served by %T", st.scale)
	}
}

// TestEventsExpire: the fleet's events go after their TTL, as kube-apiserver's do after
// --event-ttl; other kinds have none.
func TestEventsExpire(t *testing.T) {
	db, err := badger.Open("", badger.WithInMemory(), badger.WithCompactionInterval(0), badger.WithValueLogGCInterval(0),
		badger.WithProgressNotifyInterval(0), badger.WithTTLCheckInterval(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	getter := optsGetter{&badgeroptions.RESTOptionsGetter{DB: db, StorageFactory: storageFactory{}}}
	r := &resource{gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}, kind: "Event", listKind: "EventList",
		singular: "event", namespaced: true, ttl: time.Second}
	st, err := newStorage(r, getter)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.destroy)
	ctx := request.WithNamespace(context.Background(), "a")
	event := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{"name": "e", "namespace": "a"}, "reason": "Synced", "message": "applied to cluster member1",
		"involvedObject": map[string]any{"kind": "Deployment", "namespace": "a", "name": "web"}}}
	if _, err := st.main.Create(ctx, event, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.main.Get(ctx, "e", &metav1.GetOptions{}); err != nil {
		t.Fatalf("the event is not there at once: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := st.main.Get(ctx, "e", &metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the event is still there 10 s after its TTL of 1 s (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if isEvents(schema.GroupResource{Group: "apps", Resource: "deployments"}) || !isEvents(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}) {
		t.Error("isEvents is wrong")
	}
}

// TestRefreshKeepsServingCRDKinds: a refresh first installs the host's kinds, to read the
// CRDs again from their store; that first set still serves the CRDs' kinds, so that no
// request finds a kind missing while the fleet rereads them.
func TestRefreshKeepsServingCRDKinds(t *testing.T) {
	versions, err := crd.Versions(mustUnstructured(t, widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	f := &Fleet{cfg: Config{RESTOptionsGetter: testOptsGetter(t).delegate}, fedGroups: map[string]bool{}, storages: map[string]*restStorage{},
		ready: make(chan struct{})}
	f.host.Store(&hostState{typeConverter: managedfields.NewDeducedTypeConverter()})
	t.Cleanup(func() {
		for _, st := range f.storages {
			st.destroy()
		}
	})
	if err := f.install([]*resource{customResource(versions[0])}, true); err != nil {
		t.Fatal(err)
	}
	if err := f.install(append(f.host.Load().resources, f.servedCRDKinds()...), false); err != nil {
		t.Fatal(err)
	}
	if f.set.Load().resources[versions[0].GVR] == nil {
		t.Fatalf("the first install of a refresh serves %v no longer", versions[0].GVR)
	}
}
