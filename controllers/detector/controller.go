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
// from the policy that wins (package policy says which, preemption included). A binding
// outlives its policy: when no policy selects the template any more, the binding stays,
// without a policy, until the template goes or another policy takes it.
package detector

import (
	"context"
	"slices"
	"strconv"
	"strings"
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

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/interpreter"
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
	fed              versioned.Interface
	templates        *templates.Templates
	policies         fedlisters.PropagationPolicyLister
	cluster          fedlisters.ClusterPropagationPolicyLister
	rbs              fedlisters.ResourceBindingLister
	crbs             fedlisters.ClusterResourceBindingLister
	overrides        fedlisters.OverridePolicyLister
	clusterOverrides fedlisters.ClusterOverridePolicyLister
	// interpreter reads a template's replicas.
	interpreter *interpreter.Interpreter
	synced      []cache.InformerSynced

	mu      sync.Mutex
	started bool
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder

	queue workqueue.TypedRateLimitingInterface[key]
}

// NewController watches policies, bindings, override policies (the policies' dependent
// overrides) and customizations (whose scripts count replicas, read through interp) with
// the fed informers and the templates of the kinds policies name through tmpls, and
// records events with recorder.
func NewController(fed versioned.Interface, tmpls *templates.Templates,
	pps fedinformers.PropagationPolicyInformer, cpps fedinformers.ClusterPropagationPolicyInformer,
	rbs fedinformers.ResourceBindingInformer, crbs fedinformers.ClusterResourceBindingInformer,
	ops fedinformers.OverridePolicyInformer, cops fedinformers.ClusterOverridePolicyInformer,
	rics fedinformers.ResourceInterpreterCustomizationInformer, interp *interpreter.Interpreter,
	recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		fed:              fed,
		recorder:         recorder,
		templates:        tmpls,
		policies:         pps.Lister(),
		cluster:          cpps.Lister(),
		rbs:              rbs.Lister(),
		crbs:             crbs.Lister(),
		overrides:        ops.Lister(),
		clusterOverrides: cops.Lister(),
		interpreter:      interp,
		synced: []cache.InformerSynced{pps.Informer().HasSynced, cpps.Informer().HasSynced, rbs.Informer().HasSynced, crbs.Informer().HasSynced,
			ops.Informer().HasSynced, cops.Informer().HasSynced, rics.Informer().HasSynced},
		queue: reconciler.NewQueue[key]("detector"),
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
	// An override policy made: the policies waiting for it (dependentOverrides) go on.
	overrideAdded := func(obj any) {
		switch o := obj.(type) {
		case *federationv1alpha1.OverridePolicy:
			c.dependentsOf(o.Namespace)
		case *federationv1alpha1.ClusterOverridePolicy:
			c.dependentsOf("")
		}
	}
	for _, inf := range []cache.SharedIndexInformer{ops.Informer(), cops.Informer()} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: overrideAdded}); err != nil {
			return nil, err
		}
	}
	// A customization changed: its kind's replicas may count otherwise.
	customizationChanged := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if ric, ok := obj.(*federationv1alpha1.ResourceInterpreterCustomization); ok {
			c.kindChanged(ric.Spec.Target.APIVersion, ric.Spec.Target.Kind)
		}
	}
	if _, err := rics.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    customizationChanged,
		UpdateFunc: func(old, obj any) { customizationChanged(old); customizationChanged(obj) },
		DeleteFunc: func(obj any) {
			customizationChanged(obj)
			c.customizationDeleted(obj)
		},
	}); err != nil {
		return nil, err
	}
	tmpls.AddHandler(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
		c.queue.Add(key{GVR: gvr, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	})
	return c, nil
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

// reconcile makes the binding of one template what its policy says.
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
	name := federationv1alpha1.BindingName(tmpl.GetKind(), tmpl.GetName())
	bindings := c.fed.FederationV1alpha1()
	if ns := k.Namespace; ns != "" {
		current, err := c.rbs.ResourceBindings(ns).Get(name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		exists := err == nil
		d, err := c.decide(tmpl, bindingView(current, exists, func(b *federationv1alpha1.ResourceBinding) *federationv1alpha1.ResourceBindingSpec { return &b.Spec }))
		if err == nil && !exists {
			err = c.showHeld(ctx, k.GVR, tmpl, d.held)
		}
		if err != nil || d.keep {
			return err
		}
		return syncBinding(ctx, bindings.ResourceBindings(ns), current, exists,
			func() *federationv1alpha1.ResourceBinding {
				return &federationv1alpha1.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
			},
			func(b *federationv1alpha1.ResourceBinding) *federationv1alpha1.ResourceBindingSpec { return &b.Spec }, d)
	}
	current, err := c.crbs.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	d, err := c.decide(tmpl, bindingView(current, exists, func(b *federationv1alpha1.ClusterResourceBinding) *federationv1alpha1.ResourceBindingSpec {
		return &b.Spec
	}))
	if err == nil && !exists {
		err = c.showHeld(ctx, k.GVR, tmpl, d.held)
	}
	if err != nil || d.keep {
		return err
	}
	return syncBinding(ctx, bindings.ClusterResourceBindings(), current, exists,
		func() *federationv1alpha1.ClusterResourceBinding {
			return &federationv1alpha1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
		},
		func(b *federationv1alpha1.ClusterResourceBinding) *federationv1alpha1.ResourceBindingSpec {
			return &b.Spec
		}, d)
}

// view is what the detector reads of a template's current binding: nil when there is
// none.
type view struct {
	labels, annotations map[string]string
	spec                *federationv1alpha1.ResourceBindingSpec
}

func bindingView[T bindingObject](b T, exists bool, specOf func(T) *federationv1alpha1.ResourceBindingSpec) *view {
	if !exists {
		return nil
	}
	return &view{labels: b.GetLabels(), annotations: b.GetAnnotations(), spec: specOf(b)}
}

// decision is what becomes of a template's binding.
type decision struct {
	// keep leaves the binding as it is.
	keep bool
	// want is the binding's spec; nil deletes it.
	want *federationv1alpha1.ResourceBindingSpec
	// labels name the binding's policy (none without one); generation is the template
	// generation a Lazy policy was last applied at ("" for other policies).
	labels     map[string]string
	generation string
	// held says why the policy waits before it takes the template ("" when it does not).
	held string
}

// decide says what becomes of the binding (current, nil if none) of a template:
//   - the policy that claimed it keeps it while it selects it, unless another may preempt
//     it (package policy's Claimed);
//   - a policy whose dependentOverrides are not all there yet waits for them before it
//     takes a template (the binding stays as it is, or there is none); once it propagates
//     the template, they hold nothing back: deleting one later changes the members' copies
//     as deleting any override does, and every change of the template goes on;
//   - a Lazy policy that already propagates the template changes its binding only when the
//     template's generation moved (a binding that does not say which generation it
//     follows, its policy having just become Lazy, follows the current one);
//   - with no policy, the binding of this very template stays, without a policy, keeping
//     its placement and following the template, so that deleting the template later still
//     removes what fed propagated; one of an earlier template of the same name goes.
func (c *Controller) decide(tmpl *unstructured.Unstructured, current *view) (decision, error) {
	var best *policy.Policy
	if !Skipped(tmpl) {
		policies, err := c.policiesOf(tmpl)
		if err != nil {
			return decision{}, err
		}
		var claimer *policy.Policy
		if current != nil {
			claimer = claimerOf(current.labels, policies)
		}
		best = policy.Claimed(tmpl, policies, claimer)
	}
	if best == nil {
		if current == nil || current.spec.Resource.UID != tmpl.GetUID() {
			return decision{}, nil
		}
		if policyNamed(current.labels) {
			c.recorder.Event(tmpl, corev1.EventTypeNormal, "PolicyRemoved",
				"no policy propagates this template now: its copies stay in the members, following it, until it is deleted or a policy takes it")
		}
		want := current.spec.DeepCopy()
		want.Resource = Reference(tmpl)
		var err error
		if want.Replicas, want.ReplicaRequirements, err = c.replicas(tmpl); err != nil {
			return decision{}, err
		}
		return decision{want: want}, nil
	}
	d := decision{labels: BindingLabels(best)}
	propagating := current != nil && samePolicy(current.labels, d.labels) && current.spec.Resource.UID == tmpl.GetUID()
	if missing := c.missingOverrides(best); len(missing) > 0 && !propagating {
		held := describe(best) + " waits for " + strings.Join(missing, ", ") + " before it propagates this template"
		c.recorder.Event(tmpl, corev1.EventTypeWarning, ReasonDependentOverridesMissing, held)
		return decision{keep: true, held: held}, nil
	}
	generation := strconv.FormatInt(tmpl.GetGeneration(), 10)
	if best.Spec.ActivationPreference == federationv1alpha1.LazyActivation {
		d.generation = generation
		if propagating {
			switch current.annotations[federationv1alpha1.AnnotationTemplateGeneration] {
			case generation:
				return decision{keep: true}, nil
			case "":
				// The policy just became Lazy: the binding is taken to follow this
				// generation, and keeps what the policy said before.
				d.want = current.spec.DeepCopy()
				return d, nil
			}
		}
	}
	if current == nil || !samePolicy(current.labels, d.labels) {
		c.recorder.Eventf(tmpl, corev1.EventTypeNormal, "PolicyApplied", "propagated by %s", describe(best))
	}
	replicas, req, err := c.replicas(tmpl)
	if err != nil {
		return decision{}, err
	}
	spec := BindingSpec(tmpl, best, replicas, req)
	d.want = &spec
	return d, nil
}

// replicas are the template's replicas and what one needs; a script that fails leaves
// the binding as it is, says why on the template, and is tried again (with backoff).
func (c *Controller) replicas(tmpl *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, error) {
	n, req, err := c.interpreter.Replicas(tmpl)
	if err != nil {
		c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "InterpreterFailed", "%v", err)
	}
	return n, req, err
}

// describe names a policy for events.
func describe(p *policy.Policy) string {
	if p.Namespace != "" {
		return "PropagationPolicy " + p.Namespace + "/" + p.Name
	}
	return "ClusterPropagationPolicy " + p.Name
}

// claimerOf is the policy of policies a binding's labels name, or nil.
func claimerOf(bindingLabels map[string]string, policies []policy.Policy) *policy.Policy {
	for i, p := range policies {
		if samePolicy(BindingLabels(&p), bindingLabels) {
			return &policies[i]
		}
	}
	return nil
}

// policyLabels are the labels of a binding that name its policy.
var policyLabels = []string{federationv1alpha1.LabelPolicyNamespace, federationv1alpha1.LabelPolicyName, federationv1alpha1.LabelClusterPolicy}

// samePolicy says whether two sets of labels name the same policy (or none), whatever
// else they hold.
func samePolicy(a, b map[string]string) bool {
	for _, l := range policyLabels {
		if a[l] != b[l] {
			return false
		}
	}
	return true
}

// withPolicy is a binding's labels with the policy labels of want instead of its own;
// labels someone else put on the binding stay.
func withPolicy(current, want map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range current {
		if !slices.Contains(policyLabels, k) {
			out[k] = v
		}
	}
	for k, v := range want {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// policyNamed says whether a binding's labels name a policy.
func policyNamed(bindingLabels map[string]string) bool {
	return bindingLabels[federationv1alpha1.LabelPolicyName] != "" || bindingLabels[federationv1alpha1.LabelClusterPolicy] != ""
}

// missingOverrides are the dependentOverrides of a policy that do not exist (yet): the
// OverridePolicies of its namespace, or for a ClusterPropagationPolicy the
// ClusterOverridePolicies.
func (c *Controller) missingOverrides(p *policy.Policy) []string {
	var missing []string
	for _, name := range p.Spec.DependentOverrides {
		var err error
		what := "ClusterOverridePolicy " + name
		if p.Namespace != "" {
			_, err = c.overrides.OverridePolicies(p.Namespace).Get(name)
			what = "OverridePolicy " + p.Namespace + "/" + name
		} else {
			_, err = c.clusterOverrides.Get(name)
		}
		if err != nil {
			missing = append(missing, what)
		}
	}
	return missing
}

// policiesOf are the policies that may propagate a template: the PropagationPolicies of
// its namespace and the ClusterPropagationPolicies, but those being deleted.
func (c *Controller) policiesOf(tmpl *unstructured.Unstructured) ([]policy.Policy, error) {
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
	return policies, nil
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

// syncBinding makes a binding what d says: deleted when d.want is nil, created, or
// updated when its spec (but for the clusters and eviction tasks), labels or generation
// annotation differ. current is the binding the informer has, if exists; fresh makes a
// new one with its name.
func syncBinding[T bindingObject](ctx context.Context, client bindingClient[T], current T, exists bool, fresh func() T,
	specOf func(T) *federationv1alpha1.ResourceBindingSpec, d decision) error {
	want := d.want
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
		b.SetLabels(d.labels)
		setGeneration(b, d.generation)
		_, err := client.Create(ctx, b, metav1.CreateOptions{})
		return err
	}
	// Where the template goes and what it is leaving are the scheduler's and the failover
	// controllers', and the moves asked of the scheduler the descheduler's and the
	// rebalancer's (see "Who writes what" in docs/design.md).
	want.Clusters = specOf(current).Clusters
	want.GracefulEvictionTasks = specOf(current).GracefulEvictionTasks
	want.ReplicaMoves = specOf(current).ReplicaMoves
	labels := withPolicy(current.GetLabels(), d.labels)
	if apiequality.Semantic.DeepEqual(*specOf(current), *want) && apiequality.Semantic.DeepEqual(current.GetLabels(), labels) &&
		current.GetAnnotations()[federationv1alpha1.AnnotationTemplateGeneration] == d.generation {
		return nil
	}
	b := current.DeepCopyObject().(T)
	*specOf(b) = *want
	b.SetLabels(labels)
	setGeneration(b, d.generation)
	_, err := client.Update(ctx, b, metav1.UpdateOptions{})
	return err
}

// setGeneration records on a binding the template generation its Lazy policy was applied
// at, or removes the record.
func setGeneration(b metav1.Object, generation string) {
	annotations := b.GetAnnotations()
	if generation == "" {
		delete(annotations, federationv1alpha1.AnnotationTemplateGeneration)
	} else {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[federationv1alpha1.AnnotationTemplateGeneration] = generation
	}
	b.SetAnnotations(annotations)
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
