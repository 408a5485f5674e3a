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

// Package descheduler moves the replicas a member cannot run: every Interval it looks at
// the bindings divided dynamically (dynamicWeight AvailableReplicas, or Aggregated), and
// for each target cluster counts the workload's pods there that its scheduler has left
// Unschedulable for longer than Threshold. It asks the scheduler, which alone writes the
// binding's spec.clusters, to take that many replicas from the cluster (spec.replicaMoves);
// the scheduler places them again, on clusters with room (the member's own room being what
// its nodes can take). Static weights and Duplicated are
// left alone: they say where replicas go whatever the room.
package descheduler

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/works"
)

// Defaults of Options: the descheduler of seed 002 runs every 2 minutes; a pod counts as
// unschedulable after 5 minutes, as Karmada's does.
const (
	DefaultInterval  = 2 * time.Minute
	DefaultThreshold = 5 * time.Minute
)

// Options tune the descheduler; zero values take the defaults.
type Options struct {
	// Interval is how often every binding is looked at.
	Interval time.Duration
	// Threshold is how long a pod must have been unschedulable to count.
	Threshold time.Duration
}

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Controller takes unschedulable replicas from clusters.
type Controller struct {
	bindings *bindings.Access
	works    *works.Access
	members  *members.Members
	recorder record.EventRecorder
	opts     Options
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[bindings.Key]
}

// NewController looks at the bindings of access, their Works in wa and their pods in the
// members of mbs, and records events with recorder.
func NewController(access *bindings.Access, wa *works.Access, mbs *members.Members, recorder record.EventRecorder, opts Options) *Controller {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	return &Controller{bindings: access, works: wa, members: mbs, recorder: recorder, opts: opts,
		synced: []cache.InformerSynced{access.HasSynced, wa.Informer().HasSynced},
		queue:  reconciler.NewQueue[bindings.Key]("descheduler")}
}

// Run looks at every binding each Interval, with workers, until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	go func() {
		t := time.NewTicker(c.opts.Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				for _, k := range c.bindings.Keys(metav1.NamespaceAll) {
					c.queue.Add(k)
				}
			}
		}
	}()
	reconciler.Run(ctx, c.queue, workers, c.synced, "Descheduling a binding", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, k bindings.Key) error {
	meta, spec, err := c.bindings.Peek(k)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if meta.GetDeletionTimestamp() != nil || !policy.DividedByRoom(spec.Placement) || len(spec.GracefulEvictionTasks) > 0 ||
		len(spec.ReplicaMoves) > 0 {
		return nil // a binding being moved away from a cluster is the failover's; moves asked for, the scheduler's
	}
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ws, err := c.works.OfBinding(k.Namespace, k.Name)
	if err != nil {
		return err
	}
	now := time.Now()
	var moves []federationv1alpha1.ReplicaMoveRequest
	var moved []string
	for _, t := range b.Spec.Clusters {
		n := int32(0)
		if t.Replicas > 0 && ws[t.Name] != nil {
			if n, err = c.unschedulable(ctx, t.Name, t.Replicas, ws[t.Name], now); err != nil {
				n = 0 // a member that cannot be read keeps its replicas
			}
		}
		if n = min(n, t.Replicas); n > 0 {
			moved = append(moved, fmt.Sprintf("%d from %s", n, t.Name))
			moves = append(moves, federationv1alpha1.ReplicaMoveRequest{FromCluster: t.Name, Replicas: n,
				Producer: federationv1alpha1.MoveProducerDescheduler,
				Message:  fmt.Sprintf("%d replica(s) unschedulable in %s for over %s", n, t.Name, c.opts.Threshold)})
		}
	}
	if len(moves) == 0 {
		return nil
	}
	// The scheduler alone writes spec.clusters: it takes the replicas from these clusters
	// and places them where there is room.
	b.Spec.ReplicaMoves = moves
	if err := b.Update(ctx); err != nil {
		return err
	}
	ref := b.Spec.Resource
	c.recorder.Eventf(ref.Event(),
		corev1.EventTypeNormal, "Descheduled", "replicas unschedulable for over %s moved to clusters with room: %s", c.opts.Threshold, strings.Join(moved, ", "))
	return nil
}

// unschedulable counts the pods of a Work's workload in its cluster that the member's
// scheduler has left Unschedulable since before now less Threshold. The pods are those
// the workload's spec.selector selects in its namespace.
func (c *Controller) unschedulable(ctx context.Context, cluster string, replicas int32, w *federationv1alpha1.Work, now time.Time) (int32, error) {
	// Only once the member has what the binding says: otherwise the pods counted may be
	// the ones a previous pass already took replicas for.
	if !works.AppliedFor(w, replicas) {
		return 0, nil
	}
	m := &unstructured.Unstructured{}
	if err := m.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
		return 0, err
	}
	raw, found, err := unstructured.NestedMap(m.Object, "spec", "selector")
	if err != nil || !found {
		return 0, err
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls); err != nil {
		return 0, err
	}
	selector, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil || selector.Empty() {
		return 0, err
	}
	mb, err := c.members.Get(cluster)
	if err != nil {
		return 0, err
	}
	list, err := mb.Client.Resource(podsResource).Namespace(m.GetNamespace()).List(ctx,
		metav1.ListOptions{LabelSelector: selector.String(), ResourceVersion: "0"})
	if err != nil {
		return 0, err
	}
	var n int32
	for i := range list.Items {
		var pod corev1.Pod
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &pod); err != nil {
			continue
		}
		if stuck(&pod, now.Add(-c.opts.Threshold)) {
			n++
		}
	}
	return n, nil
}

// stuck tells whether a pod has been Pending, unschedulable, since before.
func stuck(pod *corev1.Pod, before time.Time) bool {
	if pod.DeletionTimestamp != nil || pod.Spec.NodeName != "" || pod.Status.Phase != corev1.PodPending {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.LastTransitionTime.Time.Before(before)
		}
	}
	return false
}
