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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
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
	templates        *templates.Templates
	bindings         *bindings.Access
	policies         fedlisters.PropagationPolicyLister
	cluster          fedlisters.ClusterPropagationPolicyLister
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

// Deps are what the detector reads and writes.
type Deps struct {
	// Templates are the fleet's templates, of the kinds policies name.
	Templates *templates.Templates
	// Bindings is the view of the bindings it writes.
	Bindings *bindings.Access
	// The policies, and the override policies a policy's dependentOverrides wait for.
	PropagationPolicies        fedinformers.PropagationPolicyInformer
	ClusterPropagationPolicies fedinformers.ClusterPropagationPolicyInformer
	OverridePolicies           fedinformers.OverridePolicyInformer
	ClusterOverridePolicies    fedinformers.ClusterOverridePolicyInformer
	// Customizations are watched for the kinds whose replicas they count, read through
	// Interpreter.
	Customizations fedinformers.ResourceInterpreterCustomizationInformer
	// Webhooks are watched likewise: a configuration's rules that name kinds look again
	// at their templates.
	Webhooks    fedinformers.ResourceInterpreterWebhookConfigurationInformer
	Interpreter *interpreter.Interpreter
	// Recorder records events on the templates.
	Recorder record.EventRecorder
}

// NewController watches policies, bindings, override policies (the policies' dependent
// overrides), customizations and the templates of the kinds policies name.
func NewController(d Deps) (*Controller, error) {
	pps, cpps, ops, cops, rics := d.PropagationPolicies, d.ClusterPropagationPolicies, d.OverridePolicies, d.ClusterOverridePolicies, d.Customizations
	tmpls := d.Templates
	c := &Controller{
		recorder:         d.Recorder,
		templates:        tmpls,
		bindings:         d.Bindings,
		policies:         pps.Lister(),
		cluster:          cpps.Lister(),
		overrides:        ops.Lister(),
		clusterOverrides: cops.Lister(),
		interpreter:      d.Interpreter,
		synced: []cache.InformerSynced{pps.Informer().HasSynced, cpps.Informer().HasSynced, d.Bindings.HasSynced,
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
	// A binding changed by someone else is put back. One fed finds when it starts is
	// looked at too: its template may have gone while fed was away, or before fed's
	// informer of its kind listed, which no template event tells.
	bindingChanged := func(obj any) {
		if _, spec, ok := bindings.Of(obj); ok {
			c.enqueueRef(spec.Resource)
		}
	}
	for _, inf := range d.Bindings.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				if initial {
					bindingChanged(obj)
				}
			},
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
	if d.Webhooks != nil {
		c.synced = append(c.synced, d.Webhooks.Informer().HasSynced)
		if _, err := d.Webhooks.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.webhooksChanged,
			UpdateFunc: func(old, obj any) { c.webhooksChanged(old); c.webhooksChanged(obj) },
			DeleteFunc: c.webhooksChanged,
		}); err != nil {
			return nil, err
		}
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
	bk := bindings.Key{Namespace: k.Namespace, Name: federationv1alpha1.BindingName(tmpl.GetKind(), tmpl.GetName())}
	meta, spec, err := c.bindings.Peek(bk)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var current *view
	if err == nil {
		current = &view{uid: meta.GetUID(), labels: meta.GetLabels(), annotations: meta.GetAnnotations(), spec: spec}
	}
	d, err := c.decide(tmpl, current)
	if err == nil && current == nil {
		err = c.showHeld(ctx, k.GVR, tmpl, d.held)
	}
	if err != nil || d.keep {
		return err
	}
	return c.sync(ctx, bk, current, d)
}

// view is what the detector reads of a template's current binding: nil when there is
// none.
type view struct {
	uid                 types.UID
	labels, annotations map[string]string
	spec                *federationv1alpha1.ResourceBindingSpec
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
		if want.Replicas, want.ReplicaRequirements, want.Components, err = c.replicas(tmpl); err != nil {
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
	replicas, req, components, err := c.replicas(tmpl)
	if err != nil {
		return decision{}, err
	}
	spec := BindingSpec(tmpl, best, replicas, req)
	spec.Components = components
	d.want = &spec
	return d, nil
}

// replicas are the template's replicas and what one needs, or, for a workload of several
// pod templates, its components (and no replicas); a script that fails leaves the binding
// as it is, says why on the template, and is tried again (with backoff).
func (c *Controller) replicas(tmpl *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, []federationv1alpha1.Component, error) {
	n, req, components, err := c.interpreter.Workload(tmpl)
	if err != nil {
		c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "InterpreterFailed", "%v", err)
	}
	return n, req, components, err
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

// sync makes a binding what d says: deleted when d.want is nil, created, or updated when
// its spec (but for the fields other controllers write), labels or generation annotation
// differ. current is the binding as the view has it, nil when there is none.
func (c *Controller) sync(ctx context.Context, k bindings.Key, current *view, d decision) error {
	want := d.want
	switch {
	case want == nil && current == nil:
		return nil
	case want == nil:
		return c.bindings.Delete(ctx, k, current.uid)
	case current == nil:
		var meta metav1.ObjectMeta
		meta.SetLabels(d.labels)
		setGeneration(&meta, d.generation)
		return c.bindings.Create(ctx, k, meta, want)
	}
	keepOthers(want, current.spec)
	labels := withPolicy(current.labels, d.labels)
	if apiequality.Semantic.DeepEqual(*current.spec, *want) && apiequality.Semantic.DeepEqual(current.labels, labels) &&
		current.annotations[federationv1alpha1.AnnotationTemplateGeneration] == d.generation {
		return nil
	}
	b, err := c.bindings.Get(k)
	if err != nil {
		return err
	}
	if b.Meta.GetUID() != current.uid {
		return reconciler.ErrRetrySoon // replaced meanwhile: decided again on the new one
	}
	keepOthers(want, b.Spec)
	*b.Spec = *want
	b.Meta.SetLabels(withPolicy(b.Meta.GetLabels(), d.labels))
	setGeneration(b.Meta, d.generation)
	return b.Update(ctx)
}

// keepOthers gives want the fields of a binding's spec that other controllers write, as
// stored: where the template goes, what it is leaving and the moves asked of the scheduler
// (docs/design.md, "Who writes what").
func keepOthers(want, stored *federationv1alpha1.ResourceBindingSpec) {
	want.Clusters, want.GracefulEvictionTasks, want.ReplicaMoves = stored.Clusters, stored.GracefulEvictionTasks, stored.ReplicaMoves
	want.RescheduleTriggeredAt = stored.RescheduleTriggeredAt
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
	bk := bindings.Key{Namespace: k.Namespace, Name: federationv1alpha1.BindingName(gvk.Kind, k.Name)}
	if _, _, err := c.bindings.Peek(bk); apierrors.IsNotFound(err) {
		return nil
	}
	return c.bindings.Delete(ctx, bk, "")
}
