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

package fleet

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/dump"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// A Deployment template runs in the members, so the fleet holds none of its ReplicaSets.
// Tools that follow a rollout in one cluster look for the Deployment's ReplicaSets: Helm 3's
// --wait takes the one the Deployment controls whose pod template is the Deployment's and
// waits for its ready replicas; kubectl rollout history and undo read the revisions of all
// of them (deployment.kubernetes.io/revision) and put an earlier one's pod template back.
// The fleet keeps them as a cluster's deployment controller does, for the template:
//   - the template's revision, in its deployment.kubernetes.io/revision annotation: 1 when
//     made, one more than any before whenever its pod template changes;
//   - its current revision shown as a ReplicaSet in lists of replicasets: a view, never
//     stored, not in watches, never shown to fed's own controllers, read-only; its counts
//     are the template's rollout over the members (the updated replicas once every member
//     observed the template's generation, none before);
//   - each earlier revision stored as a ReplicaSet of no replicas (its pod template, the
//     template's annotations then, its revision), up to the template's
//     revisionHistoryLimit (10 by default); a pod template made again takes its earlier
//     revision's place under a new number (kubectl rollout undo). They go with the
//     template. fed never propagates either (federationv1alpha1.AnnotationView).
// Each member's own controller keeps its own revisions, which the members' copies show.

const (
	annotationRevision          = "deployment.kubernetes.io/revision"
	viewRollout                 = "rollout"
	viewRolloutHistory          = "rollout-history"
	defaultRevisionHistoryLimit = 10
)

// AnnotationView marks an object the fleet shows but does not store as a template.
const AnnotationView = federationv1alpha1.AnnotationView

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// notCopied are the Deployment annotations its ReplicaSets do not take, as in a cluster.
var notCopied = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true, annotationRevision: true,
	"deployment.kubernetes.io/revision-history": true, "deployment.kubernetes.io/desired-replicas": true,
	"deployment.kubernetes.io/max-replicas": true, "deprecated.deployment.rollback.to": true,
}

// rolloutHooks keeps the revisions of Deployment templates and lists the rollout view
// with the fleet's ReplicaSets.
func (f *Fleet) rolloutHooks(r *resource) {
	if r.gvr == deploymentsGVR {
		prepareCreate, completed := r.prepareCreate, r.completed
		r.prepareCreate = func(u *unstructured.Unstructured) {
			if prepareCreate != nil {
				prepareCreate(u)
			}
			setRevision(u, 1)
		}
		// Once completed with the host's defaults, the pod template compares with the
		// stored one as a cluster's controller compares them. kubectl rollout undo copies
		// a ReplicaSet's annotations to the Deployment: the mark of fed's record is not
		// one of the template's.
		r.completed = func(obj, old, dryRun *unstructured.Unstructured) {
			if completed != nil {
				completed(obj, old, dryRun)
			}
			if annotations := obj.GetAnnotations(); annotations[AnnotationView] != "" {
				delete(annotations, AnnotationView)
				obj.SetAnnotations(annotations)
			}
			if old != nil {
				f.nextRevision(obj, old)
			}
		}
		r.updated = f.keepRevision
		r.deleted = func(_ context.Context, objs []*unstructured.Unstructured) {
			for _, d := range objs {
				f.forgetRevisions(d)
			}
		}
		return
	}
	if r.gvr != replicaSetsGVR {
		return
	}
	r.views = func(ctx context.Context) ([]unstructured.Unstructured, error) {
		st := f.storageOf(deploymentsGVR)
		if st == nil {
			return nil, nil
		}
		obj, err := st.main.Store.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			return nil, err
		}
		list, ok := obj.(*unstructured.UnstructuredList)
		if !ok {
			return nil, nil
		}
		var out []unstructured.Unstructured
		for i := range list.Items {
			if rs, ok := rolloutReplicaSet(&list.Items[i], viewRollout); ok {
				out = append(out, *rs)
			}
		}
		return out, nil
	}
}

// rolloutReplicaSet is the ReplicaSet of a Deployment template's current pod template:
// the view of its rollout (viewRollout), or the record of an earlier revision
// (viewRolloutHistory: no replicas, to be stored).
func rolloutReplicaSet(d *unstructured.Unstructured, view string) (*unstructured.Unstructured, bool) {
	tmpl, found, err := unstructured.NestedMap(d.Object, "spec", "template")
	if !found || err != nil {
		return nil, false
	}
	selector, found, err := unstructured.NestedMap(d.Object, "spec", "selector")
	if !found || err != nil {
		return nil, false
	}
	// The pod-template-hash a deployment controller of fed's Kubernetes release computes
	// for the template (its Go value, printed for hashing); a member of another release
	// may compute another.
	var typed corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl, &typed); err != nil {
		return nil, false
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(dump.ForHash(typed)))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))

	podLabels, _, _ := unstructured.NestedStringMap(tmpl, "metadata", "labels")
	if podLabels == nil {
		podLabels = map[string]string{}
	}
	podLabels["pod-template-hash"] = hash
	_ = unstructured.SetNestedStringMap(tmpl, podLabels, "metadata", "labels")
	matchLabels, _, _ := unstructured.NestedStringMap(selector, "matchLabels")
	if matchLabels == nil {
		matchLabels = map[string]string{}
	}
	matchLabels["pod-template-hash"] = hash
	_ = unstructured.SetNestedStringMap(selector, matchLabels, "matchLabels")

	replicas, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	// The members count ready and available pods of all the rollouts; of those, at least
	// all but the pods not updated yet are the new rollout's.
	var updated, ready, available int64
	if observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration"); observed == d.GetGeneration() {
		total, _, _ := unstructured.NestedInt64(d.Object, "status", "replicas")
		updated, _, _ = unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
		old := max(total-updated, 0)
		r, _, _ := unstructured.NestedInt64(d.Object, "status", "readyReplicas")
		a, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
		ready, available = min(max(r-old, 0), updated), min(max(a-old, 0), updated)
	}
	rs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "ReplicaSet",
		"spec":       map[string]any{"replicas": replicas, "selector": selector, "template": tmpl},
		"status": map[string]any{
			"replicas": updated, "fullyLabeledReplicas": updated,
			"readyReplicas": ready, "availableReplicas": available,
			"observedGeneration": int64(1),
		},
	}}
	annotations := map[string]string{}
	for k, v := range d.GetAnnotations() {
		if !notCopied[k] {
			annotations[k] = v
		}
	}
	annotations[annotationRevision] = strconv.FormatInt(revision(d), 10)
	annotations[AnnotationView] = view
	rs.SetName(d.GetName() + "-" + hash)
	rs.SetNamespace(d.GetNamespace())
	rs.SetLabels(podLabels)
	rs.SetAnnotations(annotations)
	if view == viewRolloutHistory {
		rs.Object["spec"].(map[string]any)["replicas"] = int64(0)
		delete(rs.Object, "status")
	} else {
		rs.SetUID(d.GetUID() + "-" + "rollout")
		rs.SetGeneration(1)
		rs.SetResourceVersion(d.GetResourceVersion())
		rs.SetCreationTimestamp(d.GetCreationTimestamp())
	}
	rs.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.GetName(), UID: d.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
	return rs, true
}

// withViews adds the views of a list's resource to a list fed's storage answered, when
// the caller is not fed itself and it is the list's last page; they are selected by the
// list's label and field selectors (metadata.name and metadata.namespace).
func (t *templateREST) withViews(ctx context.Context, out *unstructured.UnstructuredList, options *metainternalversion.ListOptions) error {
	if u, ok := request.UserFrom(ctx); !ok || u.GetName() == user.APIServerUser || out.GetContinue() != "" {
		return nil
	}
	views, err := t.r.views(ctx)
	if err != nil {
		return err
	}
	lsel, fsel := labels.Everything(), fields.Everything()
	if options != nil && options.LabelSelector != nil {
		lsel = options.LabelSelector
	}
	if options != nil && options.FieldSelector != nil {
		fsel = options.FieldSelector
	}
	for _, v := range views {
		if lsel.Matches(labels.Set(v.GetLabels())) && fsel.Matches(fields.Set{"metadata.name": v.GetName(), "metadata.namespace": v.GetNamespace()}) {
			out.Items = append(out.Items, v)
		}
	}
	return nil
}

// revision is a Deployment template's (or a ReplicaSet's) revision; 1 for a template kept
// before the fleet counted them.
func revision(obj *unstructured.Unstructured) int64 {
	n, err := strconv.ParseInt(obj.GetAnnotations()[annotationRevision], 10, 64)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func setRevision(obj *unstructured.Unstructured, n int64) {
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[annotationRevision] = strconv.FormatInt(n, 10)
	obj.SetAnnotations(annotations)
}

// podTemplate is a Deployment's (or a ReplicaSet's, without its pod-template-hash) pod
// template.
func podTemplate(obj *unstructured.Unstructured) map[string]any {
	t, _, _ := unstructured.NestedMap(obj.Object, "spec", "template")
	if labels, ok, _ := unstructured.NestedStringMap(t, "metadata", "labels"); ok {
		delete(labels, "pod-template-hash")
		_ = unstructured.SetNestedStringMap(t, labels, "metadata", "labels")
	}
	return t
}

// nextRevision gives an updated Deployment template its revision: its own while its pod
// template stays, else one more than any so far.
func (f *Fleet) nextRevision(u, old *unstructured.Unstructured) {
	n := revision(old)
	if apiequality.Semantic.DeepEqual(podTemplate(u), podTemplate(old)) {
		setRevision(u, n)
		return
	}
	for _, h := range f.rolloutHistory(old.GetNamespace(), old.GetUID()) {
		n = max(n, revision(h))
	}
	setRevision(u, n+1)
}

// keepRevision records, after a Deployment template's pod template changed, the revision it
// had as a ReplicaSet of its history; a revision whose pod template is the new one leaves
// the history (the template is at it again, under its new number), and the oldest go past
// revisionHistoryLimit.
func (f *Fleet) keepRevision(_ context.Context, d, old *unstructured.Unstructured) {
	if d.GetDeletionTimestamp() != nil && len(d.GetFinalizers()) == 0 {
		f.forgetRevisions(d) // its last finalizer gone, the update deleted it
		return
	}
	now, before := podTemplate(d), podTemplate(old)
	if apiequality.Semantic.DeepEqual(now, before) {
		return
	}
	var history []*unstructured.Unstructured
	kept := false
	for _, h := range f.rolloutHistory(d.GetNamespace(), d.GetUID()) {
		switch t := podTemplate(h); {
		case apiequality.Semantic.DeepEqual(t, now):
			f.deleteReplicaSet(h)
			continue
		case apiequality.Semantic.DeepEqual(t, before):
			kept = true
		}
		history = append(history, h)
	}
	if !kept {
		if rs, ok := rolloutReplicaSet(old, viewRolloutHistory); ok {
			if st := f.storageOf(replicaSetsGVR); st != nil {
				created, err := st.main.Store.Create(request.WithNamespace(systemContext, d.GetNamespace()), rs, nil, &metav1.CreateOptions{})
				switch {
				case err == nil:
					history = append(history, created.(*unstructured.Unstructured))
				case !apierrors.IsAlreadyExists(err):
					klog.ErrorS(err, "Keeping a revision of a Deployment template", "deployment", klog.KObj(d))
				}
			}
		}
	}
	limit, found, _ := unstructured.NestedInt64(d.Object, "spec", "revisionHistoryLimit")
	if !found {
		limit = defaultRevisionHistoryLimit
	}
	sort.Slice(history, func(i, j int) bool { return revision(history[i]) < revision(history[j]) })
	for i := 0; i < len(history)-int(limit); i++ {
		f.deleteReplicaSet(history[i])
	}
}

// forgetRevisions deletes the records of a Deployment template's earlier revisions.
func (f *Fleet) forgetRevisions(d *unstructured.Unstructured) {
	for _, h := range f.rolloutHistory(d.GetNamespace(), d.GetUID()) {
		f.deleteReplicaSet(h)
	}
}

// rolloutHistory is the stored ReplicaSets of the earlier revisions of the Deployment
// template of uid in namespace.
func (f *Fleet) rolloutHistory(namespace string, uid types.UID) []*unstructured.Unstructured {
	st := f.storageOf(replicaSetsGVR)
	if st == nil {
		return nil
	}
	obj, err := st.main.Store.List(request.WithNamespace(systemContext, namespace), &metainternalversion.ListOptions{})
	if err != nil {
		klog.ErrorS(err, "Reading the revisions of a Deployment template", "namespace", namespace)
		return nil
	}
	var out []*unstructured.Unstructured
	for i := range obj.(*unstructured.UnstructuredList).Items {
		rs := &obj.(*unstructured.UnstructuredList).Items[i]
		if rs.GetAnnotations()[AnnotationView] != viewRolloutHistory {
			continue
		}
		if owner := metav1.GetControllerOfNoCopy(rs); owner != nil && owner.UID == uid {
			out = append(out, rs)
		}
	}
	return out
}

func (f *Fleet) deleteReplicaSet(rs *unstructured.Unstructured) {
	st := f.storageOf(replicaSetsGVR)
	if st == nil {
		return
	}
	uid := rs.GetUID()
	_, _, err := st.main.Store.Delete(request.WithNamespace(systemContext, rs.GetNamespace()), rs.GetName(), rest.ValidateAllObjectFunc,
		&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.ErrorS(err, "Deleting a revision of a Deployment template", "replicaset", klog.KObj(rs))
	}
}

// storageOf is the store of a resource the fleet serves, nil if none.
func (f *Fleet) storageOf(gvr schema.GroupVersionResource) *restStorage {
	set := f.set.Load()
	if set == nil || set.resources[gvr] == nil {
		return nil
	}
	return set.resources[gvr].storage
}
