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

// Package detector makes one binding for each template a propagation policy selects,
// from the policy that wins (package policy says which), and deletes it when none does.
package detector

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
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
	fed       versioned.Interface
	templates *templates.Templates
	policies  fedlisters.PropagationPolicyLister
	cluster   fedlisters.ClusterPropagationPolicyLister
	rbs       fedlisters.ResourceBindingLister
	crbs      fedlisters.ClusterResourceBindingLister
	synced    []cache.InformerSynced

	mu      sync.Mutex
	started bool
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder

	queue workqueue.TypedRateLimitingInterface[key]
}

// NewController watches policies and bindings with the fed informers and the templates of
// the kinds policies name through tmpls, and records events with recorder.
func NewController(fed versioned.Interface, tmpls *templates.Templates,
	pps fedinformers.PropagationPolicyInformer, cpps fedinformers.ClusterPropagationPolicyInformer,
	rbs fedinformers.ResourceBindingInformer, crbs fedinformers.ClusterResourceBindingInformer,
	recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		fed:       fed,
		recorder:  recorder,
		templates: tmpls,
		policies:  pps.Lister(),
		cluster:   cpps.Lister(),
		rbs:       rbs.Lister(),
		crbs:      crbs.Lister(),
		synced:    []cache.InformerSynced{pps.Informer().HasSynced, cpps.Informer().HasSynced, rbs.Informer().HasSynced, crbs.Informer().HasSynced},
		queue:     reconciler.NewQueue[key]("detector"),
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
	tmpls.AddHandler(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
		c.queue.Add(key{GVR: gvr, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	})
	return c, nil
}

// policyChanged starts watching the kinds a policy names and looks again at their
// templates.
func (c *Controller) policyChanged(spec *federationv1alpha1.PropagationSpec) {
	for _, sel := range spec.ResourceSelectors {
		gvr, _, err := c.templates.Resource(sel.APIVersion, sel.Kind)
		if err != nil {
			klog.V(2).InfoS("A policy names a kind the fleet does not serve", "apiVersion", sel.APIVersion, "kind", sel.Kind, "err", err)
			continue
		}
		c.mu.Lock()
		started := c.started
		c.mu.Unlock()
		if !started {
			continue // Run looks at the policies that came before it
		}
		// A new informer tells of every template as it lists them; an old one is asked.
		c.templates.Watch(gvr)
		for _, obj := range c.templates.List(gvr) {
			c.queue.Add(key{GVR: gvr, Namespace: obj.GetNamespace(), Name: obj.GetName()})
		}
	}
}

func (c *Controller) enqueueRef(ref federationv1alpha1.ObjectReference) {
	gvr, _, err := c.templates.Resource(ref.APIVersion, ref.Kind)
	if err != nil {
		return
	}
	c.queue.Add(key{GVR: gvr, Namespace: ref.Namespace, Name: ref.Name})
}

// Run reconciles templates with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		c.queue.ShutDown()
		return
	}
	c.mu.Lock()
	c.started = true
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
	reconciler.Run(ctx, c.queue, workers, nil, "Binding a template", c.reconcile)
}

// reconcile makes the binding of one template what its best policy says.
func (c *Controller) reconcile(ctx context.Context, k key) error {
	tmpl, err := c.templates.Get(k.GVR, k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		return c.deleteBinding(ctx, k)
	}
	if err != nil {
		return err
	}
	if tmpl.GetDeletionTimestamp() != nil {
		return nil
	}
	var best *policy.Policy
	if !Skipped(tmpl) {
		if best, err = c.bestPolicy(tmpl); err != nil {
			return err
		}
	}
	name := federationv1alpha1.BindingName(tmpl.GetKind(), tmpl.GetName())
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
		if err == nil {
			c.policyEvent(tmpl, current.Labels, labels, best)
		} else {
			c.policyEvent(tmpl, nil, labels, best)
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
	if err == nil {
		c.policyEvent(tmpl, current.Labels, labels, best)
	} else {
		c.policyEvent(tmpl, nil, labels, best)
	}
	return syncBinding(ctx, bindings.ClusterResourceBindings(), current, err == nil,
		func() *federationv1alpha1.ClusterResourceBinding {
			return &federationv1alpha1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
		},
		func(b *federationv1alpha1.ClusterResourceBinding) *federationv1alpha1.ResourceBindingSpec {
			return &b.Spec
		}, want, labels)
}

// policyEvent tells on the template that a policy now propagates it.
func (c *Controller) policyEvent(tmpl *unstructured.Unstructured, was, now map[string]string, best *policy.Policy) {
	if best == nil || apiequality.Semantic.DeepEqual(was, now) {
		return
	}
	what := "ClusterPropagationPolicy " + best.Name
	if best.Namespace != "" {
		what = "PropagationPolicy " + best.Namespace + "/" + best.Name
	}
	c.recorder.Eventf(tmpl, corev1.EventTypeNormal, "PolicyApplied", "propagated by %s", what)
}

// bestPolicy is the policy that propagates a template, or nil.
func (c *Controller) bestPolicy(tmpl *unstructured.Unstructured) (*policy.Policy, error) {
	var policies []policy.Policy
	if ns := tmpl.GetNamespace(); ns != "" {
		pps, err := c.policies.PropagationPolicies(ns).List(labels.Everything())
		if err != nil {
			return nil, err
		}
		for _, p := range pps {
			if p.DeletionTimestamp == nil {
				policies = append(policies, policy.Policy{Namespace: p.Namespace, Name: p.Name, Spec: &p.Spec})
			}
		}
	}
	cpps, err := c.cluster.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, p := range cpps {
		if p.DeletionTimestamp == nil {
			policies = append(policies, policy.Policy{Name: p.Name, Spec: &p.Spec})
		}
	}
	return policy.Best(tmpl, policies), nil
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
	gvk, err := c.templates.Kind(k.GVR)
	if err != nil {
		return err
	}
	name := federationv1alpha1.BindingName(gvk.Kind, k.Name)
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
