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

// Package applicationfailover moves a workload away from a cluster where it stays
// unhealthy: once the binding's aggregated status has said Unhealthy for a cluster for
// failover.application.decisionConditions.tolerationSeconds, it puts a graceful eviction
// task for that cluster on the binding, with the policy's purge mode and the labels its
// statePreservation rules read from the failed copy's status. The scheduler then places
// the cluster's replicas elsewhere (a cluster with a task is no candidate), the binding
// controller keeps or removes the old copy as the purge mode says, and
// controllers/gracefuleviction ends the task.
package applicationfailover

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/jsonpath"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Controller puts eviction tasks on bindings whose workloads stay unhealthy in a cluster.
type Controller struct {
	bindings *bindings.Access
	recorder record.EventRecorder
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[bindings.Key]

	mu sync.Mutex
	// unhealthy is when each binding's workload was first seen Unhealthy in each cluster,
	// in this run of the controller (after a restart the count starts again).
	unhealthy map[bindings.Key]map[string]time.Time
}

// NewController watches the bindings of access and records events with recorder.
func NewController(access *bindings.Access, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{bindings: access, recorder: recorder, synced: []cache.InformerSynced{access.HasSynced},
		queue: reconciler.NewQueue[bindings.Key]("application-failover"), unhealthy: map[bindings.Key]map[string]time.Time{}}
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil {
			c.queue.Add(bindings.Key{Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	for _, inf := range access.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, obj any) { enqueue(obj) },
			DeleteFunc: enqueue,
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run watches health with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Checking the health of a binding's workload", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, k bindings.Key) error {
	meta, spec, err := c.bindings.Peek(k)
	if apierrors.IsNotFound(err) {
		c.forget(k, nil)
		return nil
	}
	if err != nil {
		return err
	}
	if meta.GetDeletionTimestamp() != nil || spec.Failover == nil || spec.Failover.Application == nil {
		c.forget(k, nil)
		return nil
	}
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) {
		c.forget(k, nil)
		return nil
	}
	if err != nil {
		return err
	}
	app := b.Spec.Failover.Application
	now := time.Now()
	toleration := time.Duration(ptr.Deref(app.DecisionConditions.TolerationSeconds, federationv1alpha1.DefaultFailoverTolerationSeconds)) * time.Second
	failed, next := c.observe(k, b.Spec, b.Status.AggregatedStatus, now, toleration)
	if len(failed) == 0 {
		if !next.IsZero() {
			return reconciler.RequeueAfter(next.Sub(now), nil)
		}
		return nil
	}
	before := make([]string, 0, len(b.Spec.Clusters))
	for _, t := range b.Spec.Clusters {
		before = append(before, t.Name)
	}
	var notes []string
	for _, item := range failed {
		task := federationv1alpha1.GracefulEvictionTask{
			FromCluster:            item.ClusterName,
			PurgeMode:              app.PurgeMode,
			Reason:                 federationv1alpha1.EvictionReasonApplicationFailure,
			Message:                fmt.Sprintf("the workload was unhealthy on cluster %s for %s", item.ClusterName, toleration),
			Producer:               federationv1alpha1.EvictionProducerApplicationFailover,
			GracePeriodSeconds:     app.GracePeriodSeconds,
			CreationTimestamp:      &metav1.Time{Time: now},
			ClustersBeforeFailover: before,
		}
		for _, t := range b.Spec.Clusters {
			if t.Name == item.ClusterName && t.Replicas > 0 {
				task.Replicas = ptr.To(t.Replicas)
			}
		}
		if sp := app.StatePreservation; sp != nil {
			var status []byte
			if item.Status != nil {
				status = item.Status.Raw
			}
			labels, err := preserve(sp.Rules, status)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: state not preserved: %v", item.ClusterName, err))
			}
			task.PreservedLabelState = labels
		}
		b.Spec.GracefulEvictionTasks = append(b.Spec.GracefulEvictionTasks, task)
	}
	if err := b.Update(ctx); err != nil {
		return err
	}
	for _, item := range failed {
		c.forget(k, &item.ClusterName)
	}
	ref := b.Spec.Resource
	obj := ref.Event()
	for _, item := range failed {
		c.recorder.Eventf(obj, corev1.EventTypeWarning, "ApplicationFailover", "moving away from %s: unhealthy there for %s (purge mode %s)",
			item.ClusterName, toleration, app.PurgeMode)
	}
	for _, n := range notes {
		c.recorder.Event(obj, corev1.EventTypeWarning, "StatePreservationFailed", n)
	}
	return nil
}

// observe records which target clusters report the workload Unhealthy and returns those
// unhealthy for at least toleration, and when the next one will be (zero: none). Clusters
// the workload is already leaving are not looked at.
func (c *Controller) observe(k bindings.Key, spec *federationv1alpha1.ResourceBindingSpec, items []federationv1alpha1.AggregatedStatusItem,
	now time.Time, toleration time.Duration) (failed []federationv1alpha1.AggregatedStatusItem, next time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	since := c.unhealthy[k]
	if since == nil {
		since = map[string]time.Time{}
		c.unhealthy[k] = since
	}
	seen := map[string]bool{}
	for _, item := range items {
		leaving := slices.ContainsFunc(spec.GracefulEvictionTasks, func(t federationv1alpha1.GracefulEvictionTask) bool { return t.FromCluster == item.ClusterName })
		target := slices.ContainsFunc(spec.Clusters, func(t federationv1alpha1.TargetCluster) bool { return t.Name == item.ClusterName })
		if item.Health != federationv1alpha1.ResourceUnhealthy || leaving || !target {
			continue
		}
		seen[item.ClusterName] = true
		first, ok := since[item.ClusterName]
		if !ok {
			first, since[item.ClusterName] = now, now
		}
		if due := first.Add(toleration); !due.After(now) {
			failed = append(failed, item)
		} else if next.IsZero() || due.Before(next) {
			next = due
		}
	}
	for cluster := range since {
		if !seen[cluster] {
			delete(since, cluster)
		}
	}
	return failed, next
}

// forget drops what is known of a binding's health, of one cluster or of all.
func (c *Controller) forget(k bindings.Key, cluster *string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cluster == nil {
		delete(c.unhealthy, k)
	} else if since := c.unhealthy[k]; since != nil {
		delete(since, *cluster)
	}
}

// preserve reads the values the rules name from a failed copy's status, as labels.
func preserve(rules []federationv1alpha1.StatePreservationRule, status []byte) (map[string]string, error) {
	if len(status) == 0 {
		return nil, fmt.Errorf("the failed copy reported no status")
	}
	var data any
	if err := json.Unmarshal(status, &data); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var errs []string
	for _, r := range rules {
		j := jsonpath.New(r.AliasLabelName).AllowMissingKeys(false)
		if err := j.Parse(r.JSONPath); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", r.AliasLabelName, err))
			continue
		}
		var buf bytes.Buffer
		if err := j.Execute(&buf, data); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", r.AliasLabelName, err))
			continue
		}
		value := buf.String()
		if msgs := validation.IsValidLabelValue(value); len(msgs) > 0 {
			errs = append(errs, fmt.Sprintf("%s: %q is no label value: %s", r.AliasLabelName, value, strings.Join(msgs, "; ")))
			continue
		}
		out[r.AliasLabelName] = value
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}
