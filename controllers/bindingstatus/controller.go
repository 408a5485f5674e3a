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

// Package bindingstatus is the status path's last steps: it writes the per-cluster state
// of a binding's Works into the binding's status (aggregatedStatus, FullyApplied) and the
// fleet-wide status of the kinds the interpreter sums into the template's.
package bindingstatus

import (
	"context"
	"encoding/json"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/interpreter"
)

// reportDelay is how long the changes of the Works of a binding over clusters gather before
// its status is written: the Works of a binding report one after the other, and one status
// write of the binding says what several did. Half a second up to 100 clusters; past that,
// 5 ms per cluster (5 s over 1,000), since a write costs fed-apiserver in proportion to the
// clusters its status names (an entry of aggregatedStatus each, converted and compared for
// managedFields at every write): the status of a binding over many clusters is written less
// often, so that what its writes cost per Work stays the same, as kube-controller-manager's
// --endpointslice-updates-batch-period gathers an EndpointSlice's changes.
func reportDelay(clusters int) time.Duration {
	return max(500*time.Millisecond, time.Duration(clusters)*5*time.Millisecond)
}

// Controller writes bindings' and templates' status from the Works.
type Controller struct {
	interpreter *interpreter.Interpreter
	templates   *templates.Templates
	bindings    *bindings.Access
	works       *works.Access
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[bindings.Key]
}

// NewController watches the Works of wa.
func NewController(tmpls *templates.Templates, access *bindings.Access, wa *works.Access, interp *interpreter.Interpreter) (*Controller, error) {
	c := &Controller{
		interpreter: interp,
		templates:   tmpls,
		bindings:    access,
		works:       wa,
		synced:      []cache.InformerSynced{access.HasSynced, wa.Informer().HasSynced},
		queue:       reconciler.NewQueue[bindings.Key]("binding-status"),
	}
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			if ns, name, ok := works.BindingOf(w); ok {
				k := bindings.Key{Namespace: ns, Name: name}
				clusters := 0
				if _, spec, err := access.Peek(k); err == nil {
					clusters = len(spec.Clusters)
				}
				c.queue.AddAfter(k, reportDelay(clusters))
			}
		}
	}
	if _, err := wa.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	// A binding whose Works are as its spec says, though it or its template changed: its
	// status is written now.
	access.OnSettled(func(k bindings.Key) { c.queue.Add(k) })
	return c, nil
}

// Run writes status with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Writing the status of a binding", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, k bindings.Key) error {
	b, err := c.bindings.Get(k)
	if err != nil || b.Meta.GetDeletionTimestamp() != nil || len(b.Spec.Clusters) == 0 {
		return ignoreNotFound(err)
	}
	tmpl, gvr, ok, err := c.templates.Bound(b.Spec.Resource)
	if !ok || err != nil {
		return err
	}
	ws, err := c.works.OfBinding(k.Namespace, k.Name)
	if err != nil {
		return err
	}
	return c.report(ctx, b, tmpl, gvr, ws)
}

// report writes the per-cluster state of the Works into the binding's status, and the
// fleet-wide status of the kinds the interpreter sums into the template's.
func (c *Controller) report(ctx context.Context, b *bindings.Binding, tmpl *unstructured.Unstructured, gvr schema.GroupVersionResource,
	ws map[string]*federationv1alpha1.Work) error {
	items := Aggregate(b.Spec.Clusters, ws)
	status := b.Status.DeepCopy()
	status.AggregatedStatus = items
	meta.SetStatusCondition(&status.Conditions, FullyApplied(items, b.Meta.GetGeneration()))
	// A customization's statusAggregation script that fails says so on the binding; the
	// template keeps the status it had.
	sum, ok, failed := c.interpreter.AggregateStatus(tmpl, items, !b.Spec.Placement.ReplicasDivided())
	if failed != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: ConditionStatusAggregated, Status: metav1.ConditionFalse,
			Reason: "InterpreterFailed", Message: failed.Error(), ObservedGeneration: b.Meta.GetGeneration()})
	} else {
		meta.RemoveStatusCondition(&status.Conditions, ConditionStatusAggregated)
	}
	if !apiequality.Semantic.DeepEqual(status, b.Status) {
		*b.Status = *status
		if err := b.UpdateStatus(ctx); err != nil {
			return ignoreNotFound(err)
		}
	}
	if failed != nil {
		// A webhook down or late may answer later; a script that failed fails again.
		if interpreter.FromWebhook(failed) {
			return failed
		}
		return nil
	}
	if !ok {
		return nil
	}
	interpreter.Refused(tmpl, sum, Refusals(b.Spec.Clusters, ws, tmpl.GetGeneration()))
	current, _, _ := unstructured.NestedMap(tmpl.Object, "status")
	if jsonEqual(current, sum) {
		return nil
	}
	u := tmpl.DeepCopy()
	u.Object["status"] = sum
	_, err := c.templates.Client.Resource(gvr).Namespace(tmpl.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	return ignoreNotFound(err) // a template deleted meanwhile has no status to write
}

// ConditionStatusAggregated, on a binding, is False while the statusAggregation script of
// the template's customization fails (and absent otherwise).
const ConditionStatusAggregated = "StatusAggregated"

// jsonEqual compares two JSON-like values as JSON, so int64 and float64 of one number agree.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var u, v any
	_ = json.Unmarshal(x, &u)
	_ = json.Unmarshal(y, &v)
	return apiequality.Semantic.DeepEqual(u, v)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
