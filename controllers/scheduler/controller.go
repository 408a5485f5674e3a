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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/noderoom"
	"github.com/fedhq/fed/controllers/internal/quota"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// key names a ResourceBinding (Namespace set) or a ClusterResourceBinding.
type key = bindings.Key

// Controller writes where each binding goes (spec.clusters) and its Scheduled condition,
// again whenever the binding or a cluster changes.
type Controller struct {
	clusters clusterlisters.ClusterLister
	bindings *bindings.Access
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[key]
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder
	// rooms are the members' nodes, which the room of a cluster is estimated from, less
	// what assumed holds for placements their probes do not show yet. roomMu makes
	// reading the room and assuming a placement in it one step, for bindings with
	// replicas: two scheduled at once would each see the room both take.
	rooms   *noderoom.Store
	assumed *assumed
	roomMu  sync.Mutex
	// quotas are the namespaces' FederatedResourceQuotas, which admit placements (nil:
	// none); see admit. ledger keeps what each binding of their namespaces uses.
	quotas Quotas
	ledger *quota.Ledger
	// namespaces serialize the admission of the placements of one namespace with quotas,
	// and their reservation in the ledger: *sync.Mutex by namespace.
	namespaces sync.Map
	// groups serialize the scheduling of the bindings of one workload affinity group:
	// *sync.Mutex by namespace and group (see groups.go).
	groups sync.Map
	// evictions space the evictions of NoExecute taints (nil: no limit).
	evictions *evictionQueue
	// held are the bindings a quota holds back, scheduled again when room may have freed.
	heldMu sync.Mutex
	held   map[key]bool
	// started is when the controller began to run (on the replica that leads): see
	// unpictured.
	started time.Time
}

// pictureWait is how long after it starts the scheduler waits for the first picture of a
// Ready member's nodes before it places replicas by the member's resource summary instead.
const pictureWait = 30 * time.Second

// Quotas are the FederatedResourceQuotas of the fleet's namespaces, as admission reads them.
type Quotas interface {
	// Of returns the quotas of a namespace.
	Of(namespace string) []quota.Quota
	// OnChange has f told of the namespace of each quota added, changed or deleted.
	OnChange(f func(namespace string)) error
}

// NewController schedules the bindings of the informers on the clusters of clusters,
// estimating their room from the members' nodes in rooms, evicting at most evictionRate
// bindings a second from clusters with NoExecute taints (0: no limit), and records events
// with recorder.
func NewController(fed versioned.Interface, clusters clusterinformers.ClusterInformer,
	access *bindings.Access, rooms *noderoom.Store, quotas Quotas, evictionRate float64, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		evictions: newEvictionQueue(evictionRate),
		recorder:  recorder,
		rooms:     rooms,
		assumed:   newAssumed(),
		quotas:    quotas,
		ledger:    quota.NewLedger(),
		held:      map[key]bool{},
		clusters:  clusters.Lister(),
		bindings:  access,
		synced:    []cache.InformerSynced{clusters.Informer().HasSynced, access.HasSynced},
		queue:     reconciler.NewQueue[key]("scheduler"),
	}
	enqueue := func(obj any) {
		if m, err := meta.Accessor(obj); err == nil {
			c.queue.Add(key{Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	// A binding whose placement changes, or that goes, may leave room in its namespace's
	// quotas for the bindings they hold back.
	release := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() != "" {
			c.releaseHeld(m.GetNamespace())
		}
	}
	observe := func(obj any) {
		switch b := obj.(type) {
		case *federationv1alpha1.ResourceBinding:
			c.ledger.Observe(b.Namespace, quota.FromView(b, &b.Spec))
			c.assumed.observe(key{Namespace: b.Namespace, Name: b.Name}, b.Status.AggregatedStatus)
		case *federationv1alpha1.ClusterResourceBinding:
			c.assumed.observe(key{Name: b.Name}, b.Status.AggregatedStatus)
		}
	}
	for _, inf := range access.Informers() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				observe(obj)
				enqueue(obj)
			},
			UpdateFunc: func(old, obj any) {
				observe(obj)
				enqueue(obj)
				c.groupChanged(old, obj)
				if o, n := old.(metav1.Object), obj.(metav1.Object); o.GetGeneration() != n.GetGeneration() {
					release(obj)
				}
			},
			DeleteFunc: func(obj any) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				if rb, ok := obj.(*federationv1alpha1.ResourceBinding); ok {
					c.ledger.Forget(rb.Namespace, rb.Name)
				}
				if m, err := meta.Accessor(obj); err == nil {
					c.assumed.forget(key{Namespace: m.GetNamespace(), Name: m.GetName()})
				}
				release(obj)
				c.groupChanged(nil, obj)
			},
		}); err != nil {
			return nil, err
		}
	}
	if quotas != nil {
		if err := quotas.OnChange(c.releaseHeld); err != nil {
			return nil, err
		}
	}
	// A cluster that joins, leaves or changes its labels or taints may change any placement.
	all := func(any) { c.enqueueAll() }
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    all,
		UpdateFunc: func(old, obj any) { c.clusterChanged(old, obj) },
		DeleteFunc: all,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// noFitRetry is how long a binding no cluster fits waits before it is scheduled again.
const noFitRetry = time.Minute

// clusterChanged reschedules when what placement reads of a cluster changed: its labels,
// provider, region, zone or taints. Not its status, which changes every probe: the room a
// cluster has is read when a binding is scheduled, and a binding that did not fit is
// retried after noFitRetry.
func (c *Controller) clusterChanged(old, obj any) {
	o, okOld := old.(metav1.Object)
	n, okNew := obj.(metav1.Object)
	if okOld && okNew && o.GetGeneration() == n.GetGeneration() && apiequality.Semantic.DeepEqual(o.GetLabels(), n.GetLabels()) {
		return
	}
	c.enqueueAll()
}

func (c *Controller) enqueueAll() {
	for _, k := range c.bindings.Keys(metav1.NamespaceAll) {
		c.queue.Add(k)
	}
}

// Run schedules with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.started = time.Now()
	reconciler.Run(ctx, c.queue, workers, c.synced, "Scheduling a binding", c.reconcile)
}

// unpictured tells whether, in the first pictureWait after the scheduler started, a Ready
// member has no picture of its nodes yet. Its resource summary is as old as fed's last
// probe before it started, and the scheduler's assumptions count only on a picture: a
// burst of templates placed on the summary right after a restart could all land on a
// member with room for one. The first probes come within seconds of the start.
func (c *Controller) unpictured(clusters []*clusterv1alpha1.Cluster, now time.Time) bool {
	if c.rooms == nil || now.Sub(c.started) > pictureWait {
		return false
	}
	for _, cl := range clusters {
		if _, ok := c.rooms.Get(cl.Name); !ok && meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			return true
		}
	}
	return false
}

// ours tells whether a binding is this scheduler's: spec.schedulerName is fed's default
// scheduler, or empty. A binding naming another scheduler is left to it.
func ours(name string) bool {
	return name == "" || name == federationv1alpha1.DefaultSchedulerName
}

// reconcile places one binding: its clusters when its placement can be met, and its
// Scheduled condition either way (an unschedulable binding keeps where it was).
func (c *Controller) reconcile(ctx context.Context, k key) error {
	b, err := c.bindings.Get(k)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if b.Meta.GetDeletionTimestamp() != nil || !ours(b.Spec.SchedulerName) {
		return nil
	}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	// A cluster being deleted (unjoined) takes nothing more and keeps nothing: fed cleans
	// it up before it goes.
	clusters = slices.DeleteFunc(clusters, func(cl *clusterv1alpha1.Cluster) bool { return cl.DeletionTimestamp != nil })
	cond := metav1.Condition{Type: federationv1alpha1.BindingConditionScheduled, Status: metav1.ConditionTrue, Reason: "Success",
		Message: "the binding is scheduled"}
	now := time.Now()
	in := Input{Placement: b.Spec.Placement, Replicas: b.Spec.Replicas, Previous: applyMoves(b.Spec.Clusters, b.Spec.ReplicaMoves),
		PreviousAffinity: b.Status.SchedulerObservedAffinityName, Now: now, Available: nodeAvailable(c.rooms, c.assumed, b.Spec.ReplicaRequirements)}
	fresh := afresh(b.Spec, b.Status)
	if fresh {
		// A WorkloadRebalancer asked: placed as if it were placed nowhere yet.
		in.Previous, in.PreviousAffinity = nil, ""
	}
	for _, task := range b.Spec.GracefulEvictionTasks {
		in.Leaving = append(in.Leaving, task.FromCluster)
	}
	if rr := b.Spec.ReplicaRequirements; rr != nil {
		in.ResourceRequest = rr.ResourceRequest
	}
	if len(b.Spec.Components) > 0 {
		in.Sets = nodeSets(c.rooms, c.assumed, b.Spec.Components)
	}
	if g := groupsOf(b.Spec); g != nil {
		// Held until the binding is written: the others of its groups are read, and it is
		// placed by them, one at a time.
		defer c.lockGroups(k.Namespace, g)()
		in.Groups = g
		in.Together, in.Apart = c.groupClusters(k, b.Meta, g)
	}
	takesRoom := b.Spec.Replicas > 0 || len(b.Spec.Components) > 0
	if takesRoom && c.unpictured(clusters, now) {
		c.queue.AddAfter(k, time.Second)
		return nil
	}
	unlockRoom := func() {}
	if takesRoom {
		c.roomMu.Lock()
		unlockRoom = c.roomMu.Unlock
	}
	result, err := Schedule(clusters, in)
	write := err == nil && (!apiequality.Semantic.DeepEqual(result.Clusters, b.Spec.Clusters) || len(b.Spec.ReplicaMoves) > 0)
	if write && len(result.Evicted) > 0 {
		if wait := c.evictions.wait(k, now); wait > 0 {
			// Not its turn: it keeps its placement until then.
			unlockRoom()
			c.queue.AddAfter(k, wait)
			return nil
		}
	} else {
		c.evictions.drop(k)
	}
	// reserved is the ledger's entry of the binding before an admitted placement took its
	// place there; the write failing puts it back.
	var reserved *quota.Binding
	if write && k.Namespace != "" && c.quotas != nil {
		if quotas := c.quotas.Of(k.Namespace); len(quotas) > 0 {
			// The namespace's other placements are read and this one reserved in the
			// ledger under one lock: two bindings admitted at once would each see the room
			// both take. The write itself is not under it.
			unlock := c.lockNamespace(k.Namespace)
			if e := c.admit(k, b, quotas, result.Clusters); e != nil {
				err, write = &Unschedulable{Reason: ReasonQuotaExceeded, Message: heldMessage(b.Spec, e)}, false
			} else {
				old := *b.Spec // b.Spec changes below
				before := quota.FromView(b.Meta, &old)
				reserved = &before
				spec := *b.Spec
				spec.Clusters = result.Clusters
				// The write makes the next generation; an event of this one does not undo it.
				c.ledger.Record(k.Namespace, quota.Binding{Name: k.Name, Generation: b.Meta.GetGeneration() + 1, Spec: &spec})
			}
			unlock()
		}
	}
	unassume := func() {}
	switch {
	case write && len(b.Spec.Components) > 0:
		unassume = c.assumed.placeWhole(k, b.Spec.Clusters, result.Clusters, b.Spec.Components, b.Status.AggregatedStatus)
	case write && b.Spec.Replicas > 0:
		unassume = c.assumed.place(k, b.Spec.Clusters, result.Clusters, newNodeEstimate(b.Spec.ReplicaRequirements), b.Status.AggregatedStatus)
	}
	unlockRoom()
	var u *Unschedulable
	errors.As(err, &u)
	c.setHeld(k, u != nil && u.Reason == ReasonQuotaExceeded)
	switch {
	case u != nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, u.Reason, u.Message
		if u.Reason == ReasonNoClusterFit || u.Reason == ReasonQuotaExceeded {
			// Room frees up without an event that enqueues bindings (cluster status
			// changes do not; a quota's room is watched, see releaseHeld), so look again
			// later.
			c.queue.AddAfter(k, noFitRetry)
		}
	case err != nil:
		return err
	case write:
		previous := b.Spec.Clusters
		b.Spec.Clusters = result.Clusters
		// The moves asked for are made, in the same write.
		b.Spec.ReplicaMoves = nil
		tasks := evictionTasks(b.Spec, previous, result.Evicted, metav1.NewTime(now))
		b.Spec.GracefulEvictionTasks = append(b.Spec.GracefulEvictionTasks, tasks...)
		if err := b.Update(ctx); err != nil {
			if reserved != nil {
				c.ledger.Restore(k.Namespace, *reserved)
			}
			unassume()
			return err
		}
		if k.Namespace != "" {
			c.ledger.Record(k.Namespace, quota.FromView(b.Meta, b.Spec))
		}
		for _, e := range result.Evicted {
			c.event(b.Spec.Resource, corev1.EventTypeWarning, "Evicted", "%s", evictionMessage(e, tasks))
		}
		c.event(b.Spec.Resource, corev1.EventTypeNormal, "Scheduled", "placed on %s", bindings.Placed(result.Clusters))
	}
	if !result.Recheck.IsZero() {
		// A NoExecute taint tolerated for a while: its time runs out without an event.
		c.queue.AddAfter(k, result.Recheck.Sub(now))
	}
	if u != nil {
		// Once per reason: the message counts the room left, which changes with every
		// probe of a busy member.
		if old := meta.FindStatusCondition(b.Status.Conditions, federationv1alpha1.BindingConditionScheduled); old == nil ||
			old.Status != metav1.ConditionFalse || old.Reason != u.Reason {
			c.event(b.Spec.Resource, corev1.EventTypeWarning, "ScheduleFailed", "%s", u.Message)
		}
	}
	cond.ObservedGeneration = b.Meta.GetGeneration()
	changed := meta.SetStatusCondition(&b.Status.Conditions, cond)
	if err == nil && b.Status.SchedulerObservedAffinityName != result.AffinityName {
		b.Status.SchedulerObservedAffinityName, changed = result.AffinityName, true
	}
	if b.Status.SchedulerObservedGeneration != b.Meta.GetGeneration() {
		b.Status.SchedulerObservedGeneration, changed = b.Meta.GetGeneration(), true
	}
	if cond.Status == metav1.ConditionTrue && (changed || fresh) {
		at := metav1.NewTime(now)
		if t := b.Spec.RescheduleTriggeredAt; fresh && at.Before(t) {
			// The request is answered: lastScheduledTime is not before it.
			at = *t
		}
		b.Status.LastScheduledTime, changed = &at, true
	}
	if !changed {
		return nil
	}
	return b.UpdateStatus(ctx)
}

// afresh tells whether a binding is to be placed afresh: a WorkloadRebalancer asked for it
// (spec.rescheduleTriggeredAt) after the binding was last placed.
func afresh(spec *federationv1alpha1.ResourceBindingSpec, status *federationv1alpha1.ResourceBindingStatus) bool {
	t := spec.RescheduleTriggeredAt
	return t != nil && (status.LastScheduledTime == nil || status.LastScheduledTime.Before(t))
}

// event records an event on the template of a binding.
func (c *Controller) event(ref federationv1alpha1.ObjectReference, eventType, reason, format string, args ...any) {
	c.recorder.Eventf(ref.Event(),
		eventType, reason, format, args...)
}

// ReasonQuotaExceeded is the Scheduled condition's reason for a binding whose placement
// would take its namespace over a FederatedResourceQuota: it keeps where it was.
const ReasonQuotaExceeded = "QuotaExceeded"

// admit checks a binding's new placement against its namespace's quotas, with what the
// namespace's other bindings (not being deleted) are placed to use, as this process last
// wrote or read them (the ledger).
func (c *Controller) admit(k key, b *bindings.Binding, quotas []quota.Quota, clusters []federationv1alpha1.TargetCluster) *quota.Exceeded {
	names := quota.Names(quotas)
	others := c.ledger.Others(k.Namespace, k.Name, names, func() []quota.Binding {
		var out []quota.Binding
		for _, other := range c.bindings.Keys(k.Namespace) {
			if m, spec, err := c.bindings.Peek(other); err == nil {
				out = append(out, quota.FromView(m, spec))
			}
		}
		return out
	})
	return quota.Admit(quotas, others, quota.OfBinding(b.Spec, b.Spec.Clusters, names), quota.OfBinding(b.Spec, clusters, names))
}

// heldMessage says why a binding is not placed, and what it keeps.
func heldMessage(spec *federationv1alpha1.ResourceBindingSpec, e *quota.Exceeded) string {
	if len(spec.Clusters) == 0 || len(spec.Components) == 0 && quota.Replicas(spec.Clusters) == 0 {
		return e.Error() + "; the workload is not placed until the quota has room"
	}
	return fmt.Sprintf("%s; the workload stays on %s until the quota has room", e.Error(), bindings.Placed(spec.Clusters))
}

// lockNamespace takes the admission lock of a namespace and returns its release.
func (c *Controller) lockNamespace(namespace string) func() {
	mu, _ := c.namespaces.LoadOrStore(namespace, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// setHeld records whether a quota holds a binding back.
func (c *Controller) setHeld(k key, held bool) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if held {
		c.held[k] = true
	} else {
		delete(c.held, k)
	}
}

// releaseHeld schedules again the bindings of a namespace that its quotas held back.
func (c *Controller) releaseHeld(namespace string) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	for k := range c.held {
		if k.Namespace == namespace {
			c.queue.Add(k)
		}
	}
}
