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

// Package cronfederatedhpa runs the rules of CronFederatedHPAs: at each rule's schedule
// (robfig/cron's five-field syntax, in the rule's time zone), it sets the replicas of a
// workload template through its scale subresource in the fleet, or the minReplicas and
// maxReplicas of a FederatedHPA, and records the run in the status's execution history.
// A run missed while fed was down runs once when it is back (the latest one of each rule,
// rules in the order of their times), so the state the schedule declares holds; a rule
// added, or resumed from suspend, counts from then.
package cronfederatedhpa

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Targets resolves a workload's kind to its resource in the fleet (scaletargets.Mapper).
type Targets interface {
	Resource(ref autoscalingv2.CrossVersionObjectReference) (schema.GroupResource, error)
}

// Config is what the controller needs.
type Config struct {
	Fed   versioned.Interface
	Crons fedinformers.TypedCronFederatedHPAInformer
	// Scales writes the workload templates' scale subresource in the fleet; Targets maps
	// their kinds.
	Scales  scale.ScalesGetter
	Targets Targets
}

// Controller runs CronFederatedHPAs.
type Controller struct {
	cfg    Config
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	now    func() time.Time

	mu sync.Mutex
	// seen is when the controller first saw a rule (by the object's UID and the rule's
	// name) whose status announces no next run yet: a new or resumed rule, whose runs
	// count from then.
	seen map[string]time.Time
}

// NewController returns the controller; Run starts it.
func NewController(cfg Config) (*Controller, error) {
	c := &Controller{cfg: cfg, synced: cfg.Crons.Informer().HasSynced, queue: reconciler.NewQueue[string]("cronfederatedhpa"),
		now: time.Now, seen: map[string]time.Time{}}
	if _, err := cfg.Crons.Informer().AddEventHandler(reconciler.SpecChanges(reconciler.EnqueueKey(c.queue))); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs the rules with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, []cache.InformerSynced{c.synced}, "Running a CronFederatedHPA's rules", c.reconcile)
}

// due is a run to make: a rule at a scheduled time.
type due struct {
	rule *federationv1alpha1.CronFederatedHPARule
	at   time.Time
}

func (c *Controller) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cur, err := c.cfg.Crons.Lister().CronFederatedHPAs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		// What it remembered (by UID) went when its status first announced each rule's
		// next run.
		return nil
	}
	if err != nil {
		return err
	}
	cron := cur.DeepCopy()
	now := c.now()
	// One history per rule of the spec, in place before any pointer into them is taken
	// (adding or removing one moves the others).
	inSpec := map[string]bool{}
	for _, r := range cron.Spec.Rules {
		inSpec[r.Name] = true
	}
	cron.Status.ExecutionHistories = slices.DeleteFunc(cron.Status.ExecutionHistories, func(h federationv1alpha1.ExecutionHistory) bool {
		return !inSpec[h.RuleName]
	})
	for _, r := range cron.Spec.Rules {
		if !slices.ContainsFunc(cron.Status.ExecutionHistories, func(h federationv1alpha1.ExecutionHistory) bool { return h.RuleName == r.Name }) {
			cron.Status.ExecutionHistories = append(cron.Status.ExecutionHistories, federationv1alpha1.ExecutionHistory{RuleName: r.Name})
		}
	}
	histories := map[string]*federationv1alpha1.ExecutionHistory{}
	for i := range cron.Status.ExecutionHistories {
		histories[cron.Status.ExecutionHistories[i].RuleName] = &cron.Status.ExecutionHistories[i]
	}
	var runs []due
	var next time.Time
	for i := range cron.Spec.Rules {
		rule := &cron.Spec.Rules[i]
		h := histories[rule.Name]
		seenKey := string(cron.UID) + "/" + rule.Name
		sched, loc, err := parse(rule.Schedule, ptr.Deref(rule.TimeZone, ""))
		if err != nil || ptr.Deref(rule.Suspend, false) {
			// Validation refuses a bad schedule (one stored before stays idle); a suspended
			// rule does not run, nor catch up when it is resumed.
			h.NextExecutionTime = nil
			c.forget(seenKey)
			continue
		}
		last, ok, n := missed(sched, c.since(seenKey, h, now), now, loc)
		if ok {
			runs = append(runs, due{rule: rule, at: last})
		}
		h.NextExecutionTime = &metav1.Time{Time: n}
		if next.IsZero() || n.Before(next) {
			next = n
		}
	}
	slices.SortFunc(runs, func(a, b due) int { return a.at.Compare(b.at) })
	for _, r := range runs {
		c.run(ctx, cron, r, histories[r.rule.Name], now)
	}
	if !equality.Semantic.DeepEqual(cron.Status, cur.Status) {
		_, err := c.cfg.Fed.FederationV1alpha1().CronFederatedHPAs(ns).UpdateStatus(ctx, cron, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			// Changed meanwhile: the runs made are made again (the same replicas, so no
			// harm) and recorded.
			return reconciler.RequeueAfter(time.Second, err)
		}
		if err != nil {
			return err
		}
	}
	if next.IsZero() {
		return nil
	}
	return reconciler.RequeueAfter(next.Sub(now), nil)
}

// since is the time after which a rule's runs count: just before the run its status
// announced (so a run missed while fed was down still happens, once), else, for a rule
// new or resumed, when the controller first saw it so (a rule added or resumed does not
// fire for a time before that).
func (c *Controller) since(seenKey string, h *federationv1alpha1.ExecutionHistory, now time.Time) time.Time {
	if h.NextExecutionTime != nil {
		c.forget(seenKey)
		return h.NextExecutionTime.Add(-time.Second)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.seen[seenKey]; ok {
		return t
	}
	c.seen[seenKey] = now
	return now
}

// forget drops what the controller remembers of a rule.
func (c *Controller) forget(seenKey string) {
	c.mu.Lock()
	delete(c.seen, seenKey)
	c.mu.Unlock()
}

// run makes one run of a rule and records it, newest first, within the rule's limits.
func (c *Controller) run(ctx context.Context, cron *federationv1alpha1.CronFederatedHPA, r due, h *federationv1alpha1.ExecutionHistory, now time.Time) {
	scheduled, executed := &metav1.Time{Time: r.at}, &metav1.Time{Time: now}
	applied, err := c.apply(ctx, cron, r.rule)
	if err != nil {
		h.FailedExecutions = slices.Insert(h.FailedExecutions, 0, federationv1alpha1.FailedExecution{
			ScheduleTime: scheduled, ExecutionTime: executed, Message: err.Error()})
		h.FailedExecutions = trim(h.FailedExecutions, ptr.Deref(r.rule.FailedHistoryLimit, federationv1alpha1.DefaultCronHistoryLimit))
		return
	}
	applied.ScheduleTime, applied.ExecutionTime = scheduled, executed
	h.SuccessfulExecutions = slices.Insert(h.SuccessfulExecutions, 0, applied)
	h.SuccessfulExecutions = trim(h.SuccessfulExecutions, ptr.Deref(r.rule.SuccessfulHistoryLimit, federationv1alpha1.DefaultCronHistoryLimit))
}

func trim[T any](s []T, limit int32) []T {
	if int(limit) < len(s) {
		return s[:max(limit, 0)]
	}
	return s
}

// apply sets what the rule says on the target: a FederatedHPA's bounds, or a workload's
// replicas.
func (c *Controller) apply(ctx context.Context, cron *federationv1alpha1.CronFederatedHPA, rule *federationv1alpha1.CronFederatedHPARule) (federationv1alpha1.SuccessfulExecution, error) {
	ref := cron.Spec.ScaleTargetRef
	var out federationv1alpha1.SuccessfulExecution
	if federationv1alpha1.IsFederatedHPA(ref) {
		hpas := c.cfg.Fed.FederationV1alpha1().FederatedHPAs(cron.Namespace)
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			hpa, err := hpas.Get(ctx, ref.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if v := rule.TargetMinReplicas; v != nil {
				hpa.Spec.MinReplicas = ptr.To(*v)
			}
			if v := rule.TargetMaxReplicas; v != nil {
				hpa.Spec.MaxReplicas = *v
			}
			_, err = hpas.Update(ctx, hpa, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return out, fmt.Errorf("setting the bounds of FederatedHPA %s: %w", ref.Name, err)
		}
		out.AppliedMinReplicas, out.AppliedMaxReplicas = rule.TargetMinReplicas, rule.TargetMaxReplicas
		return out, nil
	}
	if rule.TargetReplicas == nil {
		return out, fmt.Errorf("rule %s sets no targetReplicas for %s %s", rule.Name, ref.Kind, ref.Name)
	}
	gr, err := c.cfg.Targets.Resource(ref)
	if err != nil {
		return out, err
	}
	scales := c.cfg.Scales.Scales(cron.Namespace)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sc, err := scales.Get(ctx, gr, ref.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		sc = &autoscalingv1.Scale{ObjectMeta: sc.ObjectMeta, Spec: autoscalingv1.ScaleSpec{Replicas: *rule.TargetReplicas}}
		_, err = scales.Update(ctx, gr, sc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return out, fmt.Errorf("scaling %s %s to %d: %w", ref.Kind, ref.Name, *rule.TargetReplicas, err)
	}
	out.AppliedReplicas = ptr.To(*rule.TargetReplicas)
	return out, nil
}

// isFederatedHPA tells whether the target is a FederatedHPA rather than a workload.
