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

// Package quota keeps the FederatedResourceQuotas: the ResourceQuota of each static
// assignment in its member (a Work of the quota's, in the member's execution namespace),
// and the quota's status, of which it is the one writer: the overall as enforced, what the
// namespace's placed workloads use of it (as the scheduler counts it when it admits a
// placement, internal/quota), and each member ResourceQuota's hard and used.
package quota

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
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

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/bindings"
	quotas "github.com/fedhq/fed/controllers/internal/quota"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/works"
)

// Deps are what the controller reads and writes.
type Deps struct {
	Fed      versioned.Interface
	Quotas   fedinformers.FederatedResourceQuotaInformer
	Clusters clusterinformers.ClusterInformer
	Bindings *bindings.Access
	Works    *works.Access
	// AsAuthor checks each static assignment's ResourceQuota with the quota's author: fed
	// writes into a member only what they may create in the host.
	AsAuthor author.Check
	Recorder record.EventRecorder
}

// Controller keeps the FederatedResourceQuotas' member ResourceQuotas and status.
type Controller struct {
	Deps
	// checks remembers the host's answers to AsAuthor.
	checks   *author.Checks
	lister   fedlisters.FederatedResourceQuotaLister
	clusters clusterlisters.ClusterLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

// ConditionReady, on a FederatedResourceQuota, says whether every static assignment's
// ResourceQuota is applied in its member.
const ConditionReady = "Ready"

var resourceQuotas = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}

// NewController watches the quotas, the bindings whose use they count, their Works and the
// Clusters (a member that joins gets its static assignment).
func NewController(d Deps) (*Controller, error) {
	c := &Controller{Deps: d, lister: d.Quotas.Lister(), clusters: d.Clusters.Lister(),
		synced: []cache.InformerSynced{d.Quotas.Informer().HasSynced, d.Clusters.Informer().HasSynced, d.Bindings.HasSynced, d.Works.Informer().HasSynced},
		queue:  reconciler.NewQueue[types.NamespacedName]("quota")}
	if d.AsAuthor != nil {
		c.checks = author.NewChecks(d.AsAuthor)
	}
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil {
			c.queue.Add(types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	if _, err := d.Quotas.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	// A binding placed, moved, scaled or gone changes what its namespace uses.
	namespace := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() != "" {
			c.enqueueNamespace(m.GetNamespace())
		}
	}
	for _, inf := range d.Bindings.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: namespace,
			UpdateFunc: func(old, obj any) {
				if o, n := old.(metav1.Object), obj.(metav1.Object); o.GetGeneration() != n.GetGeneration() || n.GetDeletionTimestamp() != nil {
					namespace(obj)
				}
			},
			DeleteFunc: namespace,
		}); err != nil {
			return nil, err
		}
	}
	// A quota's Work changed (applied, the member's ResourceQuota's use) or deleted by
	// someone else.
	owner := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			if ns, name, found := strings.Cut(w.Annotations[federationv1alpha1.AnnotationFederatedResourceQuota], "/"); found {
				c.queue.Add(types.NamespacedName{Namespace: ns, Name: name})
			}
		}
	}
	if _, err := d.Works.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: owner, UpdateFunc: func(_, obj any) { owner(obj) }, DeleteFunc: owner,
	}); err != nil {
		return nil, err
	}
	// A member that joins or leaves gets or loses its static assignments.
	all := func(any) { c.enqueueNamespace(metav1.NamespaceAll) }
	if _, err := d.Clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: all,
		UpdateFunc: func(old, obj any) {
			if o, n := old.(metav1.Object), obj.(metav1.Object); (o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) {
				all(obj)
			}
		},
		DeleteFunc: all,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// enqueueNamespace looks again at the quotas of a namespace (all: every quota).
func (c *Controller) enqueueNamespace(namespace string) {
	list, err := c.lister.FederatedResourceQuotas(namespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, q := range list {
		c.queue.Add(types.NamespacedName{Namespace: q.Namespace, Name: q.Name})
	}
}

// Run keeps the quotas with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	go func() {
		// The Works of a quota deleted while fed was down.
		if cache.WaitForCacheSync(ctx.Done(), c.synced...) {
			for _, obj := range c.Works.Informer().GetStore().List() {
				if w, ok := obj.(*federationv1alpha1.Work); ok {
					if ns, name, found := strings.Cut(w.Annotations[federationv1alpha1.AnnotationFederatedResourceQuota], "/"); found {
						c.queue.Add(types.NamespacedName{Namespace: ns, Name: name})
					}
				}
			}
		}
	}()
	reconciler.Run(ctx, c.queue, workers, c.synced, "Keeping a FederatedResourceQuota", c.reconcile)
}

// reconcile writes a quota's member ResourceQuotas and its status; a quota gone loses its
// Works, and with them its ResourceQuotas in the members.
func (c *Controller) reconcile(ctx context.Context, k types.NamespacedName) error {
	have := c.Works.Owned(federationv1alpha1.AnnotationFederatedResourceQuota, k.String())
	q, err := c.lister.FederatedResourceQuotas(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) || (err == nil && q.DeletionTimestamp != nil) {
		return c.Works.Sync(ctx, federationv1alpha1.AnnotationFederatedResourceQuota, k.String(), have, nil)
	}
	if err != nil {
		return err
	}
	want, refused, err := c.assignments(ctx, q, have)
	if err != nil {
		return err
	}
	if err := c.Works.Sync(ctx, federationv1alpha1.AnnotationFederatedResourceQuota, k.String(), have, want); err != nil {
		return err
	}
	// Works written now are reported when their event brings the quota back.
	return c.writeStatus(ctx, q, have, refused)
}

// workName names the Work of a quota's static assignment: "<namespace>.<name>.quota", which
// no binding's Work ("<namespace>.<name>-<kind>") can be.
func workName(q *federationv1alpha1.FederatedResourceQuota) string {
	return q.Namespace + "." + q.Name + ".quota"
}

// assignments are the Works of a quota's static assignments, one for each member in the
// fleet that it names: its ResourceQuota, of the quota's name and namespace. When the
// quota's author may not create that ResourceQuota in the host, the Works stay as they
// are (refused says why).
func (c *Controller) assignments(ctx context.Context, q *federationv1alpha1.FederatedResourceQuota,
	have map[types.NamespacedName]*federationv1alpha1.Work) (map[types.NamespacedName]federationv1alpha1.WorkSpec, error, error) {
	want := map[types.NamespacedName]federationv1alpha1.WorkSpec{}
	for _, a := range q.Spec.StaticAssignments {
		cl, err := c.clusters.Get(a.ClusterName)
		if apierrors.IsNotFound(err) || (err == nil && cl.DeletionTimestamp != nil) {
			continue // made when it joins
		}
		if err != nil {
			return nil, nil, err
		}
		rq := resourceQuota(q, a.Hard)
		if c.checks != nil {
			refused, err := c.checkAuthor(ctx, q, rq)
			if err != nil {
				return nil, nil, err
			}
			if refused != nil {
				keep := map[types.NamespacedName]federationv1alpha1.WorkSpec{}
				for key, w := range have {
					keep[key] = w.Spec
				}
				return keep, refused, nil
			}
		}
		spec, err := works.Spec(rq)
		if err != nil {
			return nil, nil, err
		}
		want[types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(a.ClusterName), Name: workName(q)}] = spec
	}
	return want, nil, nil
}

// checkAuthor asks the host whether the quota's author may create rq: a refusal is
// returned as refused, a failure to ask as err.
func (c *Controller) checkAuthor(ctx context.Context, q *federationv1alpha1.FederatedResourceQuota, rq *unstructured.Unstructured) (refused, err error) {
	a, err := policy.AuthorOf(q)
	if err != nil {
		return fmt.Errorf("FederatedResourceQuota %s/%s: %v", q.Namespace, q.Name, err), nil
	}
	refused, err = c.checks.Ask(ctx, a, resourceQuotas, rq)
	switch {
	case err != nil:
		return nil, fmt.Errorf("checking FederatedResourceQuota %s/%s with the host as its author %s: %w", q.Namespace, q.Name, a.User, err)
	case refused != nil:
		return fmt.Errorf("FederatedResourceQuota %s/%s, written by %s: the host would not let %s create its ResourceQuota: %v", q.Namespace, q.Name, a.User, a.User, refused), nil
	}
	return nil, nil
}

// resourceQuota is the ResourceQuota of a static assignment.
func resourceQuota(q *federationv1alpha1.FederatedResourceQuota, hard corev1.ResourceList) *unstructured.Unstructured {
	h := map[string]any{}
	for name, v := range hard {
		h[string(name)] = v.String()
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ResourceQuota",
		"metadata": map[string]any{"name": q.Name, "namespace": q.Namespace,
			"labels": map[string]any{federationv1alpha1.LabelManaged: "true"}},
		"spec": map[string]any{"hard": h},
	}}
}

// writeStatus records the overall enforced, what the namespace's placed workloads use of
// it, each member ResourceQuota's state and whether they are all applied.
func (c *Controller) writeStatus(ctx context.Context, q *federationv1alpha1.FederatedResourceQuota,
	owned map[types.NamespacedName]*federationv1alpha1.Work, refused error) error {
	status := q.Status.DeepCopy()
	status.Overall = q.Spec.Overall.DeepCopy()
	status.OverallUsed = c.used(q)
	status.AggregatedStatus = nil
	var pending []string
	for _, a := range q.Spec.StaticAssignments {
		key := types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(a.ClusterName), Name: workName(q)}
		w := owned[key]
		if w == nil || !works.AppliedFor(w, 0) {
			pending = append(pending, a.ClusterName)
		}
		if w == nil {
			continue
		}
		cs := federationv1alpha1.ClusterQuotaStatus{ClusterName: a.ClusterName}
		if len(w.Status.ManifestStatuses) > 0 && w.Status.ManifestStatuses[0].Status != nil {
			var rq corev1.ResourceQuotaStatus
			if err := json.Unmarshal(w.Status.ManifestStatuses[0].Status.Raw, &rq); err == nil {
				cs.Hard, cs.Used = rq.Hard, rq.Used
			}
		}
		status.AggregatedStatus = append(status.AggregatedStatus, cs)
	}
	slices.SortFunc(status.AggregatedStatus, func(a, b federationv1alpha1.ClusterQuotaStatus) int {
		return strings.Compare(a.ClusterName, b.ClusterName)
	})
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Applied", ObservedGeneration: q.Generation,
		Message: "every static assignment's ResourceQuota is applied in its member"}
	switch {
	case refused != nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "Refused", refused.Error()
	case len(q.Spec.StaticAssignments) == 0:
		cond.Reason, cond.Message = "Enforced", "the overall quota is enforced when workloads are scheduled; no static assignment"
	case len(pending) > 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NotApplied",
			"the ResourceQuota is not applied yet in "+strings.Join(pending, ", ")
	}
	if old := meta.FindStatusCondition(q.Status.Conditions, ConditionReady); refused != nil && (old == nil || old.Reason != "Refused") {
		c.Recorder.Eventf(q, corev1.EventTypeWarning, "StaticAssignmentRefused", "%v", refused)
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	status.ObservedGeneration = q.Generation
	if apiequality.Semantic.DeepEqual(status, &q.Status) {
		return nil
	}
	u := q.DeepCopy()
	u.Status = *status
	_, err := c.Fed.FederationV1alpha1().FederatedResourceQuotas(q.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err // a conflict: again with the newer one
}

// used is what the namespace's placed workloads (their bindings not being deleted) use of
// each resource of the quota's overall, as the scheduler counts it.
func (c *Controller) used(q *federationv1alpha1.FederatedResourceQuota) corev1.ResourceList {
	names := quotas.Names([]quotas.Quota{{Overall: q.Spec.Overall}})
	out := quotas.Usage(nil, 0, names)
	for _, k := range c.Bindings.Keys(q.Namespace) {
		m, spec, err := c.Bindings.Peek(k)
		if err != nil || m.GetDeletionTimestamp() != nil {
			continue
		}
		quotas.Add(out, quotas.OfBinding(spec, spec.Clusters, names))
	}
	return out
}
