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

// Package rebalancer moves replicas by load, as ReplicaSchedulingPolicies say: every
// policy's interval it looks at the members' requested CPU and memory (their resource
// summaries) and, for the dynamically divided workloads the policy selects, moves replicas
// off members above the threshold onto members the placement allows that stay 10 points
// below it (the hysteresis that keeps a move from being undone by the next). It asks the
// scheduler, which alone writes the bindings' spec.clusters, for the moves
// (spec.replicaMoves); the total stays the same, which the scheduler keeps as it is. Each
// move is an event on the template and an entry of the policy's status.
package rebalancer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
)

// ConditionReady is the condition of a ReplicaSchedulingPolicy: True while it is enabled
// and acted on.
const ConditionReady = "Ready"

// Controller runs the ReplicaSchedulingPolicies.
type Controller struct {
	fed       versioned.Interface
	policies  fedlisters.ReplicaSchedulingPolicyLister
	clusters  clusterlisters.ClusterLister
	bindings  *bindings.Access
	templates *templates.Templates
	recorder  record.EventRecorder
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
}

// Deps are what the rebalancer works with.
type Deps struct {
	// Fed writes the policies' status.
	Fed      versioned.Interface
	Policies fedinformers.ReplicaSchedulingPolicyInformer
	// Clusters' resource summaries are the load.
	Clusters clusterinformers.ClusterInformer
	// Bindings are where it asks for moves; their templates are read for the policies'
	// selectors.
	Bindings  *bindings.Access
	Templates *templates.Templates
	Recorder  record.EventRecorder
}

// NewController runs the ReplicaSchedulingPolicies over the clusters and the bindings.
func NewController(d Deps) (*Controller, error) {
	rsps, clusters, access := d.Policies, d.Clusters, d.Bindings
	c := &Controller{fed: d.Fed, policies: rsps.Lister(), clusters: clusters.Lister(), bindings: access, templates: d.Templates, recorder: d.Recorder,
		synced: []cache.InformerSynced{rsps.Informer().HasSynced, clusters.Informer().HasSynced, access.HasSynced},
		queue:  reconciler.NewQueue[string]("rebalancer")}
	if _, err := rsps.Informer().AddEventHandler(reconciler.SpecChanges(reconciler.EnqueueKey(c.queue))); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs the policies with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Rebalancing by a ReplicaSchedulingPolicy", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, name string) error {
	rsp, err := c.policies.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	rp := rsp.Spec.ReschedulePolicy
	if rp == nil || !rp.Enabled {
		return c.writeStatus(ctx, rsp, nil, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: "Disabled",
			Message: "reschedulePolicy.enabled is false"})
	}
	interval := time.Minute
	if rp.Interval != nil {
		interval = rp.Interval.Duration
	}
	var th Threshold
	if t := rp.Threshold; t != nil {
		th = Threshold{CPU: int64(ptr.Deref(t.CPUUtilization, 0)), Memory: int64(ptr.Deref(t.MemoryUtilization, 0))}
	}
	moves, err := c.pass(ctx, rsp, th)
	if err != nil {
		// A binding changed meanwhile: the pass is tried again soon.
		return reconciler.RequeueAfter(5*time.Second, err)
	}
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Balanced",
		Message: fmt.Sprintf("no member requests more than the threshold, or none can take replicas (looked at every %s)", interval)}
	if len(moves) > 0 {
		cond.Reason, cond.Message = "Rebalanced", fmt.Sprintf("moved replicas of %d workload(s) (looked at every %s)", countTemplates(moves), interval)
	}
	// The next pass comes after the interval, whatever became of this status write.
	return reconciler.RequeueAfter(interval, c.writeStatus(ctx, rsp, moves, cond))
}

// pass moves the replicas of the bindings the policy selects, and returns the moves.
func (c *Controller) pass(ctx context.Context, rsp *federationv1alpha1.ReplicaSchedulingPolicy, th Threshold) ([]federationv1alpha1.ReplicaMove, error) {
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	loads := map[string]*load{}
	ready := map[string]*clusterv1alpha1.Cluster{}
	for _, cl := range clusters {
		if !meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			continue
		}
		if l := loadOf(cl); l != nil {
			loads[cl.Name], ready[cl.Name] = l, cl
		}
	}
	var out []federationv1alpha1.ReplicaMove
	now := metav1.Now()
	keys := c.bindings.Keys(metav1.NamespaceAll)
	slices.SortFunc(keys, func(a, b bindings.Key) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, k := range keys {
		b, err := c.bindings.Get(k)
		if err != nil || b.Meta.GetDeletionTimestamp() != nil || !policy.DividedByRoom(b.Spec.Placement) ||
			len(b.Spec.Placement.SpreadConstraints) > 0 || len(b.Spec.GracefulEvictionTasks) > 0 || len(b.Spec.ReplicaMoves) > 0 ||
			b.Spec.ReplicaRequirements == nil {
			continue
		}
		if !c.selects(rsp, b.Spec.Resource) {
			continue
		}
		allowed, ok := allowedBy(b, ready)
		if !ok {
			continue
		}
		_, moves := plan(b.Spec.Clusters, b.Spec.ReplicaRequirements.ResourceRequest, loads, allowed, th)
		if len(moves) == 0 {
			continue
		}
		// The scheduler alone writes spec.clusters: it makes the moves at its next pass.
		for _, m := range moves {
			b.Spec.ReplicaMoves = append(b.Spec.ReplicaMoves, federationv1alpha1.ReplicaMoveRequest{FromCluster: m.From, ToCluster: m.To,
				Replicas: m.Replicas, Producer: federationv1alpha1.MoveProducerRebalancer,
				Message: fmt.Sprintf("%s requests more than %s of its allocatable (ReplicaSchedulingPolicy %s)", m.From, th, rsp.Name)})
		}
		if err := b.Update(ctx); err != nil {
			return out, err
		}
		ref := b.Spec.Resource
		obj := ref.Event()
		for _, m := range moves {
			c.recorder.Eventf(obj, corev1.EventTypeNormal, "Rebalanced", "moved %d replica(s) from %s to %s: %s requests more than %s of its allocatable (ReplicaSchedulingPolicy %s)",
				m.Replicas, m.From, m.To, m.From, th, rsp.Name)
			out = append(out, federationv1alpha1.ReplicaMove{Time: now, Template: ref, FromCluster: m.From, ToCluster: m.To, Replicas: m.Replicas})
		}
	}
	return out, nil
}

func (t Threshold) String() string {
	switch {
	case t.CPU > 0 && t.Memory > 0:
		return fmt.Sprintf("%d%% of CPU or %d%% of memory", t.CPU, t.Memory)
	case t.CPU > 0:
		return fmt.Sprintf("%d%% of CPU", t.CPU)
	}
	return fmt.Sprintf("%d%% of memory", t.Memory)
}

// selects tells whether a policy selects a template: every template without selectors.
func (c *Controller) selects(rsp *federationv1alpha1.ReplicaSchedulingPolicy, ref federationv1alpha1.ObjectReference) bool {
	if len(rsp.Spec.ResourceSelectors) == 0 {
		return true
	}
	tmpl, _, ok, err := c.templates.Bound(ref)
	if !ok || err != nil {
		return false
	}
	for _, sel := range rsp.Spec.ResourceSelectors {
		if policy.SelectorPriority(tmpl, sel, "") != policy.NoMatch {
			return true
		}
	}
	return false
}

// allowedBy says which Ready clusters a binding's placement lets it use: those its cluster
// affinity (or, with clusterAffinities, the group it is placed in) selects, whose
// NoSchedule and NoExecute taints it tolerates. ok is false when that cannot be told.
func allowedBy(b *bindings.Binding, ready map[string]*clusterv1alpha1.Cluster) (func(string) bool, bool) {
	p := b.Spec.Placement
	affinity := p.ClusterAffinity
	if len(p.ClusterAffinities) > 0 {
		affinity = nil
		for i := range p.ClusterAffinities {
			if p.ClusterAffinities[i].AffinityName == b.Status.SchedulerObservedAffinityName {
				affinity = &p.ClusterAffinities[i].ClusterAffinity
			}
		}
		if affinity == nil {
			return nil, false
		}
	}
	m, err := policy.NewAffinityMatcher(affinity)
	if err != nil {
		return nil, false
	}
	return func(name string) bool {
		cl := ready[name]
		if cl == nil {
			return false
		}
		ok, err := m.Matches(cl)
		return err == nil && ok && policy.Tolerates(cl.Spec.Taints, p.ClusterTolerations, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
	}, true
}

func countTemplates(moves []federationv1alpha1.ReplicaMove) int {
	seen := map[federationv1alpha1.ObjectReference]bool{}
	for _, m := range moves {
		seen[federationv1alpha1.ObjectReference{APIVersion: m.Template.APIVersion, Kind: m.Template.Kind, Namespace: m.Template.Namespace, Name: m.Template.Name}] = true
	}
	return len(seen)
}

// writeStatus records a pass: its condition, its time (lastRebalanceTime) and the moves
// it made (the last MaxReplicaMoves kept). A disabled policy gets its condition only.
func (c *Controller) writeStatus(ctx context.Context, rsp *federationv1alpha1.ReplicaSchedulingPolicy, moves []federationv1alpha1.ReplicaMove, cond metav1.Condition) error {
	u := rsp.DeepCopy()
	cond.ObservedGeneration = rsp.Generation
	changed := meta.SetStatusCondition(&u.Status.Conditions, cond)
	if cond.Status == metav1.ConditionTrue {
		now := metav1.Now()
		u.Status.LastRebalanceTime, changed = &now, true
	}
	if len(moves) > 0 {
		u.Status.Moves = append(u.Status.Moves, moves...)
		if n := len(u.Status.Moves) - federationv1alpha1.MaxReplicaMoves; n > 0 {
			u.Status.Moves = u.Status.Moves[n:]
		}
	}
	if !changed {
		return nil
	}
	_, err := c.fed.FederationV1alpha1().ReplicaSchedulingPolicies().UpdateStatus(ctx, u, metav1.UpdateOptions{})
	return err
}
