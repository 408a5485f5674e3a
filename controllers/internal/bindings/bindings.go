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

// Package bindings gives fed's controllers one view of ResourceBindings and
// ClusterResourceBindings, which share their spec and status but not their clients.
//
// The view is shared by the controllers of one process: what one of them writes, the
// others read at once (a mutation cache over the informers), so that none of them acts on,
// or writes over, a copy older than the process's own last write.
package bindings

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/mutation"
)

// Key names a binding: a ResourceBinding when Namespace is set, a ClusterResourceBinding
// when it is empty.
type Key struct{ Namespace, Name string }

// Binding is a working copy of either kind of binding, to read and change, and write back.
type Binding struct {
	Meta   metav1.Object
	Spec   *federationv1alpha1.ResourceBindingSpec
	Status *federationv1alpha1.ResourceBindingStatus

	update, updateStatus func(context.Context) error
}

// Update writes the copy's spec and metadata; the copy then has the stored version.
func (b *Binding) Update(ctx context.Context) error { return b.update(ctx) }

// UpdateStatus writes the copy's status; the copy then has the stored version.
func (b *Binding) UpdateStatus(ctx context.Context) error { return b.updateStatus(ctx) }

// Access reads bindings from informers, newer copies written by this process first, and
// writes them with fed's client.
type Access struct {
	fed       versioned.Interface
	informers []cache.SharedIndexInformer
	rbs, crbs *mutation.Cache
	rbLister  fedlisters.ResourceBindingLister
	crbLister fedlisters.ClusterResourceBindingLister
	// settled are told of each binding whose Works are as its spec says (Settled).
	settled []func(Key)
}

// OnSettled has f told of each binding Settled from now on; call it before anything runs.
func (a *Access) OnSettled(f func(Key)) { a.settled = append(a.settled, f) }

// Settled says that the Works of a binding are as its spec says, though the binding or its
// template changed: the binding controller says it when it had no Work to write, and the
// status path, which otherwise follows the Works' own changes, writes the binding's status.
func (a *Access) Settled(k Key) {
	for _, f := range a.settled {
		f(k)
	}
}

// NewAccess returns an Access over the informers of both kinds.
func NewAccess(fed versioned.Interface, rbs fedinformers.ResourceBindingInformer, crbs fedinformers.ClusterResourceBindingInformer) (*Access, error) {
	a := &Access{fed: fed, informers: []cache.SharedIndexInformer{rbs.Informer(), crbs.Informer()},
		rbs: mutation.New(rbs.Informer()), crbs: mutation.New(crbs.Informer()),
		rbLister: rbs.Lister(), crbLister: crbs.Lister()}
	for i, mc := range []*mutation.Cache{a.rbs, a.crbs} {
		if _, err := a.informers[i].AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { mc.Observe(obj, false) },
			UpdateFunc: func(_, obj any) { mc.Observe(obj, false) },
			DeleteFunc: func(obj any) { mc.Observe(obj, true) },
		}); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Informers are the informers the view reads, for event handlers.
func (a *Access) Informers() []cache.SharedIndexInformer { return a.informers }

// HasSynced says whether both informers have listed.
func (a *Access) HasSynced() bool {
	return a.informers[0].HasSynced() && a.informers[1].HasSynced()
}

// Get returns a working copy of a binding, or a NotFound error.
func (a *Access) Get(k Key) (*Binding, error) {
	if k.Namespace != "" {
		obj, err := get(a.rbs, k, federationv1alpha1.Resource("resourcebindings"))
		if err != nil {
			return nil, err
		}
		b := obj.(*federationv1alpha1.ResourceBinding).DeepCopy()
		return working(a.rbs, b, &b.Spec, &b.Status, a.fed.FederationV1alpha1().ResourceBindings(k.Namespace)), nil
	}
	obj, err := get(a.crbs, k, federationv1alpha1.Resource("clusterresourcebindings"))
	if err != nil {
		return nil, err
	}
	b := obj.(*federationv1alpha1.ClusterResourceBinding).DeepCopy()
	return working(a.crbs, b, &b.Spec, &b.Status, a.fed.FederationV1alpha1().ClusterResourceBindings()), nil
}

// Peek returns a binding's metadata and spec as the view has them, shared and not to be
// changed: for a controller to tell whether a binding is one it acts on before it takes a
// working copy (Get), which most bindings are not worth.
func (a *Access) Peek(k Key) (metav1.Object, *federationv1alpha1.ResourceBindingSpec, error) {
	if k.Namespace != "" {
		obj, err := get(a.rbs, k, federationv1alpha1.Resource("resourcebindings"))
		if err != nil {
			return nil, nil, err
		}
		b := obj.(*federationv1alpha1.ResourceBinding)
		return b, &b.Spec, nil
	}
	obj, err := get(a.crbs, k, federationv1alpha1.Resource("clusterresourcebindings"))
	if err != nil {
		return nil, nil, err
	}
	b := obj.(*federationv1alpha1.ClusterResourceBinding)
	return b, &b.Spec, nil
}

// Create creates the binding k with the labels and annotations of meta (its name and
// namespace are k's) and spec. The view serves it once the informer has it: it serves
// newer copies of the bindings the informer has, not bindings it has not seen.
func (a *Access) Create(ctx context.Context, k Key, meta metav1.ObjectMeta, spec *federationv1alpha1.ResourceBindingSpec) error {
	meta.Name, meta.Namespace = k.Name, k.Namespace
	var err error
	if k.Namespace != "" {
		_, err = a.fed.FederationV1alpha1().ResourceBindings(k.Namespace).Create(ctx,
			&federationv1alpha1.ResourceBinding{ObjectMeta: meta, Spec: *spec}, metav1.CreateOptions{})
	} else {
		_, err = a.fed.FederationV1alpha1().ClusterResourceBindings().Create(ctx,
			&federationv1alpha1.ClusterResourceBinding{ObjectMeta: meta, Spec: *spec}, metav1.CreateOptions{})
	}
	return err
}

// Delete deletes the binding k if it is still the one of uid (any, when uid is empty); one
// already gone is no error.
func (a *Access) Delete(ctx context.Context, k Key, uid types.UID) error {
	opts := metav1.DeleteOptions{}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	var err error
	if k.Namespace != "" {
		err = a.fed.FederationV1alpha1().ResourceBindings(k.Namespace).Delete(ctx, k.Name, opts)
	} else {
		err = a.fed.FederationV1alpha1().ClusterResourceBindings().Delete(ctx, k.Name, opts)
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// object is a pointer to a binding kind.
type object[T any] interface {
	*T
	runtime.Object
	metav1.Object
	DeepCopy() *T
}

// writer is the generated client of one binding kind.
type writer[P any] interface {
	Update(context.Context, P, metav1.UpdateOptions) (P, error)
	UpdateStatus(context.Context, P, metav1.UpdateOptions) (P, error)
}

// working is b, a copy of a binding of the view mc, as a Binding that writes with client.
func working[T any, P object[T]](mc *mutation.Cache, b P, spec *federationv1alpha1.ResourceBindingSpec,
	status *federationv1alpha1.ResourceBindingStatus, client writer[P]) *Binding {
	return &Binding{Meta: b, Spec: spec, Status: status,
		update: func(ctx context.Context) error {
			return written(mc, b, func() (P, error) { return client.Update(ctx, b, metav1.UpdateOptions{}) })
		},
		updateStatus: func(ctx context.Context) error {
			return written(mc, b, func() (P, error) { return client.UpdateStatus(ctx, b, metav1.UpdateOptions{}) })
		},
	}
}

// written runs a write of b and, when it succeeds, makes b the stored version and lets the
// view serve a copy of it until the informer has it.
func written[T any, P object[T]](mc *mutation.Cache, b P, write func() (P, error)) error {
	out, err := write()
	if err != nil {
		return err
	}
	mc.Wrote(P(out.DeepCopy()))
	*b = *out
	return nil
}

// get reads a binding from a view, or returns NotFound.
func get(mc *mutation.Cache, k Key, gr schema.GroupResource) (any, error) {
	obj, exists, err := mc.GetByKey(cache.NewObjectName(k.Namespace, k.Name).String())
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(gr, k.Name)
	}
	return obj, nil
}

// ResourceBindings lists ResourceBindings as the informer has them, for reading only.
func (a *Access) ResourceBindings() fedlisters.ResourceBindingLister { return a.rbLister }

// Keys returns the keys of every binding, or of the ResourceBindings of one namespace.
func (a *Access) Keys(namespace string) []Key {
	var out []Key
	if rbs, err := a.rbLister.ResourceBindings(namespace).List(labels.Everything()); err == nil {
		for _, b := range rbs {
			out = append(out, Key{Namespace: b.Namespace, Name: b.Name})
		}
	}
	if namespace != "" {
		return out
	}
	if crbs, err := a.crbLister.List(labels.Everything()); err == nil {
		for _, b := range crbs {
			out = append(out, Key{Name: b.Name})
		}
	}
	return out
}

// Placed writes a placement for events and messages: each cluster, with its replicas
// when it has some ("member1 (2), member2 (1)"); "no cluster" for none.
func Placed(clusters []federationv1alpha1.TargetCluster) string {
	if len(clusters) == 0 {
		return "no cluster"
	}
	parts := make([]string, len(clusters))
	for i, t := range clusters {
		parts[i] = t.Name
		if t.Replicas > 0 {
			parts[i] += fmt.Sprintf(" (%d)", t.Replicas)
		}
	}
	return strings.Join(parts, ", ")
}

// Of is the key and spec of a ResourceBinding or ClusterResourceBinding an informer hands
// a handler (a deleted one's too); false for anything else.
func Of(obj any) (Key, *federationv1alpha1.ResourceBindingSpec, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	switch b := obj.(type) {
	case *federationv1alpha1.ResourceBinding:
		return Key{Namespace: b.Namespace, Name: b.Name}, &b.Spec, true
	case *federationv1alpha1.ClusterResourceBinding:
		return Key{Name: b.Name}, &b.Spec, true
	}
	return Key{}, nil, false
}
