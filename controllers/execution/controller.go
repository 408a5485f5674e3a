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

// Package execution applies each Work's manifests to its member cluster with server-side
// apply, takes the objects away again when the Work goes, and records in the Work the
// state of each object as the member reports it.
package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/mutation"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/interpreter"
)

// Condition reasons of a Work's Applied condition.
const (
	ReasonApplied        = "Applied"
	ReasonFailed         = "ApplyFailed"
	ReasonConflict       = "Conflict"
	ReasonSuspended      = "Suspended"
	ReasonOverrideFailed = "OverrideFailed"
	ReasonUnreachble     = "ClusterUnreachable"
)

const (
	// memberDelay is how long changes of a member's objects gather before their Work is
	// looked at again.
	memberDelay = 500 * time.Millisecond
	// statusWorkers is how many workers write Works' status, fewer than apply them: under
	// load, applying goes first, and a Work whose objects changed several times while it
	// waited gets one status write.
	statusWorkers = 4
)

// conflictRecheck is how often a member object of a Work's name that fed did not create
// is looked at again: fed does not watch objects it does not manage, and a conflict is
// over when someone deletes that object.
const conflictRecheck = 5 * time.Second

// Namespaces makes a member's namespace before fed applies something in it (the namespace
// controller does).
type Namespaces interface {
	Ensure(ctx context.Context, mb *members.Member, name string) error
}

// Controller applies Works to members.
type Controller struct {
	fed   versioned.Interface
	works fedlisters.WorkLister
	// written serves the Works this controller wrote until the informer has them, so that
	// a reconcile right after a write neither applies again nor writes over a newer Work.
	written    *mutation.Cache
	synced     cache.InformerSynced
	members    *members.Members
	namespaces Namespaces
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder

	// applied remembers the member objects' generation (or resourceVersion, for kinds
	// without one) after fed last applied them: a later one means someone else changed the
	// object, and fed applies it again.
	applied sync.Map // objectKey → string
	// appliedWorks remembers the generation of each Work fed applied whole, before its
	// status says so: the status is written a moment later, with what the member's
	// controllers made of the objects by then.
	appliedWorks sync.Map // types.UID → int64

	// queue has the Works to apply (their spec changed); statuses those whose status is to
	// be written (applied a moment ago, or a member object changed).
	queue, statuses workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

type objectKey struct {
	cluster         string
	gvr             schema.GroupVersionResource
	namespace, name string
}

// NewController applies the Works of the informer to the members, making their namespaces
// with namespaces first, and records events with recorder.
func NewController(fed versioned.Interface, works fedinformers.WorkInformer, mbs *members.Members, namespaces Namespaces,
	recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		fed:        fed,
		works:      works.Lister(),
		synced:     works.Informer().HasSynced,
		members:    mbs,
		namespaces: namespaces,
		recorder:   recorder,
		queue:      reconciler.NewQueue[types.NamespacedName]("execution"),
		statuses:   reconciler.NewQueue[types.NamespacedName]("execution-status"),
	}
	inf := works.Informer()
	c.written = mutation.New(inf, false)
	mbs.AddHandler(c.memberObjectChanged)
	enqueue := func(obj any, deleted bool) {
		c.written.Observe(obj, deleted)
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			c.queue.Add(types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { enqueue(obj, false) },
		UpdateFunc: func(_, obj any) { enqueue(obj, false) },
		DeleteFunc: func(obj any) { enqueue(obj, true) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// memberObjectChanged brings a change of a managed member object to its Work, after
// memberDelay: a member's controllers write an object's status several times in a row
// (a new Deployment: its ReplicaSet, then its conditions), and one status write of the Work
// says what they did.
func (c *Controller) memberObjectChanged(cluster string, obj metav1.Object) {
	if w := obj.GetAnnotations()[federationv1alpha1.AnnotationWork]; w != "" {
		c.statuses.AddAfter(types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(cluster), Name: w}, memberDelay)
	}
}

// Run applies Works with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		c.queue.ShutDown()
		c.statuses.ShutDown()
		return
	}
	go reconciler.Run(ctx, c.statuses, statusWorkers, nil, "Writing a Work's status", func(ctx context.Context, k types.NamespacedName) error {
		return c.reconcile(ctx, k, true)
	})
	reconciler.Run(ctx, c.queue, workers, nil, "Applying a Work", func(ctx context.Context, k types.NamespacedName) error {
		return c.reconcile(ctx, k, false)
	})
}

// reconcile applies a Work if it changed, and reports its objects' state: at once when
// something failed, through the statuses queue otherwise (report says it came from there).
func (c *Controller) reconcile(ctx context.Context, k types.NamespacedName, report bool) error {
	cluster, ok := strings.CutPrefix(k.Namespace, federationv1alpha1.ExecutionNamespacePrefix)
	if !ok {
		return nil
	}
	obj, exists, err := c.written.GetByKey(k.String())
	if err != nil || !exists {
		return err
	}
	w := obj.(*federationv1alpha1.Work)
	if w.DeletionTimestamp != nil {
		return c.cleanup(ctx, cluster, w)
	}
	if !slices.Contains(w.Finalizers, federationv1alpha1.FinalizerExecution) {
		u := w.DeepCopy()
		u.Finalizers = append(u.Finalizers, federationv1alpha1.FinalizerExecution)
		return c.write(c.fed.FederationV1alpha1().Works(w.Namespace).Update(ctx, u, metav1.UpdateOptions{}))
	}
	mb, err := c.members.Get(cluster)
	if err != nil {
		return errors.Join(err, c.writeStatus(ctx, w, nil, metav1.ConditionFalse, ReasonUnreachble, err.Error()))
	}
	if msg := w.Annotations[federationv1alpha1.AnnotationOverrideError]; msg != "" {
		return c.writeStatus(ctx, w, nil, metav1.ConditionFalse, ReasonOverrideFailed, msg)
	}
	suspended := w.Spec.SuspendDispatching != nil && *w.Spec.SuspendDispatching
	applied := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
	done, _ := c.appliedWorks.Load(w.UID)
	changed := (applied == nil || applied.ObservedGeneration != w.Generation || applied.Status != metav1.ConditionTrue) && done != w.Generation
	if !report && !changed && !suspended {
		// Applied already: what is left is reading the objects' state and writing it, the
		// statuses queue's work.
		c.statuses.Add(k)
		return nil
	}
	var statuses []federationv1alpha1.ManifestStatus
	var failures []error
	reason := ReasonApplied
	for i, raw := range w.Spec.Workload.Manifests {
		ms, err := c.applyManifest(ctx, cluster, mb, w, int32(i), raw.Raw, changed && !suspended)
		if ms != nil {
			statuses = append(statuses, *ms)
		}
		if err != nil {
			if errors.As(err, new(*conflictError)) {
				reason = ReasonConflict
			} else if reason == ReasonApplied {
				reason = ReasonFailed
			}
			failures = append(failures, err)
		}
	}
	switch {
	case len(failures) > 0:
		failed := errors.Join(failures...)
		err := c.writeStatus(ctx, w, statuses, metav1.ConditionFalse, reason, strings.ReplaceAll(failed.Error(), "\n", "; "))
		if reason == ReasonConflict {
			// Over when the policy changes (the Work with it) or the member's object goes.
			return errors.Join(err, reconciler.RequeueAfter(conflictRecheck, nil))
		}
		return errors.Join(failed, err)
	case suspended && (changed || applied == nil):
		return c.writeStatus(ctx, w, statuses, metav1.ConditionFalse, ReasonSuspended, "dispatching to this cluster is suspended by the policy")
	case suspended:
		return c.writeStatus(ctx, w, statuses, applied.Status, applied.Reason, applied.Message)
	case changed:
		// Applied: the member's controllers are about to write the objects' status (a new
		// Deployment's ReplicaSet, its conditions); one status write of the Work, after
		// memberDelay, says both.
		c.appliedWorks.Store(w.UID, w.Generation)
		c.statuses.AddAfter(k, memberDelay)
		return nil
	}
	return c.writeStatus(ctx, w, statuses, metav1.ConditionTrue, ReasonApplied, "applied to the cluster")
}

// conflictError is a member object of the same name that fed did not create.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

// applyManifest applies one manifest when the Work changed or the member's object is not
// what fed last applied, and returns the object's state.
func (c *Controller) applyManifest(ctx context.Context, cluster string, mb *members.Member, w *federationv1alpha1.Work, ordinal int32, raw []byte, workChanged bool) (*federationv1alpha1.ManifestStatus, error) {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("manifest %d: %w", ordinal, err)
	}
	gvk := obj.GroupVersionKind()
	id := federationv1alpha1.ResourceIdentifier{Ordinal: ordinal, Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName()}
	mapping, err := mb.Mapping(gvk)
	if err != nil {
		what := gvk.Kind + "." + gvk.GroupVersion().String()
		return &federationv1alpha1.ManifestStatus{Identifier: id, Health: federationv1alpha1.ResourceUnknown},
			fmt.Errorf("cluster %s does not serve %s (propagate its CustomResourceDefinition first): %v", cluster, what, err)
	}
	id.Resource = mapping.Resource.Resource
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		obj.SetNamespace("")
		id.Namespace = ""
	}
	client := resourceClient(mb.Client, mapping.Resource, obj.GetNamespace())
	known := mb.Managed(mapping.Resource)
	current, err := c.current(ctx, known, client, obj)
	if err != nil {
		return &federationv1alpha1.ManifestStatus{Identifier: id, Health: federationv1alpha1.ResourceUnknown}, err
	}
	annotations := obj.GetAnnotations()
	overwrite := annotations[federationv1alpha1.AnnotationConflictResolution] == string(federationv1alpha1.ConflictOverwrite)
	delete(annotations, federationv1alpha1.AnnotationConflictResolution)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[federationv1alpha1.AnnotationWork] = w.Name
	obj.SetAnnotations(annotations)

	ok := objectKey{cluster: cluster, gvr: mapping.Resource, namespace: obj.GetNamespace(), name: obj.GetName()}
	if current != nil && !fedMade(current, obj) && !overwrite {
		kind := strings.ToLower(gvk.Kind)
		err := &conflictError{fmt.Sprintf(
			"%s %s already exists in cluster %s and fed did not create it; set conflictResolution: Overwrite in the policy to let fed take it over",
			kind, qualified(obj), cluster)}
		if workChanged {
			c.event(obj, corev1.EventTypeWarning, ReasonConflict, "%s", err.msg)
		}
		return &federationv1alpha1.ManifestStatus{Identifier: id, Health: federationv1alpha1.ResourceUnknown}, err
	}
	last, _ := c.applied.Load(ok)
	if workChanged || current == nil || current.GetLabels()[federationv1alpha1.LabelManaged] != "true" ||
		current.GetAnnotations()[federationv1alpha1.AnnotationWork] != w.Name || last != version(current) {
		if ns := obj.GetNamespace(); ns != "" {
			if err := c.namespaces.Ensure(ctx, mb, ns); err != nil {
				return &federationv1alpha1.ManifestStatus{Identifier: id, Health: federationv1alpha1.ResourceUnknown}, err
			}
		}
		if current != nil && !fedMade(current, obj) {
			// Taking over (the policy says Overwrite): the member's object becomes the
			// template's as a whole, not merged with what others set in it.
			obj.SetResourceVersion(current.GetResourceVersion())
			current, err = client.Update(ctx, obj, metav1.UpdateOptions{FieldManager: federationv1alpha1.FieldManager})
			obj.SetResourceVersion("")
		} else {
			current, err = client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: federationv1alpha1.FieldManager, Force: true})
		}
		if err != nil {
			err = fmt.Errorf("applying %s %s to cluster %s: %w", strings.ToLower(gvk.Kind), qualified(obj), cluster, err)
			c.event(obj, corev1.EventTypeWarning, ReasonFailed, "%v", err)
			return &federationv1alpha1.ManifestStatus{Identifier: id, Health: federationv1alpha1.ResourceUnknown}, err
		}
		known.Wrote(current)
		c.applied.Store(ok, version(current))
		c.event(obj, corev1.EventTypeNormal, "Synced", "applied to cluster %s", cluster)
	}
	return &federationv1alpha1.ManifestStatus{Identifier: id, Status: interpreter.ReflectStatus(current), Health: interpreter.Health(current)}, nil
}

// event records an event on the template a manifest was made from.
func (c *Controller) event(manifest *unstructured.Unstructured, eventType, reason, format string, args ...any) {
	ref := &corev1.ObjectReference{APIVersion: manifest.GetAPIVersion(), Kind: manifest.GetKind(), Namespace: manifest.GetNamespace(),
		Name: manifest.GetName(), UID: types.UID(manifest.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID])}
	c.recorder.Eventf(ref, eventType, reason, format, args...)
}

// fedMade says whether fed may apply a manifest over the member's object without the
// policy's leave: fed manages it, or made it from the same template and released it.
func fedMade(current, manifest *unstructured.Unstructured) bool {
	if current.GetLabels()[federationv1alpha1.LabelManaged] == "true" {
		return true
	}
	uid := current.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]
	return uid != "" && uid == manifest.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]
}

// version is what tells fed that someone else changed a member object: its generation,
// or its resourceVersion for kinds without one.
func version(obj *unstructured.Unstructured) string {
	if g := obj.GetGeneration(); g > 0 {
		return strconv.FormatInt(g, 10)
	}
	return obj.GetResourceVersion()
}

func qualified(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

func resourceClient(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return client.Resource(gvr)
	}
	return client.Resource(gvr).Namespace(namespace)
}

// current returns the member's object of a manifest, nil when it has none: what fed knows
// of its managed objects when it holds it, else the member's answer.
func (c *Controller) current(ctx context.Context, w *members.Watched, client dynamic.ResourceInterface, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	key := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	if o := w.Get(key); o != nil {
		return o, nil
	}
	// Not a managed object (yet): ask the member whether one of that name exists, from its
	// watch cache (resourceVersion 0), which costs it no read of etcd.
	current, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{ResourceVersion: "0"})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return current, err
}

// cleanup removes a deleted Work's objects from the member, or releases them (fed's label
// and annotation removed) when the Work preserves them, then lets the Work go. Objects fed
// does not manage under this Work are never touched.
func (c *Controller) cleanup(ctx context.Context, cluster string, w *federationv1alpha1.Work) error {
	c.appliedWorks.Delete(w.UID)
	if !slices.Contains(w.Finalizers, federationv1alpha1.FinalizerExecution) {
		return nil
	}
	mb, err := c.members.Get(cluster)
	if apierrors.IsNotFound(err) {
		return c.removeFinalizer(ctx, w) // the cluster left the fleet
	}
	if err != nil {
		return err
	}
	preserve := w.Spec.PreserveResourcesOnDeletion != nil && *w.Spec.PreserveResourcesOnDeletion
	var errs []error
	for i, raw := range w.Spec.Workload.Manifests {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			continue
		}
		if i > 0 && c.sharedDependency(w, obj) {
			continue // another workload of the member still needs it
		}
		mapping, err := mb.Mapping(obj.GroupVersionKind())
		if meta.IsNoMatchError(err) {
			continue // nothing of that kind can be there
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			obj.SetNamespace("")
		}
		client := resourceClient(mb.Client, mapping.Resource, obj.GetNamespace())
		current, err := c.current(ctx, mb.Managed(mapping.Resource), client, obj)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if current == nil {
			continue
		}
		if current.GetLabels()[federationv1alpha1.LabelManaged] != "true" || (i == 0 && current.GetAnnotations()[federationv1alpha1.AnnotationWork] != w.Name) {
			continue
		}
		c.applied.Delete(objectKey{cluster: cluster, gvr: mapping.Resource, namespace: obj.GetNamespace(), name: obj.GetName()})
		uid := current.GetUID()
		if preserve {
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
				"uid":         uid,
				"labels":      map[string]any{federationv1alpha1.LabelManaged: nil},
				"annotations": map[string]any{federationv1alpha1.AnnotationWork: nil},
			}})
			_, err = client.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: federationv1alpha1.FieldManager})
		} else {
			err = client.Delete(ctx, obj.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, w)
}

// sharedDependency says whether another live Work of the member holds the same object
// among its manifests (two workloads propagating one ConfigMap with propagateDeps).
func (c *Controller) sharedDependency(w *federationv1alpha1.Work, obj *unstructured.Unstructured) bool {
	works, err := c.works.Works(w.Namespace).List(labels.Everything())
	if err != nil {
		return true
	}
	for _, other := range works {
		if other.Name == w.Name || other.DeletionTimestamp != nil {
			continue
		}
		for _, raw := range other.Spec.Workload.Manifests {
			var m unstructured.Unstructured
			if m.UnmarshalJSON(raw.Raw) == nil && m.GroupVersionKind() == obj.GroupVersionKind() &&
				m.GetNamespace() == obj.GetNamespace() && m.GetName() == obj.GetName() {
				return true
			}
		}
	}
	return false
}

func (c *Controller) removeFinalizer(ctx context.Context, w *federationv1alpha1.Work) error {
	u := w.DeepCopy()
	u.Finalizers = slices.DeleteFunc(u.Finalizers, func(f string) bool { return f == federationv1alpha1.FinalizerExecution })
	_, err := c.fed.FederationV1alpha1().Works(w.Namespace).Update(ctx, u, metav1.UpdateOptions{})
	return ignoreNotFound(err)
}

// writeStatus records the Applied and Available conditions and the objects' state.
func (c *Controller) writeStatus(ctx context.Context, w *federationv1alpha1.Work, statuses []federationv1alpha1.ManifestStatus,
	applied metav1.ConditionStatus, reason, message string) error {
	status := w.Status.DeepCopy()
	if statuses != nil {
		status.ManifestStatuses = statuses
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: federationv1alpha1.WorkConditionApplied,
		Status: applied, Reason: reason, Message: message, ObservedGeneration: w.Generation})
	meta.SetStatusCondition(&status.Conditions, available(status.ManifestStatuses, w.Generation))
	if apiequality.Semantic.DeepEqual(status, &w.Status) {
		return nil
	}
	u := w.DeepCopy()
	u.Status = *status
	return c.write(c.fed.FederationV1alpha1().Works(w.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{}))
}

// write records a Work the controller wrote, for its next reconcile.
func (c *Controller) write(w *federationv1alpha1.Work, err error) error {
	if err != nil {
		return ignoreNotFound(err)
	}
	c.written.Mutation(w)
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

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
