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

// Package workstatus is the status path's first step: it writes into each Work the state
// of its objects as the member reports them (manifestStatuses, the Available condition)
// and what execution made of it (the Applied condition, from the applied.Log).
package workstatus

import (
	"context"
	"errors"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/interpreter"
	"github.com/fedhq/fed/interpreter/lua"
)

// memberDelay is how long changes of a member's objects gather before their Work's status
// is written: a member's controllers write an object's status several times in a row (a
// new Deployment: its ReplicaSet, then its conditions), and one status write of the Work
// says what they did.
const memberDelay = 500 * time.Millisecond

// Controller writes Works' status.
type Controller struct {
	fed         versioned.Interface
	interpreter *interpreter.Interpreter
	works       *works.Access
	synced      cache.InformerSynced
	members     *members.Members
	results     *applied.Log
	queue       workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

// NewController writes the status of the Works of wa from the managed objects of the
// members (their status and health as interp reads them) and from what execution
// recorded in results.
func NewController(fed versioned.Interface, wa *works.Access, mbs *members.Members, results *applied.Log, interp *interpreter.Interpreter) *Controller {
	c := &Controller{
		fed:         fed,
		interpreter: interp,
		works:       wa,
		synced:      wa.Informer().HasSynced,
		members:     mbs,
		results:     results,
		queue:       reconciler.NewQueue[types.NamespacedName]("work-status"),
	}
	mbs.AddHandler(func(cluster string, _ schema.GroupVersionResource, obj metav1.Object, _ bool) {
		if w := obj.GetAnnotations()[federationv1alpha1.AnnotationWork]; w != "" {
			c.queue.AddAfter(types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(cluster), Name: w}, memberDelay)
		}
	})
	// What execution made of a Work: its status is written after the delay execution asks.
	results.OnRecord(c.enqueue)
	return c
}

// enqueue has a Work's status written after a while (at once for 0).
func (c *Controller) enqueue(k types.NamespacedName, after time.Duration) {
	if after > 0 {
		c.queue.AddAfter(k, after)
		return
	}
	c.queue.Add(k)
}

// Run writes status with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, []cache.InformerSynced{c.synced, c.members.HasSynced}, "Writing a Work's status", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, k types.NamespacedName) error {
	cluster, ok := strings.CutPrefix(k.Namespace, federationv1alpha1.ExecutionNamespacePrefix)
	if !ok || c.members.ByAgent(cluster) {
		return nil // a pull cluster's agent reports its Works
	}
	w, err := c.works.Get(k)
	if err != nil || w == nil || w.DeletionTimestamp != nil {
		return err
	}
	var cond metav1.Condition
	var versions []string
	if r, ok := c.results.Get(w.UID); ok && r.Generation == w.Generation {
		cond = r.Condition(federationv1alpha1.WorkConditionApplied)
		versions = r.Versions
	} else if current := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied); current != nil {
		cond = *current
	} else {
		return nil // nothing applied yet: execution hands the Work over when it has
	}
	var statuses []federationv1alpha1.ManifestStatus
	var failed error
	if mb, err := c.members.Get(cluster); err == nil {
		if statuses, failed, err = c.manifestStatuses(mb, w, versions); err != nil {
			return err
		}
	}
	if err := c.writeStatus(ctx, w, statuses, failed, cond); err != nil {
		return err
	}
	if errors.Is(failed, lua.ErrMemory) {
		// Perhaps the rest of the process grew the heap meanwhile: looked at again later.
		return reconciler.RequeueAfter(30*time.Second, nil)
	}
	if interpreter.FromWebhook(failed) {
		// An interpreter webhook down or late may answer later.
		return reconciler.RequeueAfter(10*time.Second, nil)
	}
	return nil
}

// manifestStatuses is the state of each object of a Work in the member, as fed's informers
// on its managed objects have it, with the version execution applied (versions, by
// ordinal; where it has none, the one the status has). An object fed has not applied (a
// conflict, a kind the member does not serve) has no state and an unknown health; so has
// one whose customization's script failed (failed says why).
func (c *Controller) manifestStatuses(mb *members.Member, w *federationv1alpha1.Work, versions []string) (_ []federationv1alpha1.ManifestStatus, failed error, _ error) {
	recorded := map[int32]string{}
	for _, ms := range w.Status.ManifestStatuses {
		recorded[ms.Identifier.Ordinal] = ms.AppliedVersion
	}
	var failures []error
	out := make([]federationv1alpha1.ManifestStatus, 0, len(w.Spec.Workload.Manifests))
	for i, raw := range w.Spec.Workload.Manifests {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			continue
		}
		gvk := obj.GroupVersionKind()
		ms := federationv1alpha1.ManifestStatus{Identifier: federationv1alpha1.ResourceIdentifier{Ordinal: int32(i),
			Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()},
			Health: federationv1alpha1.ResourceUnknown, AppliedVersion: recorded[int32(i)]}
		if i < len(versions) && versions[i] != "" {
			ms.AppliedVersion = versions[i]
		}
		if mapping, err := mb.Mapping(gvk); err == nil {
			ms.Identifier.Resource = mapping.Resource.Resource
			if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
				ms.Identifier.Namespace = ""
			}
			known := mb.Managed(mapping.Resource)
			if !known.Synced() {
				return nil, nil, reconciler.ErrRetrySoon
			}
			if current := known.Get(cache.NewObjectName(ms.Identifier.Namespace, ms.Identifier.Name).String()); current != nil {
				var errStatus, errHealth error
				ms.Status, errStatus = c.interpreter.ReflectStatus(current)
				ms.Health, errHealth = c.interpreter.Health(current)
				failures = append(failures, errStatus, errHealth)
				// A webhook that did not answer leaves what was recorded as it was.
				statusKept, healthKept := interpreter.FromWebhook(errStatus), interpreter.FromWebhook(errHealth)
				var prev *federationv1alpha1.ManifestStatus
				if statusKept || healthKept {
					prev = recordedStatus(w, int32(i))
				}
				if prev != nil && statusKept {
					ms.Status = prev.Status
				}
				if prev != nil && healthKept {
					ms.Health = prev.Health
				}
			}
		}
		out = append(out, ms)
	}
	return out, errors.Join(failures...), nil
}

// recordedStatus is the state a Work's status has of its ordinal-th object, nil when none.
func recordedStatus(w *federationv1alpha1.Work, ordinal int32) *federationv1alpha1.ManifestStatus {
	for i := range w.Status.ManifestStatuses {
		if w.Status.ManifestStatuses[i].Identifier.Ordinal == ordinal {
			return &w.Status.ManifestStatuses[i]
		}
	}
	return nil
}

// writeStatus records the Applied and Available conditions and the objects' state; nil
// statuses keep those the Work has (its member cannot be reached).
func (c *Controller) writeStatus(ctx context.Context, w *federationv1alpha1.Work, statuses []federationv1alpha1.ManifestStatus,
	failed error, cond metav1.Condition) error {
	status := w.Status.DeepCopy()
	if statuses != nil {
		status.ManifestStatuses = statuses
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	avail := available(status.ManifestStatuses, w.Generation)
	if failed != nil {
		avail.Status, avail.Reason, avail.Message = metav1.ConditionUnknown, "InterpreterFailed", failed.Error()
	}
	meta.SetStatusCondition(&status.Conditions, avail)
	if apiequality.Semantic.DeepEqual(status, &w.Status) {
		return nil
	}
	u := w.DeepCopy()
	u.Status = *status
	written, err := c.fed.FederationV1alpha1().Works(w.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	c.works.Wrote(written)
	return nil
}

// available is the Available condition for the objects' health.
func available(statuses []federationv1alpha1.ManifestStatus, generation int64) metav1.Condition {
	c := metav1.Condition{Type: federationv1alpha1.WorkConditionAvailable, ObservedGeneration: generation,
		Status: metav1.ConditionTrue, Reason: "Healthy", Message: "every object is healthy"}
	for _, s := range statuses {
		id := strings.ToLower(s.Identifier.Kind) + " " + s.Identifier.Name
		switch s.Health {
		case federationv1alpha1.ResourceUnhealthy:
			return metav1.Condition{Type: c.Type, ObservedGeneration: generation, Status: metav1.ConditionFalse, Reason: "Unhealthy", Message: id + " is not healthy"}
		case federationv1alpha1.ResourceUnknown, "":
			c.Status, c.Reason, c.Message = metav1.ConditionUnknown, "HealthUnknown", "fed cannot tell whether "+id+" is healthy"
		}
	}
	if len(statuses) == 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, "NotApplied", "nothing is applied yet"
	}
	return c
}
