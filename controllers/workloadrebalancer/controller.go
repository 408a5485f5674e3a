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

// Package workloadrebalancer runs WorkloadRebalancers: for each workload one names, it
// asks the scheduler to place the workload's binding afresh (spec.rescheduleTriggeredAt,
// which the scheduler answers by placing it as if it were placed nowhere yet, then setting
// status.lastScheduledTime to at least that time), and records the result in the
// rebalancer's status (one writer); a rebalancer with ttlSecondsAfterFinished is deleted
// that long after its last result. A workload is rescheduled only when the rebalancer's
// author may update its template (a SubjectAccessReview in the host, which authorizes the
// fleet's API).
package workloadrebalancer

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Resources maps a template's apiVersion and kind to its resource and scope in the fleet.
type Resources interface {
	Resource(apiVersion, kind string) (schema.GroupVersionResource, bool, error)
}

// Controller runs the WorkloadRebalancers.
type Controller struct {
	fed         versioned.Interface
	bindings    *bindings.Access
	resources   Resources
	rebalancers fedlisters.WorkloadRebalancerLister
	recorder    record.EventRecorder
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	access      *author.Access
}

// NewController watches the rebalancers and the bindings of access, writes with fed, asks
// the host about authors, maps kinds with resources, and records events with recorder.
func NewController(fed versioned.Interface, host kubernetes.Interface, rebalancers fedinformers.WorkloadRebalancerInformer,
	access *bindings.Access, resources Resources, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{fed: fed, bindings: access, resources: resources, rebalancers: rebalancers.Lister(), recorder: recorder,
		synced: []cache.InformerSynced{rebalancers.Informer().HasSynced, access.HasSynced},
		queue:  reconciler.NewQueue[string]("workload-rebalancer"),
		access: author.NewAccess(host)}
	if _, err := rebalancers.Informer().AddEventHandler(reconciler.SpecChanges(reconciler.EnqueueKey(c.queue))); err != nil {
		return nil, err
	}
	// A binding asked to be placed afresh is answered in its status: the rebalancers
	// waiting are looked at again.
	waiting := func(obj any) {
		if _, spec, ok := bindings.Of(obj); ok && spec.RescheduleTriggeredAt != nil {
			c.enqueueUnfinished()
		}
	}
	for _, inf := range access.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) { waiting(obj) },
			DeleteFunc: func(any) { c.enqueueUnfinished() },
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Controller) enqueueUnfinished() {
	rs, err := c.rebalancers.List(labels.Everything())
	if err != nil {
		return
	}
	for _, r := range rs {
		if r.Status.FinishTime == nil || r.Status.ObservedGeneration != r.Generation {
			c.queue.Add(r.Name)
		}
	}
}

// Run runs the rebalancers with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Running a WorkloadRebalancer", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, name string) error {
	r, err := c.rebalancers.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if r.DeletionTimestamp != nil {
		return nil
	}
	status := r.Status.DeepCopy()
	observed := make(map[federationv1alpha1.WorkloadReference]federationv1alpha1.ObservedWorkload, len(status.ObservedWorkloads))
	for _, o := range status.ObservedWorkloads {
		observed[o.Workload] = o
	}
	status.ObservedWorkloads = make([]federationv1alpha1.ObservedWorkload, 0, len(r.Spec.Workloads))
	pending := false
	var stepErr error
	for _, w := range r.Spec.Workloads {
		o, seen := observed[w]
		if !seen || o.Result == "" {
			var err error
			o, err = c.step(ctx, r, w, seen)
			switch {
			case err != nil && !seen:
				stepErr = err
				continue // not asked yet: asked on the retry
			case err != nil:
				stepErr = err
			case !seen && o.Result == "":
				c.recorder.Eventf(r, corev1.EventTypeNormal, "Rescheduling", "%s %s asked to be placed afresh", w.Kind, describe(w))
			}
		}
		status.ObservedWorkloads = append(status.ObservedWorkloads, o)
		pending = pending || o.Result == ""
	}
	pending = pending || len(status.ObservedWorkloads) < len(r.Spec.Workloads)
	status.ObservedGeneration = r.Generation
	now := metav1.Now()
	switch {
	case pending:
		status.FinishTime = nil
	case status.FinishTime == nil:
		status.FinishTime = &now
		c.recorder.Eventf(r, corev1.EventTypeNormal, "Finished", "%s", summary(status.ObservedWorkloads))
	}
	if !apiequality.Semantic.DeepEqual(status, &r.Status) {
		updated := r.DeepCopy()
		updated.Status = *status
		if _, err := c.fed.FederationV1alpha1().WorkloadRebalancers().UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if stepErr != nil {
		return stepErr
	}
	if status.FinishTime != nil && r.Spec.TTLSecondsAfterFinished != nil {
		left := time.Until(status.FinishTime.Add(time.Duration(*r.Spec.TTLSecondsAfterFinished) * time.Second))
		if left > 0 {
			c.queue.AddAfter(name, left)
			return nil
		}
		uid := r.UID
		err := c.fed.FederationV1alpha1().WorkloadRebalancers().Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	}
	return nil
}

// step asks the scheduler to place a workload afresh (asked false), or reads whether it
// has (asked true). The result is empty while the scheduler has not answered.
func (c *Controller) step(ctx context.Context, r *federationv1alpha1.WorkloadRebalancer, w federationv1alpha1.WorkloadReference, asked bool) (federationv1alpha1.ObservedWorkload, error) {
	o := federationv1alpha1.ObservedWorkload{Workload: w}
	failed := func(reason, format string, args ...any) (federationv1alpha1.ObservedWorkload, error) {
		o.Result, o.Reason, o.Message = federationv1alpha1.RebalanceFailed, reason, fmt.Sprintf(format, args...)
		return o, nil
	}
	k := bindings.Key{Namespace: w.Namespace, Name: federationv1alpha1.BindingName(w.Kind, w.Name)}
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) || err == nil && !sameTemplate(b.Spec.Resource, w) {
		return failed(federationv1alpha1.RebalanceReasonBindingNotFound, "the fleet propagates no %s %s: no policy selects it, or it does not exist", w.Kind, describe(w))
	}
	if err != nil {
		return o, err
	}
	if b.Meta.GetDeletionTimestamp() != nil {
		return failed(federationv1alpha1.RebalanceReasonBindingNotFound, "%s %s is being deleted", w.Kind, describe(w))
	}
	t := b.Spec.RescheduleTriggeredAt
	if asked && t != nil {
		if last := b.Status.LastScheduledTime; last != nil && !last.Before(t) {
			o.Result, o.Message = federationv1alpha1.RebalanceSuccessful, "placed on "+bindings.Placed(b.Spec.Clusters)
			return o, nil
		}
		if b.Status.SchedulerObservedGeneration == b.Meta.GetGeneration() {
			if cond := meta.FindStatusCondition(b.Status.Conditions, federationv1alpha1.BindingConditionScheduled); cond != nil &&
				cond.Status == metav1.ConditionFalse && cond.ObservedGeneration == b.Meta.GetGeneration() {
				return failed(cond.Reason, "%s", cond.Message)
			}
		}
		return o, nil
	}
	if refused, err := c.mayUpdate(ctx, r, w); err != nil {
		return o, err
	} else if refused != nil {
		return failed(federationv1alpha1.RebalanceReasonAuthorRefused, "%v", refused)
	}
	// The next whole second: a placement made earlier in this second is before it, and the
	// scheduler's answer is not.
	at := metav1.NewTime(time.Now().Truncate(time.Second).Add(time.Second))
	b.Spec.RescheduleTriggeredAt = &at
	if err := b.Update(ctx); err != nil {
		return o, err
	}
	return o, nil
}

func sameTemplate(ref federationv1alpha1.ObjectReference, w federationv1alpha1.WorkloadReference) bool {
	rgv, err1 := schema.ParseGroupVersion(ref.APIVersion)
	wgv, err2 := schema.ParseGroupVersion(w.APIVersion)
	return err1 == nil && err2 == nil && rgv.Group == wgv.Group && ref.Kind == w.Kind && ref.Name == w.Name && ref.Namespace == w.Namespace
}

// mayUpdate asks the host whether the rebalancer's author may update the workload's
// template; a refusal is returned as refused, a failure to ask as err.
func (c *Controller) mayUpdate(ctx context.Context, r *federationv1alpha1.WorkloadRebalancer, w federationv1alpha1.WorkloadReference) (refused, err error) {
	gvr, _, err := c.resources.Resource(w.APIVersion, w.Kind)
	if err != nil {
		return fmt.Errorf("the fleet does not serve %s %s: %v", w.APIVersion, w.Kind, err), nil
	}
	return c.access.Refused(ctx, "WorkloadRebalancer", r, authorizationv1.ResourceAttributes{Verb: "update", Group: gvr.Group, Resource: gvr.Resource,
		Namespace: w.Namespace, Name: w.Name}, "update "+w.Kind+" "+describe(w))
}

func describe(w federationv1alpha1.WorkloadReference) string {
	if w.Namespace == "" {
		return w.Name
	}
	return w.Namespace + "/" + w.Name
}

func summary(obs []federationv1alpha1.ObservedWorkload) string {
	var ok, failed int
	for _, o := range obs {
		if o.Result == federationv1alpha1.RebalanceSuccessful {
			ok++
		} else {
			failed++
		}
	}
	return fmt.Sprintf("%d workload(s) rescheduled, %d failed", ok, failed)
}
