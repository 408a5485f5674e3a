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

package detector

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
)

// key names a template.
type key struct {
	GVR             schema.GroupVersionResource
	Namespace, Name string
}

// Controller binds templates to the policies that select them: for each template of the
// fleet it keeps one ResourceBinding (namespaced template) or ClusterResourceBinding
// (cluster-scoped) that says which policy propagates it and how, or none when no policy
// selects it. It watches the policies, and the templates of every kind a policy names.
type Controller struct {
	fed      versioned.Interface
	mapper   meta.ResettableRESTMapper
	policies fedlisters.PropagationPolicyLister
	cluster  fedlisters.ClusterPropagationPolicyLister
	rbs      fedlisters.ResourceBindingLister
	crbs     fedlisters.ClusterResourceBindingLister
	synced   []cache.InformerSynced

	templates dynamicinformer.DynamicSharedInformerFactory
	mu        sync.Mutex
	watched   map[schema.GroupVersionResource]cache.GenericLister
	ctx       context.Context

	queue workqueue.TypedRateLimitingInterface[key]
}

// NewController watches policies and bindings with the fed informers and templates with
// fleet, a dynamic client of the fleet API; mapper maps the kinds policies name to the
// fleet's resources.
func NewController(fed versioned.Interface, fleet dynamic.Interface, mapper meta.ResettableRESTMapper,
	pps fedinformers.PropagationPolicyInformer, cpps fedinformers.ClusterPropagationPolicyInformer,
	rbs fedinformers.ResourceBindingInformer, crbs fedinformers.ClusterResourceBindingInformer) (*Controller, error) {
	c := &Controller{
		fed:       fed,
		mapper:    mapper,
		policies:  pps.Lister(),
		cluster:   cpps.Lister(),
		rbs:       rbs.Lister(),
		crbs:      crbs.Lister(),
		synced:    []cache.InformerSynced{pps.Informer().HasSynced, cpps.Informer().HasSynced, rbs.Informer().HasSynced, crbs.Informer().HasSynced},
		templates: dynamicinformer.NewDynamicSharedInformerFactory(fleet, 0),
		watched:   map[schema.GroupVersionResource]cache.GenericLister{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[key](),
			workqueue.TypedRateLimitingQueueConfig[key]{Name: "detector"}),
	}
	policyChanged := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		var spec *federationv1alpha1.PropagationSpec
		switch p := obj.(type) {
		case *federationv1alpha1.PropagationPolicy:
			spec = &p.Spec
		case *federationv1alpha1.ClusterPropagationPolicy:
			spec = &p.Spec
		default:
			return
		}
		c.policyChanged(spec)
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    policyChanged,
		UpdateFunc: func(old, obj any) { policyChanged(old); policyChanged(obj) },
		DeleteFunc: policyChanged,
	}
	for _, inf := range []cache.SharedIndexInformer{pps.Informer(), cpps.Informer()} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
	}
	// A binding changed by someone else is put back.
	bindingChanged := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		var ref federationv1alpha1.ObjectReference
		switch b := obj.(type) {
		case *federationv1alpha1.ResourceBinding:
			ref = b.Spec.Resource
		case *federationv1alpha1.ClusterResourceBinding:
			ref = b.Spec.Resource
		default:
			return
		}
		c.enqueueRef(ref)
	}
	for _, inf := range []cache.SharedIndexInformer{rbs.Informer(), crbs.Informer()} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) { bindingChanged(obj) },
			DeleteFunc: bindingChanged,
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// policyChanged starts watching the kinds a policy names and looks again at their
// templates.
func (c *Controller) policyChanged(spec *federationv1alpha1.PropagationSpec) {
	for _, sel := range spec.ResourceSelectors {
		gvr, err := c.resourceFor(sel.APIVersion, sel.Kind)
		if err != nil {
			klog.V(2).InfoS("A policy names a kind the fleet does not serve", "apiVersion", sel.APIVersion, "kind", sel.Kind, "err", err)
			continue
		}
		lister := c.watch(gvr)
		if lister == nil {
			continue
		}
		objs, err := lister.List(labels.Everything())
		if err != nil {
			continue
		}
		for _, obj := range objs {
			if m, err := meta.Accessor(obj); err == nil {
				c.queue.Add(key{GVR: gvr, Namespace: m.GetNamespace(), Name: m.GetName()})
			}
		}
	}
}

func (c *Controller) resourceFor(apiVersion, kind string) (schema.GroupVersionResource, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	mapping, err := c.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset() // a CRD may have been applied since
		mapping, err = c.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	}
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return mapping.Resource, nil
}

func (c *Controller) enqueueRef(ref federationv1alpha1.ObjectReference) {
	gvr, err := c.resourceFor(ref.APIVersion, ref.Kind)
	if err != nil {
		return
	}
	c.queue.Add(key{GVR: gvr, Namespace: ref.Namespace, Name: ref.Name})
}

// watch starts an informer for the templates of a resource once, and returns its lister.
func (c *Controller) watch(gvr schema.GroupVersionResource) cache.GenericLister {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.watched[gvr]; ok {
		return l
	}
	if c.ctx == nil {
		return nil // Run starts the informers of the policies seen before
	}
	inf := c.templates.ForResource(gvr)
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil {
			c.queue.Add(key{GVR: gvr, Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		utilruntime.HandleError(err)
		return nil
	}
	c.templates.Start(c.ctx.Done())
	c.watched[gvr] = inf.Lister()
	return inf.Lister()
}

// Run reconciles templates with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
	// The policies that came before Run: watch their kinds now.
	if pps, err := c.policies.List(labels.Everything()); err == nil {
		for _, p := range pps {
			c.policyChanged(&p.Spec)
		}
	}
	if cpps, err := c.cluster.List(labels.Everything()); err == nil {
		for _, p := range cpps {
			c.policyChanged(&p.Spec)
		}
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.worker, time.Second)
	}
	<-ctx.Done()
	c.templates.Shutdown()
}

func (c *Controller) worker(ctx context.Context) {
	for {
		k, quit := c.queue.Get()
		if quit {
			return
		}
		if err := c.reconcile(ctx, k); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Binding a template", "resource", k.GVR, "namespace", k.Namespace, "name", k.Name)
			c.queue.AddRateLimited(k)
		} else {
			c.queue.Forget(k)
		}
		c.queue.Done(k)
	}
}

// reconcile makes the binding of one template what its best policy says.
func (c *Controller) reconcile(ctx context.Context, k key) error {
	c.mu.Lock()
	lister := c.watched[k.GVR]
	c.mu.Unlock()
	if lister == nil {
		return nil
	}
	var obj runtime.Object
	var err error
	if k.Namespace != "" {
		obj, err = lister.ByNamespace(k.Namespace).Get(k.Name)
	} else {
		obj, err = lister.Get(k.Name)
	}
	if apierrors.IsNotFound(err) {
		return c.deleteBinding(ctx, k)
	}
	if err != nil {
		return err
	}
	tmpl, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("template %T", obj)
	}
	if tmpl.GetDeletionTimestamp() != nil {
		return nil
	}
	best, err := c.bestPolicy(tmpl)
	if err != nil {
		return err
	}
	name := BindingName(tmpl.GetKind(), tmpl.GetName())
	var want *federationv1alpha1.ResourceBindingSpec
	var labels map[string]string
	if best != nil {
		spec := BindingSpec(tmpl, best)
		want, labels = &spec, BindingLabels(best)
	}
	bindings := c.fed.FederationV1alpha1()
	if ns := k.Namespace; ns != "" {
		current, err := c.rbs.ResourceBindings(ns).Get(name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return syncBinding(ctx, bindings.ResourceBindings(ns), current, err == nil,
			func() *federationv1alpha1.ResourceBinding {
				return &federationv1alpha1.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
			},
			func(b *federationv1alpha1.ResourceBinding) *federationv1alpha1.ResourceBindingSpec { return &b.Spec }, want, labels)
	}
	current, err := c.crbs.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return syncBinding(ctx, bindings.ClusterResourceBindings(), current, err == nil,
		func() *federationv1alpha1.ClusterResourceBinding {
			return &federationv1alpha1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
		},
		func(b *federationv1alpha1.ClusterResourceBinding) *federationv1alpha1.ResourceBindingSpec {
			return &b.Spec
		}, want, labels)
}

// bestPolicy is the policy that propagates a template, or nil.
func (c *Controller) bestPolicy(tmpl *unstructured.Unstructured) (*Policy, error) {
	var policies []Policy
	if ns := tmpl.GetNamespace(); ns != "" {
		pps, err := c.policies.PropagationPolicies(ns).List(labels.Everything())
		if err != nil {
			return nil, err
		}
		for _, p := range pps {
			if p.DeletionTimestamp == nil {
				policies = append(policies, Policy{Namespace: p.Namespace, Name: p.Name, Spec: &p.Spec})
			}
		}
	}
	cpps, err := c.cluster.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, p := range cpps {
		if p.DeletionTimestamp == nil {
			policies = append(policies, Policy{Name: p.Name, Spec: &p.Spec})
		}
	}
	return Best(tmpl, policies), nil
}

// bindingObject is a ResourceBinding or a ClusterResourceBinding.
type bindingObject interface {
	metav1.Object
	runtime.Object
}

// bindingClient is the typed client of ResourceBindings or ClusterResourceBindings.
type bindingClient[T bindingObject] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// syncBinding makes a binding what want says: deleted when want is nil, created, or
// updated when its spec (but for the scheduler's clusters) or labels differ. current is
// the binding the informer has, if exists; fresh makes a new one with its name.
func syncBinding[T bindingObject](ctx context.Context, client bindingClient[T], current T, exists bool, fresh func() T,
	specOf func(T) *federationv1alpha1.ResourceBindingSpec, want *federationv1alpha1.ResourceBindingSpec, labels map[string]string) error {
	if want == nil {
		if !exists {
			return nil
		}
		uid := current.GetUID()
		return ignoreNotFound(client.Delete(ctx, current.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}))
	}
	if !exists {
		b := fresh()
		*specOf(b) = *want
		b.SetLabels(labels)
		_, err := client.Create(ctx, b, metav1.CreateOptions{})
		return err
	}
	want.Clusters = specOf(current).Clusters
	if apiequality.Semantic.DeepEqual(*specOf(current), *want) && apiequality.Semantic.DeepEqual(current.GetLabels(), labels) {
		return nil
	}
	b := current.DeepCopyObject().(T)
	*specOf(b) = *want
	b.SetLabels(labels)
	_, err := client.Update(ctx, b, metav1.UpdateOptions{})
	return err
}

// deleteBinding deletes the binding of a template that is gone.
func (c *Controller) deleteBinding(ctx context.Context, k key) error {
	gvk, err := c.mapper.KindFor(k.GVR)
	if err != nil {
		return err
	}
	name := BindingName(gvk.Kind, k.Name)
	if k.Namespace != "" {
		if _, err := c.rbs.ResourceBindings(k.Namespace).Get(name); apierrors.IsNotFound(err) {
			return nil
		}
		return ignoreNotFound(c.fed.FederationV1alpha1().ResourceBindings(k.Namespace).Delete(ctx, name, metav1.DeleteOptions{}))
	}
	if _, err := c.crbs.Get(name); apierrors.IsNotFound(err) {
		return nil
	}
	return ignoreNotFound(c.fed.FederationV1alpha1().ClusterResourceBindings().Delete(ctx, name, metav1.DeleteOptions{}))
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
