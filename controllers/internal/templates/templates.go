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

// Package templates shares the fleet's resource templates among fed's controllers: one
// informer per kind of the fleet API, started the first time a controller asks for it, and
// the mapping between kinds and resources.
package templates

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/trim"
)

// Handler is told when a template of a kind changes.
type Handler func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured)

// Templates is the fleet's templates as informers see them.
type Templates struct {
	// Client writes templates (their status).
	Client dynamic.Interface
	mapper meta.ResettableRESTMapper

	factory  dynamicinformer.DynamicSharedInformerFactory
	mu       sync.Mutex
	ctx      context.Context
	watched  map[schema.GroupVersionResource]cache.SharedIndexInformer
	handlers []Handler
}

// New returns Templates reading the fleet API with client; mapper maps kinds to the
// fleet's resources.
func New(client dynamic.Interface, mapper meta.ResettableRESTMapper) *Templates {
	return &Templates{
		Client:  client,
		mapper:  mapper,
		factory: dynamicinformer.NewDynamicSharedInformerFactory(client, 0),
		watched: map[schema.GroupVersionResource]cache.SharedIndexInformer{},
	}
}

// AddHandler registers a handler for every kind watched, now or later. Handlers must be
// added before Start.
func (t *Templates) AddHandler(h Handler) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.handlers = append(t.handlers, h)
}

// Start lets informers run until ctx ends; informers asked for before start now.
func (t *Templates) Start(ctx context.Context) {
	t.mu.Lock()
	t.ctx = ctx
	t.mu.Unlock()
	t.factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		t.factory.Shutdown()
	}()
}

// Resource maps a template's apiVersion and kind to its resource in the fleet. A kind the
// mapper does not know makes it read discovery again once (a CRD may be new).
func (t *Templates) Resource(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	mapping, err := t.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if meta.IsNoMatchError(err) {
		t.mapper.Reset()
		mapping, err = t.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	}
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	return mapping.Resource, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// Kind maps a resource of the fleet to its kind.
func (t *Templates) Kind(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return t.mapper.KindFor(gvr)
}

// Watch starts the informer of a resource once and returns it; nil before Start.
func (t *Templates) Watch(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if inf, ok := t.watched[gvr]; ok {
		return inf
	}
	if t.ctx == nil {
		return nil
	}
	inf := t.factory.ForResource(gvr).Informer()
	// Templates are kept as their writers wrote them, without the defaults the fleet
	// stores (trim.WritersOnly), compact (about a fifth of their unstructured size), and
	// decoded again once for each event and each Get.
	_ = inf.SetTransform(func(obj any) (any, error) { // a new informer, not started yet: never fails
		if u, ok := obj.(*unstructured.Unstructured); ok {
			trim.WritersOnly(u)
		}
		return trim.Compact(obj)
	})
	handlers := t.handlers
	notify := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u := trim.Whole(obj); u != nil {
			for _, h := range handlers {
				h(gvr, u)
			}
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    notify,
		UpdateFunc: func(_, obj any) { notify(obj) },
		DeleteFunc: notify,
	}); err != nil {
		return nil
	}
	t.factory.Start(t.ctx.Done())
	t.watched[gvr] = inf
	return inf
}

// ErrNotSynced says a kind's informer has not listed its templates yet; callers retry.
var ErrNotSynced = fmt.Errorf("the fleet's templates are not listed yet: %w", reconciler.ErrRetrySoon)

// Get returns a template from the informer of its resource, starting it if needed. It
// returns ErrNotSynced until the informer has listed, and a NotFound error when the
// template does not exist.
func (t *Templates) Get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	inf := t.Watch(gvr)
	if inf == nil || !inf.HasSynced() {
		return nil, ErrNotSynced
	}
	obj, exists, err := inf.GetIndexer().GetByKey(cache.NewObjectName(namespace, name).String())
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	u, ok, err := trim.Unstructured(obj)
	if err == nil && !ok {
		err = fmt.Errorf("the informer of %s holds a %T", gvr, obj)
	}
	return u, err
}

// List returns the templates of a resource the informer has, each decoded (a copy of its
// own), nil before it synced. ListMeta is cheaper for what needs their metadata only.
func (t *Templates) List(gvr schema.GroupVersionResource) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, obj := range t.list(gvr) {
		if u := trim.Whole(obj); u != nil {
			out = append(out, u)
		}
	}
	return out
}

// ListMeta returns the metadata of the templates of a resource the informer has (name,
// namespace, UID, labels, annotations), nil before it synced. It is the informer's own:
// callers do not change it.
func (t *Templates) ListMeta(gvr schema.GroupVersionResource) []metav1.Object {
	var out []metav1.Object
	for _, obj := range t.list(gvr) {
		if m, err := meta.Accessor(obj); err == nil {
			out = append(out, m)
		}
	}
	return out
}

func (t *Templates) list(gvr schema.GroupVersionResource) []any {
	inf := t.Watch(gvr)
	if inf == nil || !inf.HasSynced() {
		return nil
	}
	return inf.GetStore().List()
}

// Ref returns the template a binding names, by its reference.
func (t *Templates) Ref(ref federationv1alpha1.ObjectReference) (*unstructured.Unstructured, schema.GroupVersionResource, error) {
	gvr, _, err := t.Resource(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, gvr, err
	}
	obj, err := t.Get(gvr, ref.Namespace, ref.Name)
	return obj, gvr, err
}

// Bound returns the template a binding names, or false when there is none to work for:
// the detector deletes the binding of a template that is gone, and the binding of an older
// template of the same name, or of one on its way out, waits.
func (t *Templates) Bound(ref federationv1alpha1.ObjectReference) (*unstructured.Unstructured, schema.GroupVersionResource, bool, error) {
	tmpl, gvr, err := t.Ref(ref)
	if apierrors.IsNotFound(err) {
		return nil, gvr, false, nil
	}
	if err != nil {
		return nil, gvr, false, err
	}
	if tmpl.GetUID() != ref.UID || tmpl.GetDeletionTimestamp() != nil {
		return nil, gvr, false, nil
	}
	return tmpl, gvr, true, nil
}
