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

// Package gracefuleviction ends the graceful eviction tasks of bindings: the clusters a
// workload is moving away from keep their copies (the binding controller leaves their
// Works) until the copies that replace them are healthy, or the task's grace period is
// over, or, for purge mode Never, until someone removes the task. Then the task goes, and
// with it the old cluster's Work and copy (deleted once the member answers).
package gracefuleviction

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/works"
)

// Controller removes the graceful eviction tasks that are done.
type Controller struct {
	bindings *bindings.Access
	works    *works.Access
	recorder record.EventRecorder
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[bindings.Key]
}

// NewController watches the bindings of access and their Works in wa, and records events
// on the templates with recorder.
func NewController(access *bindings.Access, wa *works.Access, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{bindings: access, works: wa, recorder: recorder,
		synced: []cache.InformerSynced{access.HasSynced, wa.Informer().HasSynced},
		queue:  reconciler.NewQueue[bindings.Key]("graceful-eviction")}
	onBinding := func(obj any) {
		if m, err := meta.Accessor(obj); err == nil {
			c.enqueue(bindings.Key{Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	for _, inf := range access.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    onBinding,
			UpdateFunc: func(_, obj any) { onBinding(obj) },
		}); err != nil {
			return nil, err
		}
	}
	// A replacement becoming healthy is a change of its Work's status.
	onWork := func(obj any) {
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			if ns, name, ok := works.BindingOf(w); ok {
				c.enqueue(bindings.Key{Namespace: ns, Name: name})
			}
		}
	}
	if _, err := wa.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onWork,
		UpdateFunc: func(_, obj any) { onWork(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// enqueue queues a binding that has eviction tasks.
func (c *Controller) enqueue(k bindings.Key) {
	if _, spec, err := c.bindings.Peek(k); err == nil && len(spec.GracefulEvictionTasks) > 0 {
		c.queue.Add(k)
	}
}

// Run ends tasks with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Ending the graceful eviction tasks of a binding", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, k bindings.Key) error {
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if b.Meta.GetDeletionTimestamp() != nil || len(b.Spec.GracefulEvictionTasks) == 0 {
		return nil
	}
	ws, err := c.works.OfBinding(k.Namespace, k.Name)
	if err != nil {
		return err
	}
	waiting := c.replacing(b.Spec, ws)
	now := time.Now()
	var kept []federationv1alpha1.GracefulEvictionTask
	var ended, stayed []string
	var next time.Time
	for _, task := range b.Spec.GracefulEvictionTasks {
		// A cluster the scheduler could not move the workload from (no other had room)
		// is still a target: its own copy is not a replacement to wait for.
		target := slices.ContainsFunc(b.Spec.Clusters, func(t federationv1alpha1.TargetCluster) bool { return t.Name == task.FromCluster })
		why, due := assess(task, slices.DeleteFunc(slices.Clone(waiting), func(s string) bool { return s == task.FromCluster }), now)
		switch {
		case why == "":
			kept = append(kept, task)
			if !due.IsZero() && (next.IsZero() || due.Before(next)) {
				next = due
			}
		case target:
			stayed = append(stayed, task.FromCluster)
		default:
			ended = append(ended, fmt.Sprintf("%s (%s)", task.FromCluster, why))
		}
	}
	if len(ended)+len(stayed) > 0 {
		b.Spec.GracefulEvictionTasks = kept
		if err := b.Update(ctx); err != nil {
			return err
		}
		if len(ended) > 0 {
			c.recorder.Eventf(b.Spec.Resource.Event(), corev1.EventTypeNormal, "EvictionDone", "removing the copies on the clusters left: %s",
				strings.Join(ended, ", "))
		}
		if len(stayed) > 0 {
			c.recorder.Eventf(b.Spec.Resource.Event(), corev1.EventTypeWarning, "EvictionFailed",
				"no other cluster could take the replicas: the workload stays on %s", strings.Join(stayed, ", "))
		}
	}
	if !next.IsZero() {
		return reconciler.RequeueAfter(next.Sub(now), nil)
	}
	return nil
}

// assess says why a task is done (empty: it is not) and, when not, when its grace period
// ends (zero: never). waiting lists the target clusters whose copies are not healthy yet.
func assess(task federationv1alpha1.GracefulEvictionTask, waiting []string, now time.Time) (why string, due time.Time) {
	if task.SuppressDeletion != nil {
		if *task.SuppressDeletion {
			return "", time.Time{}
		}
		return "deletion no longer suppressed", time.Time{}
	}
	if task.PurgeMode == federationv1alpha1.PurgeNever {
		return "", time.Time{}
	}
	if len(waiting) == 0 {
		return "the copies elsewhere are healthy", time.Time{}
	}
	created := now
	if task.CreationTimestamp != nil {
		created = task.CreationTimestamp.Time
	}
	due = created.Add(time.Duration(ptr.Deref(task.GracePeriodSeconds, federationv1alpha1.DefaultFailoverGracePeriod)) * time.Second)
	if !due.After(now) {
		return "grace period over", time.Time{}
	}
	return "", due
}

// replacing lists the target clusters whose copies are not yet healthy as the binding now
// wants them: a Work written for the replicas the binding gives that cluster, Available
// as of its current generation.
func (c *Controller) replacing(spec *federationv1alpha1.ResourceBindingSpec, ws map[string]*federationv1alpha1.Work) []string {
	var out []string
	for _, t := range spec.Clusters {
		if !c.healthy(ws[t.Name], t) {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

func (c *Controller) healthy(w *federationv1alpha1.Work, target federationv1alpha1.TargetCluster) bool {
	// Applied as of the Work's generation, for the replicas the binding now gives this
	// cluster (the Work may still be the one from before the move), and Available: workstatus
	// also writes Available when an apply failed or the member does not answer, from the
	// objects as they were.
	if !works.AppliedFor(w, target.Replicas) {
		return false
	}
	avail := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionAvailable)
	return avail != nil && avail.Status == metav1.ConditionTrue && avail.ObservedGeneration == w.Generation
}
