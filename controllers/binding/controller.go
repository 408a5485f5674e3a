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

// Package binding turns each scheduled binding into one Work per target cluster, holding
// the template's manifest for that cluster (overrides applied, dependencies added), and
// removes the Works of clusters and bindings that went. Their state comes back through the
// status path (package bindingstatus).
package binding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/manifest"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/interpreter"
)

// key names a binding; Namespace is empty for a ClusterResourceBinding.
type key = bindings.Key

// Override customises a template's manifest for one cluster; it returns the manifest and
// the policies it applied, in order. Nil applies none.
type Override func(manifest *unstructured.Unstructured, cluster string) (*unstructured.Unstructured, []metav1.Object, error)

// Controller keeps the Works of every binding and writes back their state.
type Controller struct {
	templates *templates.Templates
	bindings  *bindings.Access
	rbs       fedlisters.ResourceBindingLister // for the bindings with propagateDeps
	works     *works.Access
	synced    []cache.InformerSynced
	// override customises manifests per cluster.
	override Override
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder
	// interpreter sets a cluster's replicas and finds a workload's dependencies.
	interpreter *interpreter.Interpreter
	// asAuthor checks overridden manifests with the host as their policies' authors.
	asAuthor *author.Checks
	// queue has the bindings whose Works to keep (the binding or its template changed).
	queue workqueue.TypedRateLimitingInterface[key]
}

// Deps are what the binding controller works with.
type Deps struct {
	Templates *templates.Templates
	// Bindings and Works are the shared views it keeps the Works of the bindings in.
	Bindings *bindings.Access
	Works    *works.Access
	// OverridePolicies and ClusterOverridePolicies customise each cluster's manifest, which
	// Clusters' labels and location choose the rules of.
	OverridePolicies        fedinformers.OverridePolicyInformer
	ClusterOverridePolicies fedinformers.ClusterOverridePolicyInformer
	Clusters                clusterinformers.ClusterInformer
	// Interpreter sets a cluster's replicas and finds a workload's dependencies.
	Interpreter *interpreter.Interpreter
	// Recorder records events on the templates in the fleet.
	Recorder record.EventRecorder
	// AsAuthor checks with the host that an override policy's author may create what the
	// policy makes of a template (AuthorCheck); nil checks nothing.
	AsAuthor author.Check
}

// NewController watches bindings and templates and keeps their Works.
func NewController(d Deps) (*Controller, error) {
	c := &Controller{
		templates:   d.Templates,
		bindings:    d.Bindings,
		rbs:         d.Bindings.ResourceBindings(),
		works:       d.Works,
		synced:      []cache.InformerSynced{d.Bindings.HasSynced, d.Works.Informer().HasSynced},
		recorder:    d.Recorder,
		interpreter: d.Interpreter,
	}
	c.queue = reconciler.NewLanedQueue("binding", 3, c.lane)
	if d.AsAuthor != nil {
		c.asAuthor = author.NewChecks(d.AsAuthor)
	}
	access, tmpls := d.Bindings, d.Templates
	enqueue := func(obj any) {
		if k, _, ok := bindings.Of(obj); ok {
			c.queue.Add(k)
		}
	}
	// Only a binding's spec (and its deletion) says what its Works hold: its status, which
	// bindingstatus writes as the Works change, would have every Work of the binding made
	// again at each write, a cost of the clusters squared over a binding's propagation.
	handler := reconciler.SpecChanges(enqueue)
	for _, inf := range access.Informers() {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
	}
	tmpls.AddHandler(func(_ schema.GroupVersionResource, obj *unstructured.Unstructured) {
		c.queue.Add(key{Namespace: obj.GetNamespace(), Name: federationv1alpha1.BindingName(obj.GetKind(), obj.GetName())})
		c.dependencyChanged(obj)
	})
	// A Work written just before its binding went, or moved to other clusters, may reach
	// the informer only after the binding's last reconcile read the binding's Works there
	// (under load, seconds later), and would stay, its member's object too: its arrival
	// reconciles the binding again when the binding is gone or does not place its cluster,
	// which removes it. A Work deleted by someone else (its execution namespace went with
	// its Cluster, which was joined again; a user) reconciles its binding too, which makes
	// it again where the binding still places it: nothing else would.
	workOf := func(obj any) (key, *federationv1alpha1.Work, bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		w, ok := obj.(*federationv1alpha1.Work)
		if !ok {
			return key{}, nil, false
		}
		ns, name, ok := works.BindingOf(w)
		return key{Namespace: ns, Name: name}, w, ok
	}
	if _, err := d.Works.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if k, w, ok := workOf(obj); ok {
				if _, spec, err := c.bindings.Peek(k); apierrors.IsNotFound(err) || (err == nil && !places(spec, w.Namespace)) {
					c.queue.Add(k)
				}
			}
		},
		DeleteFunc: func(obj any) {
			if k, _, ok := workOf(obj); ok {
				if m, _, err := c.bindings.Peek(k); err == nil && m != nil && m.GetDeletionTimestamp() == nil {
					c.queue.Add(k)
				}
			}
		},
	}); err != nil {
		return nil, err
	}
	if err := c.watchOverrides(d.OverridePolicies, d.ClusterOverridePolicies, d.Clusters); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles bindings with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Syncing the Works of a binding", c.reconcile)
}

// lane orders the bindings waiting, as execution orders the Works: first the bindings that
// have Works already (placed again: replicas moved off a failed member, a template changed),
// then new ones, last the ones gone or being deleted, whose Works go. A thousand templates
// deleted at once do not hold back a workload moving off a failed member.
func (c *Controller) lane(k key) int {
	m, _, err := c.bindings.Peek(k)
	if err != nil || m == nil || m.GetDeletionTimestamp() != nil {
		return 2
	}
	if works, err := c.works.OfBinding(k.Namespace, k.Name); err != nil || len(works) == 0 {
		return 1
	}
	return 0
}

// reconcile makes the Works of one binding what its spec says and reports their state.
func (c *Controller) reconcile(ctx context.Context, k key) error {
	works, err := c.works.OfBinding(k.Namespace, k.Name)
	if err != nil {
		return err
	}
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) {
		return c.unbind(ctx, works)
	}
	if err != nil {
		return err
	}
	if b.Meta.GetDeletionTimestamp() != nil {
		return c.unbind(ctx, works)
	}
	tmpl, gvr, ok, err := c.templates.Bound(b.Spec.Resource)
	if !ok || err != nil {
		return err
	}
	var errs []error
	targets := map[string]bool{}
	wrote := false
	for _, t := range b.Spec.Clusters {
		targets[t.Name] = true
		changed, err := c.syncWork(ctx, k, b.Spec, tmpl, gvr, t, works[t.Name])
		if err != nil {
			errs = append(errs, fmt.Errorf("cluster %s: %w", t.Name, err))
		}
		wrote = wrote || changed
	}
	for cluster, w := range works {
		if !targets[cluster] && !keepsCopy(b.Spec.GracefulEvictionTasks, cluster) {
			// Scheduled away: the member's copy goes, whatever the policy keeps on deletion.
			errs = append(errs, c.removeWork(ctx, w, false))
			wrote = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !wrote && len(b.Spec.Clusters) > 0 {
		// The Works written bring the report when they change; a binding not scheduled yet
		// has nothing to report.
		c.bindings.Settled(k)
	}
	return nil
}

// syncWork creates or updates the Work of a binding for one cluster; it says whether it
// wrote one.
func (c *Controller) syncWork(ctx context.Context, k key, spec *federationv1alpha1.ResourceBindingSpec, tmpl *unstructured.Unstructured,
	gvr schema.GroupVersionResource, target federationv1alpha1.TargetCluster, current *federationv1alpha1.Work) (bool, error) {
	m, err := manifest.For(c.interpreter, tmpl, spec, target)
	if err == nil {
		err = policy.SameIdentity(m, tmpl) // a customization's replica revision
	}
	if err != nil {
		c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "InterpreterFailed", "cluster %s: %v", target.Name, err)
		return false, err
	}
	annotations := map[string]string{federationv1alpha1.AnnotationBinding: federationv1alpha1.BindingKey(k.Namespace, k.Name)}
	if target.Replicas > 0 {
		annotations[federationv1alpha1.AnnotationReplicas] = strconv.Itoa(int(target.Replicas))
	}
	var applied []string
	if c.override != nil {
		overridden, policies, err := c.override(m, target.Name)
		for _, p := range policies {
			applied = append(applied, policyName(p))
		}
		if err == nil && len(policies) > 0 {
			// Policies stored before validation refused such paths still reach here.
			err = policy.SameIdentity(overridden, tmpl)
		}
		if err == nil && len(policies) > 0 && c.asAuthor != nil {
			err = checkOverridden(ctx, c.asAuthor, policies, gvr, overridden)
			if err != nil && !errors.As(err, new(refusal)) {
				return false, err // the host could not be asked: try again
			}
		}
		switch {
		case err != nil:
			// This cluster's Work keeps what it had and says why; the others go on.
			annotations[federationv1alpha1.AnnotationOverrideError] = err.Error()
			c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "OverrideFailed", "cluster %s: %v", target.Name, err)
			applied = nil
			if current != nil {
				m = nil
			}
		case len(applied) > 0:
			m = overridden
			annotations[federationv1alpha1.AnnotationAppliedOverrides] = strings.Join(applied, ",")
		}
	}
	var want federationv1alpha1.WorkSpec
	if m == nil {
		want = current.Spec
	} else {
		preserveState(m, spec.GracefulEvictionTasks, target.Name)
		manifest.Stamp(m, tmpl, spec, applied)
		manifests := []*unstructured.Unstructured{m}
		if spec.PropagateDeps {
			deps, err := c.dependencies(tmpl, spec, target)
			if err != nil {
				return false, err
			}
			manifests = append(manifests, deps...)
		}
		var err error
		if want, err = WorkSpec(manifests, spec, target.Name); err != nil {
			return false, err
		}
	}
	name := types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(target.Name), Name: federationv1alpha1.WorkName(k.Namespace, k.Name)}
	return c.works.Write(ctx, name, current, annotations, want)
}

// dependencies are the manifests of the templates a workload refers to (ConfigMaps,
// Secrets, its ServiceAccount, PersistentVolumeClaims), for a binding with propagateDeps.
// One the fleet does not have is left out: the member may have its own.
func (c *Controller) dependencies(tmpl *unstructured.Unstructured, spec *federationv1alpha1.ResourceBindingSpec,
	target federationv1alpha1.TargetCluster) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	refs, err := c.interpreter.Dependencies(tmpl)
	if err != nil {
		c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "InterpreterFailed", "%v", err)
		return nil, err
	}
	for _, ref := range refs {
		if ref.Namespace != tmpl.GetNamespace() {
			// The template's author may read its own namespace's templates, not another's.
			c.recorder.Eventf(tmpl, corev1.EventTypeWarning, "DependencyRefused",
				"%s %s/%s is not propagated with this template: a template's dependencies must be in its own namespace %q", ref.Kind, ref.Namespace, ref.Name, tmpl.GetNamespace())
			continue
		}
		dep, _, err := c.templates.Ref(ref)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		m, err := manifest.For(c.interpreter, dep, &federationv1alpha1.ResourceBindingSpec{}, target)
		if err == nil {
			err = policy.SameIdentity(m, dep)
		}
		if err != nil {
			return nil, err
		}
		manifest.Stamp(m, dep, &federationv1alpha1.ResourceBindingSpec{ConflictResolution: spec.ConflictResolution}, nil)
		out = append(out, m)
	}
	return out, nil
}

// dependencyKinds are the kinds a workload may depend on.
var dependencyKinds = map[string]bool{"ConfigMap": true, "Secret": true, "ServiceAccount": true, "PersistentVolumeClaim": true}

// dependencyChanged looks again at the bindings with propagateDeps in the namespace of a
// template that may be a dependency.
func (c *Controller) dependencyChanged(obj *unstructured.Unstructured) {
	if obj.GetAPIVersion() != "v1" || !dependencyKinds[obj.GetKind()] {
		return
	}
	rbs, err := c.rbs.ResourceBindings(obj.GetNamespace()).List(labels.Everything())
	if err != nil {
		return
	}
	for _, b := range rbs {
		if b.Spec.PropagateDeps {
			c.queue.Add(key{Namespace: b.Namespace, Name: b.Name})
		}
	}
}

// unbind removes the Works of a binding that is gone. When its template is still in the
// fleet (the binding was deleted by hand: the detector keeps a binding whose policy went),
// the members keep their objects, released, no longer fed's. When the template is gone, or
// is a later one of the same name, so are the members' objects, unless the policy said to
// preserve them.
func (c *Controller) unbind(ctx context.Context, works map[string]*federationv1alpha1.Work) error {
	var errs []error
	for _, w := range works {
		keep, err := c.templateExists(w)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if p := w.Spec.PreserveResourcesOnDeletion; p != nil && *p {
			keep = true
		}
		errs = append(errs, c.removeWork(ctx, w, keep))
	}
	return errors.Join(errs...)
}

// templateExists says whether the template of a Work's manifest is in the fleet: the same
// one, by its UID.
func (c *Controller) templateExists(w *federationv1alpha1.Work) (bool, error) {
	if len(w.Spec.Workload.Manifests) == 0 {
		return false, nil
	}
	var m unstructured.Unstructured
	if err := m.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
		return false, nil
	}
	gvr, _, err := c.templates.Resource(m.GetAPIVersion(), m.GetKind())
	if meta.IsNoMatchError(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	tmpl, err := c.templates.Get(gvr, m.GetNamespace(), m.GetName())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	uid := m.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]
	return uid == "" || uid == string(tmpl.GetUID()), nil
}

// removeWork deletes a Work, first saying whether execution keeps the member's objects.
func (c *Controller) removeWork(ctx context.Context, w *federationv1alpha1.Work, keep bool) error {
	if w.DeletionTimestamp != nil && w.Spec.PreserveResourcesOnDeletion != nil && *w.Spec.PreserveResourcesOnDeletion == keep {
		return nil
	}
	if p := w.Spec.PreserveResourcesOnDeletion; (p != nil && *p) != keep {
		u := w.DeepCopy()
		u.Spec.PreserveResourcesOnDeletion = ptr.To(keep)
		var err error
		if w, err = c.works.Update(ctx, u); err != nil {
			return ignoreNotFound(err)
		}
	}
	if w.DeletionTimestamp != nil {
		return nil
	}
	return c.works.Delete(ctx, w)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// places tells whether a binding's spec places the cluster of an execution namespace.
func places(spec *federationv1alpha1.ResourceBindingSpec, executionNamespace string) bool {
	cluster, ok := strings.CutPrefix(executionNamespace, federationv1alpha1.ExecutionNamespacePrefix)
	return ok && slices.ContainsFunc(spec.Clusters, func(t federationv1alpha1.TargetCluster) bool { return t.Name == cluster })
}

// keepsCopy tells whether a graceful eviction task keeps the copy of a cluster the binding
// left: one of purge mode Gracefully or Never, or one whose deletion is suppressed. The
// Work stays as it was until the task is gone.
func keepsCopy(tasks []federationv1alpha1.GracefulEvictionTask, cluster string) bool {
	for _, t := range tasks {
		if t.FromCluster != cluster {
			continue
		}
		if ptr.Deref(t.SuppressDeletion, false) || t.PurgeMode == federationv1alpha1.PurgeGracefully || t.PurgeMode == federationv1alpha1.PurgeNever {
			return true
		}
	}
	return false
}

// preserveState gives the copy of a cluster the labels application failover preserved
// from the copy it replaces (statePreservation), while the eviction task is on the
// binding: on every cluster the binding was not on when the task began.
func preserveState(m *unstructured.Unstructured, tasks []federationv1alpha1.GracefulEvictionTask, cluster string) {
	for _, t := range tasks {
		if len(t.PreservedLabelState) == 0 || slices.Contains(t.ClustersBeforeFailover, cluster) {
			continue
		}
		labels := m.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, t.PreservedLabelState)
		m.SetLabels(labels)
	}
}
