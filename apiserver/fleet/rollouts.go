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
	"encoding/json"
	"fmt"
	"hash/fnv"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"
)

// A Deployment template runs in the members, so the fleet holds none of its ReplicaSets.
// Tools that follow a rollout in one cluster look for the Deployment's newest ReplicaSet
// (Helm 3's --wait lists the ReplicaSets its selector selects, takes the one the Deployment
// controls whose pod template is the Deployment's, and waits for its ready replicas). The
// fleet shows one such ReplicaSet for each Deployment template in lists of replicasets: a
// view, never stored, not in watches, never shown to fed's own controllers (so never
// propagated), read-only (a get or write of it finds nothing). Its counts are the
// template's rollout over the members: the updated replicas once every member observed the
// template's generation, none before.

// AnnotationView marks an object the fleet shows but does not store.
const AnnotationView = "federation.fedhq.io/view"

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// rolloutHooks lists the rollout view with the fleet's ReplicaSets.
func (f *Fleet) rolloutHooks(r *resource) {
	if r.gvr != replicaSetsGVR {
		return
	}
	r.views = func(ctx context.Context) ([]unstructured.Unstructured, error) {
		set := f.set.Load()
		if set == nil {
			return nil, nil
		}
		s := set.resources[deploymentsGVR]
		if s == nil || s.storage == nil {
			return nil, nil
		}
		obj, err := s.storage.main.Store.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			return nil, err
		}
		list, ok := obj.(*unstructured.UnstructuredList)
		if !ok {
			return nil, nil
		}
		var out []unstructured.Unstructured
		for i := range list.Items {
			if rs, ok := rolloutReplicaSet(&list.Items[i]); ok {
				out = append(out, *rs)
			}
		}
		return out, nil
	}
}

// rolloutReplicaSet is the ReplicaSet a Deployment template's rollout shows.
func rolloutReplicaSet(d *unstructured.Unstructured) (*unstructured.Unstructured, bool) {
	tmpl, found, err := unstructured.NestedMap(d.Object, "spec", "template")
	if !found || err != nil {
		return nil, false
	}
	selector, found, err := unstructured.NestedMap(d.Object, "spec", "selector")
	if !found || err != nil {
		return nil, false
	}
	raw, err := json.Marshal(tmpl)
	if err != nil {
		return nil, false
	}
	h := fnv.New32a()
	_, _ = h.Write(raw)
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
	rs.SetName(d.GetName() + "-" + hash)
	rs.SetNamespace(d.GetNamespace())
	rs.SetUID(d.GetUID() + "-" + "rollout")
	rs.SetGeneration(1)
	rs.SetResourceVersion(d.GetResourceVersion())
	rs.SetCreationTimestamp(d.GetCreationTimestamp())
	rs.SetLabels(podLabels)
	rs.SetAnnotations(map[string]string{AnnotationView: "rollout"})
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
