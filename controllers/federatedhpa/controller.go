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

// Package federatedhpa scales workload templates on the metrics of their pods in every
// member cluster, as the Kubernetes HorizontalPodAutoscaler scales a workload in one: each
// FederatedHPA is reconciled every sync period; its target's replicas are read and written
// through the template's scale subresource in the fleet, and the scheduler divides them
// among the members. The replica calculation (replicas.go) and the behavior's
// stabilization and policies (behavior.go) are pure and follow the HPA's rules.
package federatedhpa

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/metricsadapter"
)

// DefaultSyncPeriod is how often each FederatedHPA is reconciled, as the HPA's
// --horizontal-pod-autoscaler-sync-period.
const DefaultSyncPeriod = 15 * time.Second

// Metrics reads the fleet's pod metrics and its members' custom and external metrics
// (metricsadapter.Adapter).
type Metrics interface {
	PodMetrics(ctx context.Context, q metricsadapter.Query) (metricsadapter.Result[metricsv1beta1.PodMetrics], error)
	CustomMetrics(ctx context.Context, q metricsadapter.CustomQuery) (metricsadapter.Result[metricsadapter.CustomValue], error)
	ExternalMetrics(ctx context.Context, q metricsadapter.ExternalQuery) (metricsadapter.Result[metricsadapter.ExternalValue], error)
}

// Targets resolves a target's kind to its resource in the fleet (scaletargets.Mapper).
type Targets interface {
	Resource(ref autoscalingv2.CrossVersionObjectReference) (schema.GroupResource, error)
}

// Config is what the controller needs.
type Config struct {
	Fed      versioned.Interface
	HPAs     fedinformers.TypedFederatedHPAInformer
	Clusters clusterlisters.ClusterLister
	// Bindings say which members run each target.
	Bindings fedinformers.TypedResourceBindingInformer
	Members  *members.Members
	Metrics  Metrics
	// Scales reads and writes the templates' scale subresource in the fleet; Targets maps
	// their kinds.
	Scales   scale.ScalesGetter
	Targets  Targets
	Recorder record.EventRecorder
	// SyncPeriod is how often each FederatedHPA is reconciled (DefaultSyncPeriod if 0).
	SyncPeriod time.Duration
}

// Controller reconciles FederatedHPAs.
type Controller struct {
	cfg    Config
	lister fedlisters.FederatedHPALister
	synced []cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	now    func() time.Time

	mu      sync.Mutex
	history map[string]*history
}

// history is what the controller remembers of a FederatedHPA between reconciles: its
// recommendations (for the stabilization windows) and its rescales (for the policies).
type history struct {
	recommendations []Recommendation
	events          []ScaleEvent
}

// NewController returns the controller; Run starts it.
func NewController(cfg Config) (*Controller, error) {
	if cfg.SyncPeriod <= 0 {
		cfg.SyncPeriod = DefaultSyncPeriod
	}
	c := &Controller{
		cfg:     cfg,
		lister:  cfg.HPAs.Lister(),
		synced:  []cache.InformerSynced{cfg.HPAs.Informer().HasSynced, cfg.Bindings.Informer().HasSynced},
		queue:   reconciler.NewQueue[string]("federatedhpa"),
		now:     time.Now,
		history: map[string]*history{},
	}
	// Status writes (its own) do not change the generation; a changed spec does.
	if _, err := cfg.HPAs.Informer().AddEventHandler(reconciler.SpecChanges(reconciler.EnqueueKey(c.queue))); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles FederatedHPAs with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Scaling a FederatedHPA's target", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cur, err := c.cfg.HPAs.Lister().FederatedHPAs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		delete(c.history, key)
		c.mu.Unlock()
		return nil
	}
	if err != nil {
		return err
	}
	hpa := cur.DeepCopy()
	hpa.Status.ObservedGeneration = ptr.To(hpa.Generation)
	c.scale(ctx, key, hpa)
	sortConditions(hpa)
	if !equality.Semantic.DeepEqual(hpa.Status, cur.Status) {
		_, err := c.cfg.Fed.FederationV1alpha1().FederatedHPAs(ns).UpdateStatus(ctx, hpa, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			// Changed meanwhile (a label, say): only a new generation queues it again, so
			// try again soon rather than wait for one.
			return reconciler.RequeueAfter(time.Second, err)
		}
		if err != nil {
			return err
		}
	}
	return reconciler.RequeueAfter(c.cfg.SyncPeriod, nil)
}

// scale does one round of the HPA's work on hpa, recording the outcome in its status
// (conditions, replicas, metrics) and in events.
func (c *Controller) scale(ctx context.Context, key string, hpa *federationv1alpha1.FederatedHPA) {
	now := c.now()
	ref := hpa.Spec.ScaleTargetRef
	gr, err := c.cfg.Targets.Resource(ref)
	var sc *autoscalingv1.Scale
	if err == nil {
		sc, err = c.cfg.Scales.Scales(hpa.Namespace).Get(ctx, gr, ref.Name, metav1.GetOptions{})
	}
	if err != nil {
		c.event(hpa, corev1.EventTypeWarning, "FailedGetScale", err.Error())
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: %v", err)
		return
	}
	current := sc.Spec.Replicas
	hpa.Status.CurrentReplicas = current
	if others := c.othersOn(hpa); len(others) > 0 {
		// As the HPA's AmbiguousSelector: two autoscalers of one target would fight.
		msg := fmt.Sprintf("%s %s is scaled by several FederatedHPAs: %s", ref.Kind, ref.Name, strings.Join(append(others, hpa.Name), ", "))
		c.event(hpa, corev1.EventTypeWarning, "AmbiguousSelector", msg)
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "AmbiguousSelector", "%s", msg)
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
		return
	}
	minReplicas := ptr.Deref(hpa.Spec.MinReplicas, 1)
	behavior := DefaultBehavior(hpa.Spec.Behavior)

	var desired int32
	rescaleReason := ""
	ableReason, ableMessage := "ReadyForNewScale", "recommended size matches current size"
	switch {
	case current == 0 && minReplicas != 0:
		// Scaled to zero by hand: the HPA leaves it so.
		hpa.Status.DesiredReplicas = 0
		hpa.Status.CurrentMetrics = nil
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
		return
	case current > hpa.Spec.MaxReplicas:
		desired, rescaleReason = hpa.Spec.MaxReplicas, "Current number of replicas above Spec.MaxReplicas"
		hpa.Status.CurrentMetrics = nil
	case current < minReplicas:
		desired, rescaleReason = minReplicas, "Current number of replicas below Spec.MinReplicas"
		hpa.Status.CurrentMetrics = nil
	default:
		got := c.computeReplicas(ctx, hpa, current, sc.Status.Selector, now)
		hpa.Status.CurrentMetrics = got.statuses
		for _, w := range got.warnings {
			c.event(hpa, corev1.EventTypeWarning, w.reason, w.Error())
		}
		for _, e := range got.invalid {
			c.event(hpa, corev1.EventTypeWarning, e.reason, e.Error())
		}
		if got.valid == 0 {
			first := got.invalid[0]
			c.event(hpa, corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "invalid metrics ("+strconv.Itoa(len(got.invalid))+" invalid out of "+
				strconv.Itoa(len(got.invalid))+"), first error is: "+first.Error())
			setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, first.reason, "the HPA was unable to compute the replica count: %v", first.err)
			setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
			return
		}
		proposal := got.replicas
		switch {
		case len(got.invalid) > 0:
			// As the HPA: a metric that could not be read might have asked for more, so
			// no scale-down.
			first := got.invalid[0]
			setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, first.reason, "the HPA was unable to compute the replica count: %v", first.err)
			proposal = max(proposal, current)
		case len(got.unseen) > 0 && proposal < current:
			// The pods or metrics of some members could not be read: they might be the
			// busy ones.
			c.event(hpa, corev1.EventTypeWarning, "ScaleDownHeldBack", fmt.Sprintf("the pods or metrics of %s could not be read: no scale-down to %d until they can",
				strings.Join(got.unseen, ", "), proposal))
			setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
				"the HPA was able to successfully calculate a replica count from %s", got.metricName)
			proposal = current
		default:
			setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
				"the HPA was able to successfully calculate a replica count from %s", got.metricName)
		}
		metricName := got.metricName
		c.mu.Lock()
		h := c.historyOf(key)
		if len(h.recommendations) == 0 {
			// As the HPA: the current count is the first recommendation, so that a new
			// FederatedHPA (or fed after a restart) honours the scale-down window at once.
			h.recommendations = []Recommendation{{Time: now, Replicas: current}}
		}
		decision := Normalize(behavior, minReplicas, hpa.Spec.MaxReplicas, current, proposal,
			h.recommendations, h.events, now)
		h.recommendations = decision.Recommendations
		c.mu.Unlock()
		desired = decision.Replicas
		ableReason, ableMessage = decision.AbleToScaleReason, decision.AbleToScaleMessage
		status := corev1.ConditionFalse
		if decision.Limited {
			status = corev1.ConditionTrue
		}
		setCondition(hpa, autoscalingv2.ScalingLimited, status, decision.Reason, "%s", decision.Message)
		rescaleReason = metricName + " above target"
		if desired < current {
			rescaleReason = "All metrics below target"
		}
	}
	hpa.Status.DesiredReplicas = desired
	if desired == current {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, ableReason, "%s", ableMessage)
		return
	}
	sc.Spec.Replicas = desired
	if _, err := c.cfg.Scales.Scales(hpa.Namespace).Update(ctx, gr, sc, metav1.UpdateOptions{}); err != nil {
		c.event(hpa, corev1.EventTypeWarning, "FailedRescale", fmt.Sprintf("New size: %d; reason: %s; error: %v", desired, rescaleReason, err))
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: %v", err)
		return
	}
	c.mu.Lock()
	h := c.historyOf(key)
	h.events = append(h.events, ScaleEvent{Time: now, Change: desired - current})
	h.events = pruneEvents(h.events, behavior, now)
	c.mu.Unlock()
	hpa.Status.LastScaleTime = &metav1.Time{Time: now}
	c.event(hpa, corev1.EventTypeNormal, "SuccessfulRescale", fmt.Sprintf("New size: %d; reason: %s", desired, rescaleReason))
	setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to %d", desired)
}

// othersOn are the other FederatedHPAs of hpa's namespace with the same target.
func (c *Controller) othersOn(hpa *federationv1alpha1.FederatedHPA) []string {
	all, err := c.lister.FederatedHPAs(hpa.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	gv, _ := schema.ParseGroupVersion(hpa.Spec.ScaleTargetRef.APIVersion)
	var out []string
	for _, o := range all {
		ref := o.Spec.ScaleTargetRef
		ogv, _ := schema.ParseGroupVersion(ref.APIVersion)
		if o.Name != hpa.Name && ref.Kind == hpa.Spec.ScaleTargetRef.Kind && ref.Name == hpa.Spec.ScaleTargetRef.Name && ogv.Group == gv.Group {
			out = append(out, o.Name)
		}
	}
	slices.Sort(out)
	return out
}

// historyOf returns key's history; c.mu is held.
func (c *Controller) historyOf(key string) *history {
	h := c.history[key]
	if h == nil {
		h = &history{}
		c.history[key] = h
	}
	return h
}

// pruneEvents drops the rescales older than every policy's period.
func pruneEvents(events []ScaleEvent, b *autoscalingv2.HorizontalPodAutoscalerBehavior, now time.Time) []ScaleEvent {
	longest := time.Duration(0)
	for _, rules := range []*autoscalingv2.HPAScalingRules{b.ScaleUp, b.ScaleDown} {
		if rules == nil {
			continue
		}
		for _, p := range rules.Policies {
			longest = max(longest, time.Duration(p.PeriodSeconds)*time.Second)
		}
	}
	kept := events[:0]
	for _, e := range events {
		if now.Sub(e.Time) <= longest {
			kept = append(kept, e)
		}
	}
	return kept
}

// event records an event of hpa in the fleet.
func (c *Controller) event(hpa *federationv1alpha1.FederatedHPA, eventType, reason, message string) {
	if c.cfg.Recorder == nil {
		return
	}
	obj := hpa.DeepCopy()
	obj.APIVersion, obj.Kind = federationv1alpha1.SchemeGroupVersion.String(), "FederatedHPA"
	c.cfg.Recorder.Event(obj, eventType, reason, message)
}

// readyClusters are the members that are Ready.
func (c *Controller) readyClusters() map[string]bool {
	list, err := c.cfg.Clusters.List(labels.Everything())
	if err != nil {
		return nil
	}
	ready := map[string]bool{}
	for _, cl := range list {
		if meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			ready[cl.Name] = true
		}
	}
	return ready
}
