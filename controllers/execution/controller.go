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
// apply, applies again a copy someone else changed or deleted, and takes the objects away
// again when the Work goes. What it made of each Work goes to the status path (package
// workstatus) through an applied.Log.
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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/membernamespaces"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/trim"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/interpreter"
)

// memberDelay is how long changes of a member's objects gather before their Work is
// looked at again.
const memberDelay = 500 * time.Millisecond

// conflictRecheck is how often a member object of a Work's name that fed did not create
// is looked at again: fed does not watch objects it does not manage, and a conflict is
// over when someone deletes that object.
const conflictRecheck = 5 * time.Second

// Controller applies Works to members.
type Controller struct {
	// interpreter keeps what a customization's retention script says the member owns.
	interpreter *interpreter.Interpreter
	fed         versioned.Interface
	works       *works.Access
	synced      cache.InformerSynced
	members     *members.Members
	namespaces  *membernamespaces.Maker
	results     *applied.Log
	// recorder records events on the templates in the fleet.
	recorder record.EventRecorder

	// applied remembers the member objects' generation (or resourceVersion, for kinds
	// without one) after fed last applied them: a later one means someone else changed the
	// object, and fed applies it again.
	applied sync.Map // objectKey → string

	queue workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

type objectKey struct {
	cluster         string
	gvr             schema.GroupVersionResource
	namespace, name string
}

// Deps are what execution works with.
type Deps struct {
	// Fed writes the Works' finalizers.
	Fed versioned.Interface
	// Works are the Works it applies to Members.
	Works   *works.Access
	Members *members.Members
	// Namespaces makes a member's namespace before the objects in it.
	Namespaces *membernamespaces.Maker
	// Results is where it records what it made of each Work, for the status path.
	Results *applied.Log
	// Interpreter tells which fields a member's copy keeps (retention).
	Interpreter *interpreter.Interpreter
	// Recorder records events on the templates.
	Recorder record.EventRecorder
	// Clusters, in the server (nil in the agent), bring back a cluster's Works when it joins,
	// leaves or changes between push and pull: Works execution left to a pull cluster's
	// agent are its own again once the cluster is gone or pushed to.
	Clusters clusterinformers.ClusterInformer
}

// NewController applies the Works to the members, making their namespaces first; it
// records what it made of each Work and hands the Work to the status path.
func NewController(d Deps) (*Controller, error) {
	wa := d.Works
	c := &Controller{
		interpreter: d.Interpreter,
		fed:         d.Fed,
		works:       wa,
		synced:      wa.Informer().HasSynced,
		members:     d.Members,
		namespaces:  d.Namespaces,
		results:     d.Results,
		recorder:    d.Recorder,
	}
	c.queue = reconciler.NewLanedQueue("execution", 3, c.lane)
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			c.queue.Add(types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
		}
	}
	if _, err := wa.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		UpdateFunc: func(old, obj any) {
			// Status writes are the status path's; what execution acts on is the spec (its
			// generation), fed's annotations, finalizers and deletion.
			o, ok1 := old.(*federationv1alpha1.Work)
			w, ok2 := obj.(*federationv1alpha1.Work)
			if ok1 && ok2 && o.Generation == w.Generation && apiequality.Semantic.DeepEqual(o.Annotations, w.Annotations) &&
				slices.Equal(o.Finalizers, w.Finalizers) && (o.DeletionTimestamp == nil) == (w.DeletionTimestamp == nil) {
				return
			}
			enqueue(obj)
		},
		DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	d.Members.AddHandler(c.memberObjectChanged)
	if d.Clusters != nil {
		if _, err := d.Clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: c.clusterChanged,
			UpdateFunc: func(old, obj any) {
				o, ok1 := old.(*clusterv1alpha1.Cluster)
				n, ok2 := obj.(*clusterv1alpha1.Cluster)
				if ok1 && ok2 && (o.Spec.SyncMode != n.Spec.SyncMode || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)) {
					c.clusterChanged(obj)
				}
			},
			DeleteFunc: c.clusterChanged,
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// clusterChanged looks again at every Work of a cluster that joined, left, or changed
// between push and pull. Without it, a Work deleted while its pull cluster's agent was
// down kept the agent's finalizer for good once the cluster was unregistered, and so did
// the cluster's execution namespace: the same cluster joined again in push mode then could
// not be unjoined (the fault campaign's seed 31337).
func (c *Controller) clusterChanged(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	cl, ok := obj.(*clusterv1alpha1.Cluster)
	if !ok {
		return
	}
	for _, w := range c.works.List(federationv1alpha1.ExecutionNamespace(cl.Name)) {
		c.queue.Add(types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
	}
}

// lane orders the Works waiting to be applied: first the Works fed applied before, whose
// objects run in a member and changed (replicas moved to it from a failed member, a
// template changed, an object someone else changed); then new Works; last the Works being
// deleted. A burst of templates created or deleted does not hold back a workload that is
// moving.
func (c *Controller) lane(k types.NamespacedName) int {
	w, _ := c.works.Get(k)
	switch {
	case w == nil || w.DeletionTimestamp != nil:
		return 2
	case meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied) == nil:
		return 1
	}
	return 0
}

// memberObjectChanged brings a managed member object that someone else changed or deleted
// back to its Work, after memberDelay, to apply it again. Changes of its status alone, and
// fed's own writes, are the status path's.
func (c *Controller) memberObjectChanged(cluster string, gvr schema.GroupVersionResource, obj metav1.Object, deleted bool) {
	w := obj.GetAnnotations()[federationv1alpha1.AnnotationWork]
	if w == "" {
		return
	}
	if !deleted {
		last, _ := c.applied.Load(objectKey{cluster: cluster, gvr: gvr, namespace: obj.GetNamespace(), name: obj.GetName()})
		if last == version(obj) {
			return
		}
	}
	c.queue.AddAfter(types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(cluster), Name: w}, memberDelay)
}

// Run applies Works with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, []cache.InformerSynced{c.synced, c.members.HasSynced}, "Applying a Work", c.reconcile)
}

// reconcile applies a Work if it changed, and each of its objects that someone else
// changed, and records what came of it for the status path.
func (c *Controller) reconcile(ctx context.Context, k types.NamespacedName) error {
	cluster, ok := strings.CutPrefix(k.Namespace, federationv1alpha1.ExecutionNamespacePrefix)
	if !ok || c.members.ByAgent(cluster) {
		return nil // a pull cluster's agent applies its Works
	}
	w, err := c.works.Get(k)
	if err != nil || w == nil {
		return err
	}
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
		c.record(k, w, metav1.ConditionFalse, applied.ReasonUnreachable, err.Error(), 0)
		if apierrors.IsNotFound(err) {
			return nil // the cluster left the fleet: its execution namespace goes, with this Work
		}
		return err
	}
	if msg := w.Annotations[federationv1alpha1.AnnotationOverrideError]; msg != "" {
		c.record(k, w, metav1.ConditionFalse, applied.ReasonOverrideFailed, msg, 0)
		return nil
	}
	suspended := w.Spec.SuspendDispatching != nil && *w.Spec.SuspendDispatching
	cond := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
	last, _ := c.results.Get(w.UID)
	changed := (cond == nil || cond.ObservedGeneration != w.Generation || cond.Status != metav1.ConditionTrue) &&
		(last.Generation != w.Generation || last.Status != metav1.ConditionTrue)
	if suspended {
		if changed || cond == nil {
			c.record(k, w, metav1.ConditionFalse, applied.ReasonSuspended, "dispatching to this cluster is suspended by the policy", 0)
		}
		return nil
	}
	// A conflict already recorded for this generation is not told again in an event.
	repeat := last.Generation == w.Generation && last.Reason == applied.ReasonConflict
	var failures []error
	reason := applied.ReasonApplied
	versions := make([]string, len(w.Spec.Workload.Manifests))
	for i, raw := range w.Spec.Workload.Manifests {
		var err error
		if versions[i], err = c.applyManifest(ctx, cluster, mb, w, int32(i), raw.Raw, changed, repeat); err != nil {
			if errors.As(err, new(*conflictError)) {
				reason = applied.ReasonConflict
			} else if reason == applied.ReasonApplied {
				reason = applied.ReasonFailed
			}
			failures = append(failures, err)
		}
	}
	switch {
	case len(failures) > 0:
		failed := errors.Join(failures...)
		c.record(k, w, metav1.ConditionFalse, reason, strings.ReplaceAll(failed.Error(), "\n", "; "), 0)
		if reason == applied.ReasonConflict {
			// Over when the policy changes (the Work with it) or the member's object goes.
			return reconciler.RequeueAfter(conflictRecheck, nil)
		}
		return failed
	case changed || (last.Generation == w.Generation && last.Status != metav1.ConditionTrue):
		// Applied: the member's controllers are about to write the objects' status (a new
		// Deployment's ReplicaSet, its conditions); one status write of the Work, after
		// memberDelay, says both.
		c.recordApplied(k, w, versions, memberDelay)
	case !slices.Equal(versions, recordedVersions(w, last)):
		// Applied again what someone else changed: the status keeps the new versions, from
		// which fed resumes after a restart without applying again.
		c.recordApplied(k, w, versions, memberDelay)
	}
	return nil
}

// recordedVersions are the versions of a Work's objects that fed last recorded: its own
// result of this generation, else the Work's status (after a restart).
func recordedVersions(w *federationv1alpha1.Work, last applied.Result) []string {
	if last.Generation == w.Generation && last.Versions != nil {
		return last.Versions
	}
	out := make([]string, len(w.Spec.Workload.Manifests))
	for _, ms := range w.Status.ManifestStatuses {
		if i := int(ms.Identifier.Ordinal); i >= 0 && i < len(out) {
			out[i] = ms.AppliedVersion
		}
	}
	return out
}

// record keeps what execution made of a Work, for the status path.
func (c *Controller) record(k types.NamespacedName, w *federationv1alpha1.Work, status metav1.ConditionStatus, reason, message string, after time.Duration) {
	c.results.Record(k, w.UID, applied.Result{Generation: w.Generation, Status: status, Reason: reason, Message: message}, after)
}

// recordApplied keeps that a Work is applied, with its objects' versions.
func (c *Controller) recordApplied(k types.NamespacedName, w *federationv1alpha1.Work, versions []string, after time.Duration) {
	c.results.Record(k, w.UID, applied.Result{Generation: w.Generation, Status: metav1.ConditionTrue, Reason: applied.ReasonApplied,
		Message: "applied to the cluster", Versions: versions}, after)
}

// conflictError is a member object of the same name that fed did not create.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

// applyManifest applies one manifest when the Work changed or the member's object is not
// what fed last applied, and returns the object's version after it. A conflict is told in
// an event when the Work changed, unless it was told already (repeat).
func (c *Controller) applyManifest(ctx context.Context, cluster string, mb *members.Member, w *federationv1alpha1.Work, ordinal int32, raw []byte,
	workChanged, repeat bool) (string, error) {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return "", fmt.Errorf("manifest %d: %w", ordinal, err)
	}
	gvk := obj.GroupVersionKind()
	mapping, err := mb.Mapping(gvk)
	if err != nil {
		what := gvk.Kind + "." + gvk.GroupVersion().String()
		return "", fmt.Errorf("cluster %s does not serve %s (propagate its CustomResourceDefinition first): %v", cluster, what, err)
	}
	namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
	if err := inScope(w, int(ordinal), obj, namespaced); err != nil {
		c.event(w, ordinal, obj, corev1.EventTypeWarning, applied.ReasonFailed, "cluster %s: %v", cluster, err)
		return "", err
	}
	if !namespaced {
		obj.SetNamespace("")
	}
	client := resourceClient(mb.Client, mapping.Resource, obj.GetNamespace())
	watched := mb.Managed(mapping.Resource)
	current, err := c.current(ctx, watched, client, obj)
	if err != nil {
		return "", err
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
		if workChanged && !repeat {
			c.event(w, ordinal, obj, corev1.EventTypeWarning, applied.ReasonConflict, "%s", err.msg)
		}
		return "", err
	}
	last, known := c.applied.Load(ok)
	if !known {
		// Not applied by this process (it just started): the version the Work's status
		// recorded, if the status is of this generation.
		last = statusVersion(w, ordinal)
	}
	if workChanged || current == nil || current.GetLabels()[federationv1alpha1.LabelManaged] != "true" ||
		current.GetAnnotations()[federationv1alpha1.AnnotationWork] != w.Name || last != version(current) {
		if ns := obj.GetNamespace(); ns != "" {
			if err := c.namespaces.Ensure(ctx, mb, ns); err != nil {
				return "", err
			}
		}
		if current != nil {
			// What the member owns, a customization's retention script keeps.
			whole, isObject, err := trim.Unstructured(current)
			if err == nil && !isObject {
				err = fmt.Errorf("cluster %s: %T is no object of %s", cluster, current, qualified(obj))
			}
			if err != nil {
				return "", err
			}
			retained, err := c.interpreter.Retain(obj, whole)
			if err == nil {
				err = policy.SameIdentity(retained, obj)
			}
			if err != nil {
				c.event(w, ordinal, obj, corev1.EventTypeWarning, "InterpreterFailed", "cluster %s: %v", cluster, err)
				return "", err
			}
			obj = retained
		}
		var written *unstructured.Unstructured
		if current != nil && !fedMade(current, obj) {
			// Taking over (the policy says Overwrite): the member's object becomes the
			// template's as a whole, not merged with what others set in it.
			obj.SetResourceVersion(current.GetResourceVersion())
			written, err = client.Update(ctx, obj, metav1.UpdateOptions{FieldManager: federationv1alpha1.FieldManager})
			obj.SetResourceVersion("")
		} else {
			written, err = client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: federationv1alpha1.FieldManager, Force: true})
		}
		if err != nil {
			err = fmt.Errorf("applying %s %s to cluster %s: %w", strings.ToLower(gvk.Kind), qualified(obj), cluster, err)
			c.event(w, ordinal, obj, corev1.EventTypeWarning, applied.ReasonFailed, "%v", err)
			return "", err
		}
		watched.Wrote(written)
		c.applied.Store(ok, version(written))
		c.event(w, ordinal, obj, corev1.EventTypeNormal, "Synced", "applied to cluster %s", cluster)
		return version(written), nil
	}
	if !known {
		c.applied.Store(ok, last)
	}
	return last.(string), nil
}

// statusVersion is the version of a manifest's object that a Work's status recorded when
// fed last applied it, for the Work's generation; nil if none.
func statusVersion(w *federationv1alpha1.Work, ordinal int32) any {
	cond := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
	if cond == nil || cond.ObservedGeneration != w.Generation || cond.Status != metav1.ConditionTrue {
		return nil
	}
	for _, ms := range w.Status.ManifestStatuses {
		if ms.Identifier.Ordinal == ordinal && ms.AppliedVersion != "" {
			return ms.AppliedVersion
		}
	}
	return nil
}

// event records an event about manifest ordinal of w on the template the Work was made
// from (a dependency's, naming the dependency): the object whose Work it is, which a pull
// cluster's agent may record events about; a manifest of no template (a multi-cluster
// service's derived objects) gets none.
func (c *Controller) event(w *federationv1alpha1.Work, ordinal int32, manifest *unstructured.Unstructured, eventType, reason, format string, args ...any) {
	subject := manifest
	if ordinal > 0 {
		subject = &unstructured.Unstructured{}
		if err := subject.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
			return
		}
		format = "dependency " + strings.ToLower(manifest.GetKind()) + " " + qualified(manifest) + ": " + format
	}
	if subject.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID] == "" {
		return
	}
	ref := &corev1.ObjectReference{APIVersion: subject.GetAPIVersion(), Kind: subject.GetKind(), Namespace: subject.GetNamespace(),
		Name: subject.GetName(), UID: types.UID(subject.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID])}
	c.recorder.Eventf(ref, eventType, reason, format, args...)
}

// fedMade says whether fed may apply a manifest over the member's object without the
// policy's leave: fed manages it, or made it from the same template and released it.
func fedMade(current metav1.Object, manifest *unstructured.Unstructured) bool {
	if current.GetLabels()[federationv1alpha1.LabelManaged] == "true" {
		return true
	}
	uid := current.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]
	return uid != "" && uid == manifest.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]
}

// version is what tells fed that someone else changed a member object: its generation,
// or its resourceVersion for kinds without one.
func version(obj metav1.Object) string {
	if g := obj.GetGeneration(); g > 0 {
		return strconv.FormatInt(g, 10)
	}
	return obj.GetResourceVersion()
}

func qualified(obj *unstructured.Unstructured) string {
	return cache.NewObjectName(obj.GetNamespace(), obj.GetName()).String()
}

func resourceClient(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return client.Resource(gvr)
	}
	return client.Resource(gvr).Namespace(namespace)
}

// current returns the member's object of a manifest, nil when it has none: what fed knows
// of its managed objects when it holds it (its metadata: trim.Unstructured decodes the
// whole, which only an apply over it needs), else the member's answer.
func (c *Controller) current(ctx context.Context, w *members.Watched, client dynamic.ResourceInterface, obj *unstructured.Unstructured) (metav1.Object, error) {
	if o := w.Peek(cache.NewObjectName(obj.GetNamespace(), obj.GetName()).String()); o != nil {
		return o, nil
	}
	// Not a managed object (yet): ask the member whether one of that name exists, from its
	// watch cache (resourceVersion 0), which costs it no read of etcd.
	current, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{ResourceVersion: "0"})
	if apierrors.IsNotFound(err) && !notServed(err) {
		return nil, nil
	}
	return current, err
}

// notServed says whether a NotFound error is a member saying that it does not serve the
// resource at all (its answer not a Status but "404 page not found", as for a CRD's
// version unserved), rather than that the object is not there.
func notServed(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Reason != metav1.StatusReasonNotFound || status.Status().Details == nil {
		return false
	}
	return slices.ContainsFunc(status.Status().Details.Causes, func(c metav1.StatusCause) bool {
		return c.Type == metav1.CauseTypeUnexpectedServerResponse
	})
}

// leavingCleanup is how long fed tries to remove its objects from a member being unjoined
// before it lets the member go with what is left there.
const leavingCleanup = time.Minute

// cleanable says whether fed removes its objects from a member whose Cluster is being
// deleted: while it is Ready, for a minute at most.
func cleanable(c *clusterv1alpha1.Cluster, now time.Time) bool {
	return meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) &&
		now.Sub(c.DeletionTimestamp.Time) < leavingCleanup
}

// cleanup removes a deleted Work's objects from the member, or releases them (fed's label
// and annotation removed) when the Work preserves them, then lets the Work go. Objects fed
// does not manage under this Work are never touched.
func (c *Controller) cleanup(ctx context.Context, cluster string, w *federationv1alpha1.Work) error {
	c.results.Forget(w.UID)
	if !slices.Contains(w.Finalizers, federationv1alpha1.FinalizerExecution) {
		return nil
	}
	mb, err := c.members.Get(cluster)
	if apierrors.IsNotFound(err) {
		return c.removeFinalizer(ctx, w) // the cluster left the fleet
	}
	if leaving := c.members.Leaving(cluster); leaving != nil && !cleanable(leaving, time.Now()) {
		// Unjoined while fed cannot reach it: its copies stay, as Karmada leaves them.
		return c.removeFinalizer(ctx, w)
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
			// Not served now: nothing of that kind is there, unless the member is still
			// loading it (a kube-apiserver just started) or has it unserved, when fed
			// tries again rather than leave its object behind.
			held, herr := mb.MayHold(ctx, obj.GroupVersionKind())
			if herr != nil || held {
				errs = append(errs, fmt.Errorf("cluster %s does not serve %s now, and may hold %s %s of fed's: %w",
					cluster, obj.GroupVersionKind(), strings.ToLower(obj.GetKind()), qualified(obj), errors.Join(err, herr)))
			}
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			obj.SetNamespace("")
		}
		client := resourceClient(mb.Client, mapping.Resource, obj.GetNamespace())
		watched := mb.Managed(mapping.Resource)
		current, err := c.current(ctx, watched, client, obj)
		if notServed(err) {
			mb.Rediscover() // for the next try to find whether the member may hold it
		}
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
		if notServed(err) {
			mb.Rediscover()
		}
		if err != nil && (!apierrors.IsNotFound(err) || notServed(err)) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
			continue
		}
		watched.Released(obj.GetNamespace(), obj.GetName())
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, w)
}

// sharedDependency says whether another live Work of the member holds the same object
// among its manifests (two workloads propagating one ConfigMap with propagateDeps).
func (c *Controller) sharedDependency(w *federationv1alpha1.Work, obj *unstructured.Unstructured) bool {
	for _, other := range c.works.List(w.Namespace) {
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

// write records a Work the controller wrote, for its next reconcile.
func (c *Controller) write(w *federationv1alpha1.Work, err error) error {
	if err != nil {
		return ignoreNotFound(err)
	}
	c.works.Wrote(w)
	return nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
