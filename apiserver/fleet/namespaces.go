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
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	apistorage "k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apiserver/internal/subtree"
)

// FieldManagerFedAPIServer is the manager of what fed-apiserver writes in the fleet's own
// objects itself (a terminating namespace's status).
const FieldManagerFedAPIServer = "fed-apiserver"

// namespaceFinalizer, in a Namespace's spec.finalizers, holds a deleted Namespace template
// until the fleet has deleted every template in it, as it does in a cluster. (A fleet made
// by an earlier fed has it in metadata.finalizers of its namespaces; it is honoured there
// too.)
const namespaceFinalizer = string(corev1.FinalizerKubernetes)

var (
	namespacesGVR = corev1.SchemeGroupVersion.WithResource("namespaces")
	// systemNamespaces exist in every fleet, as in every cluster; the first three may not
	// be deleted.
	systemNamespaces    = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}
	immortalNamespaces  = sets.New(metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic)
	systemContext       = request.WithUser(context.Background(), &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}})
	namespaceFinalizeIn = time.Second
)

// namespaceHooks gives Namespace templates their finalizer and phase.
func namespaceHooks(r *resource) {
	if r.gvr != namespacesGVR {
		return
	}
	r.prepareCreate = func(u *unstructured.Unstructured) {
		if finalizers := specFinalizers(u); !slices.Contains(finalizers, namespaceFinalizer) {
			_ = unstructured.SetNestedStringSlice(u.Object, append(finalizers, namespaceFinalizer), "spec", "finalizers")
		}
		_ = unstructured.SetNestedField(u.Object, string(corev1.NamespaceActive), "status", "phase")
		nameLabel(u)
	}
	// No deletecollection, as in a cluster: a namespace goes one by one.
	r.verbs = slices.DeleteFunc(slices.Clone(r.verbs), func(v string) bool { return v == "deletecollection" })
	r.shouldDeleteDuringUpdate = func(_ context.Context, _ string, obj, _ runtime.Object) bool {
		u := obj.(*unstructured.Unstructured)
		return u.GetDeletionTimestamp() != nil && len(u.GetFinalizers()) == 0 && len(specFinalizers(u)) == 0
	}
	r.prepareUpdate = func(u, _ *unstructured.Unstructured) { nameLabel(u) }
	// Labelled as the body is decoded too, as kube's defaulting does, so that the writer
	// owns the label (managedFields); a generated name gets it in prepareCreate.
	r.decodeBody = decoders(r.decodeBody, func(u *unstructured.Unstructured) ([]string, error) {
		if u.GetName() != "" && u.GetKind() == "Namespace" {
			nameLabel(u)
		}
		return nil, nil
	})
}

// nameLabel labels a Namespace with its name (kubernetes.io/metadata.name), as a cluster
// does on every write, so that selectors of namespaces by name work in the fleet.
func nameLabel(u *unstructured.Unstructured) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelMetadataName] = u.GetName()
	u.SetLabels(labels)
}

// namespaceLifecycle is the fleet's admission: a namespaced template may only be created in
// a Namespace template that exists and is not being deleted, and updated in one that
// exists; the system namespaces may not be deleted — what NamespaceLifecycle does in a
// cluster.
type namespaceLifecycle struct {
	*admission.Handler
	fleet *Fleet
}

var _ admission.ValidationInterface = &namespaceLifecycle{}

func (l *namespaceLifecycle) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() == namespacesGVR.GroupResource() {
		if a.GetOperation() == admission.Delete && a.GetSubresource() == "" && immortalNamespaces.Has(a.GetName()) {
			return apierrors.NewForbidden(a.GetResource().GroupResource(), a.GetName(), fmt.Errorf("this namespace may not be deleted"))
		}
		return nil
	}
	if a.GetOperation() != admission.Create && a.GetOperation() != admission.Update || a.GetNamespace() == "" {
		return nil
	}
	ns, err := l.fleet.namespace(ctx, a.GetNamespace())
	if err != nil {
		return err
	}
	if ns.GetDeletionTimestamp() != nil && a.GetOperation() == admission.Create {
		err := admission.NewForbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.GetNamespace()))
		if status, ok := err.(*apierrors.StatusError); ok && status.ErrStatus.Details != nil {
			status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{
				Type: corev1.NamespaceTerminatingCause, Message: fmt.Sprintf("namespace %s is being terminated", a.GetNamespace()), Field: "metadata.namespace"})
		}
		return err
	}
	return nil
}

// NamespaceLifecycle is the same admission for fed's own namespaced kinds (policies,
// bindings, works): their namespaces are the fleet's. fleet returns the fleet once it exists.
func NamespaceLifecycle(fleet func() *Fleet) admission.ValidationInterface {
	return &lazyNamespaceLifecycle{Handler: admission.NewHandler(admission.Create), fleet: fleet}
}

type lazyNamespaceLifecycle struct {
	*admission.Handler
	fleet func() *Fleet
}

func (l *lazyNamespaceLifecycle) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	f := l.fleet()
	if f == nil {
		return apierrors.NewServiceUnavailable("the fleet API is starting")
	}
	return (&namespaceLifecycle{fleet: f}).Validate(ctx, a, o)
}

// namespace reads a Namespace template.
func (f *Fleet) namespace(_ context.Context, name string) (*unstructured.Unstructured, error) {
	set := f.set.Load()
	if set == nil {
		return nil, apierrors.NewServiceUnavailable("the fleet API is starting")
	}
	s := set.resources[namespacesGVR]
	if s == nil {
		return nil, apierrors.NewServiceUnavailable("the fleet serves no namespaces: the host did not list them")
	}
	// The store names the resource of the request in its errors; this one is about a namespace.
	obj, err := s.storage.main.Get(request.WithNamespace(systemContext, ""), name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(namespacesGVR.GroupResource(), name)
	}
	if err != nil {
		return nil, err
	}
	return obj.(*unstructured.Unstructured), nil
}

// ensureSystemNamespaces creates the namespaces every cluster has.
func (f *Fleet) ensureSystemNamespaces(ctx context.Context) error {
	s := f.set.Load().resources[namespacesGVR]
	if s == nil {
		return nil
	}
	for _, name := range systemNamespaces {
		ns := newUnstructured(corev1.SchemeGroupVersion.WithKind("Namespace"))
		ns.SetName(name)
		_, err := s.storage.main.Create(request.WithNamespace(systemContext, ""), ns, nil, &metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the fleet's namespace %s: %w", name, err)
		}
	}
	return nil
}

// runNamespaceFinalizer empties deleted Namespace templates and then lets them go.
func (f *Fleet) runNamespaceFinalizer(ctx context.Context) {
	t := time.NewTicker(namespaceFinalizeIn)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s := f.set.Load().resources[namespacesGVR]
		if s == nil {
			continue
		}
		list, err := s.storage.main.List(request.WithNamespace(systemContext, ""), &metainternalversion.ListOptions{})
		if err != nil {
			klog.ErrorS(err, "Listing the fleet's namespaces")
			continue
		}
		for i := range list.(*unstructured.UnstructuredList).Items {
			ns := &list.(*unstructured.UnstructuredList).Items[i]
			if ns.GetDeletionTimestamp() == nil ||
				!slices.Contains(specFinalizers(ns), namespaceFinalizer) && !slices.Contains(ns.GetFinalizers(), namespaceFinalizer) {
				continue
			}
			if err := f.finalizeNamespace(ns); err != nil {
				klog.ErrorS(err, "Deleting the templates of a deleted namespace", "namespace", ns.GetName())
			}
		}
	}
}

// finalizeNamespace empties a deleted namespace, saying how far it got in its status as a
// cluster's namespace controller does (phase Terminating, the NamespaceDeletion* and
// Namespace*Remaining conditions), and finalizes it once it is empty: its finalizer leaves
// spec.finalizers (and metadata.finalizers, where an earlier fed put it), and a namespace
// left with none goes (the store's shouldDeleteDuringUpdate).
func (f *Fleet) finalizeNamespace(ns *unstructured.Unstructured) error {
	set := f.set.Load()
	name := ns.GetName()
	s := set.resources[namespacesGVR]
	ctx := request.WithNamespace(systemContext, name)
	remaining := map[string]int{}  // resource.group → objects left
	finalizers := map[string]int{} // finalizer → objects holding it
	deleted := map[schema.GroupResource]bool{}
	var failure error
	for _, sv := range set.order {
		gr := sv.r.gvr.GroupResource()
		if !sv.r.namespaced || deleted[gr] {
			continue
		}
		deleted[gr] = true
		list, err := sv.storage.main.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			failure = err
			continue
		}
		items := list.(*unstructured.UnstructuredList).Items
		if len(items) == 0 {
			continue
		}
		remaining[gr.Resource+"."+gr.Group] += len(items)
		for _, it := range items {
			for _, fin := range it.GetFinalizers() {
				finalizers[fin]++
			}
		}
		// A template protected from deletion stays, and so does the namespace, Terminating,
		// its condition saying which and how to lift it.
		protected := func(_ context.Context, obj runtime.Object) error {
			if err := deletionProtected(obj, gr); err != nil {
				m, _ := meta.Accessor(obj)
				return apierrors.NewForbidden(gr, m.GetName(), err)
			}
			return nil
		}
		if _, err := sv.storage.main.DeleteCollection(ctx, protected, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
			failure = err
		}
	}
	n, err := f.deleteFedObjects(name)
	if err != nil {
		failure = err
	}
	if n > 0 {
		remaining["fed's own objects"] += n
	}
	if err := f.namespaceTerminating(s, ns, terminationConditions(remaining, finalizers, failure)); err != nil {
		return err
	}
	if len(remaining) > 0 || failure != nil {
		delete(f.emptied, ns.GetUID())
		return failure // again on the next round, once they are gone
	}
	// A create admitted before the namespace was deleted may be stored after a round found
	// it empty, and would stay in a namespace that is gone, unseen until one of the same
	// name comes back (an execution namespace does, with a cluster joined again). So the
	// namespace goes once two rounds in a row, a second apart, found it empty.
	if !f.emptied[ns.GetUID()] {
		if f.emptied == nil {
			f.emptied = map[types.UID]bool{}
		}
		f.emptied[ns.GetUID()] = true
		return nil
	}
	delete(f.emptied, ns.GetUID())
	obj, err := s.storage.main.Get(request.WithNamespace(systemContext, ""), name, &metav1.GetOptions{})
	if err != nil {
		return client404(err)
	}
	done := obj.(*unstructured.Unstructured).DeepCopy()
	without := func(f string) bool { return f == namespaceFinalizer }
	done.SetFinalizers(slices.DeleteFunc(done.GetFinalizers(), without))
	if left := slices.DeleteFunc(specFinalizers(done), without); len(left) > 0 {
		_ = unstructured.SetNestedStringSlice(done.Object, left, "spec", "finalizers")
	} else {
		unstructured.RemoveNestedField(done.Object, "spec", "finalizers")
	}
	_, _, err = s.storage.main.Store.Update(request.WithNamespace(systemContext, ""), name, rest.DefaultUpdatedObjectInfo(done), nil, nil, false, &metav1.UpdateOptions{})
	return client404(err)
}

// namespaceTerminating writes a deleted namespace's status: phase Terminating and the
// conditions, when they changed (a condition keeps its lastTransitionTime while its status
// stays).
func (f *Fleet) namespaceTerminating(s *served, ns *unstructured.Unstructured, conditions []corev1.NamespaceCondition) error {
	if s.storage.status == nil {
		return nil
	}
	var current corev1.NamespaceStatus
	if raw, ok := ns.Object["status"].(map[string]any); ok {
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &current)
	}
	now := metav1.Now()
	for i := range conditions {
		conditions[i].LastTransitionTime = now
		for _, c := range current.Conditions {
			if c.Type == conditions[i].Type && c.Status == conditions[i].Status {
				conditions[i].LastTransitionTime = c.LastTransitionTime
			}
		}
	}
	want := corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating, Conditions: conditions}
	if apiequality.Semantic.DeepEqual(current, want) {
		return nil
	}
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&want)
	if err != nil {
		return err
	}
	terminating := ns.DeepCopy()
	terminating.Object["status"] = status
	if s.status != nil && s.status.FieldManager != nil {
		// Recorded as a cluster records its namespace controller's write.
		updated := s.status.FieldManager.UpdateNoErrors(ns, terminating, FieldManagerFedAPIServer)
		terminating = updated.(*unstructured.Unstructured)
	}
	_, _, err = s.storage.status.Update(request.WithNamespace(systemContext, ""), ns.GetName(), rest.DefaultUpdatedObjectInfo(terminating), nil, nil, false, &metav1.UpdateOptions{})
	return client404(err)
}

// terminationConditions are a terminating namespace's conditions, with the types, reasons
// and messages of a cluster's namespace controller: what is left (by resource), the
// finalizers holding it, and a failure to delete it.
func terminationConditions(remaining, finalizers map[string]int, failure error) []corev1.NamespaceCondition {
	cond := func(t corev1.NamespaceConditionType, ok bool, okReason, okMessage, reason, message string) corev1.NamespaceCondition {
		if ok {
			return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: okReason, Message: okMessage}
		}
		return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message}
	}
	count := func(m map[string]int, what string) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %s %d resource instances", k, what, m[k])
		}
		return strings.Join(parts, ", ")
	}
	failed := ""
	if failure != nil {
		failed = failure.Error()
	}
	return []corev1.NamespaceCondition{
		cond(corev1.NamespaceDeletionDiscoveryFailure, true, "ResourcesDiscovered", "All resources successfully discovered", "", ""),
		cond(corev1.NamespaceDeletionGVParsingFailure, true, "ParsedGroupVersions", "All legacy kube types successfully parsed", "", ""),
		cond(corev1.NamespaceDeletionContentFailure, failure == nil, "ContentDeleted", "All content successfully deleted, may be waiting on finalization",
			"ContentDeletionFailed", "Failed to delete all resource types, 1 remaining: "+failed),
		cond(corev1.NamespaceContentRemaining, len(remaining) == 0, "ContentRemoved", "All content successfully removed",
			"SomeResourcesRemain", "Some resources are remaining: "+count(remaining, "has")),
		cond(corev1.NamespaceFinalizersRemaining, len(finalizers) == 0, "ContentHasNoFinalizers", "All content-preserving finalizers finished",
			"SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: "+count(finalizers, "in")),
	}
}

// deleteNamespace deletes a Namespace as kube-apiserver does: one whose spec has finalizers
// is marked Terminating (its deletionTimestamp set, no grace period) and answered with, and
// stays until fed has emptied and finalized it; deleting it again meanwhile answers it as
// it is.
func (t *templateREST) deleteNamespace(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := t.Store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*unstructured.Unstructured)
	if len(specFinalizers(ns)) == 0 {
		return t.Store.Delete(ctx, name, deleteValidation, options)
	}
	if ns.GetDeletionTimestamp() != nil {
		return ns, false, nil // already on its way out
	}
	if deleteValidation != nil {
		if err := deleteValidation(ctx, ns); err != nil {
			return nil, false, err
		}
	}
	key, err := t.Store.KeyFunc(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if p := options.Preconditions; p != nil {
		// Checked against the namespace read, with kube's namespace registry's words.
		if p.UID != nil && *p.UID != ns.GetUID() {
			return nil, false, apierrors.NewConflict(namespacesGVR.GroupResource(), name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, ns.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != ns.GetResourceVersion() {
			return nil, false, apierrors.NewConflict(namespacesGVR.GroupResource(), name,
				fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, ns.GetResourceVersion()))
		}
	}
	// The namespace read is the one marked: a change meanwhile is a conflict.
	uid, rv := ns.GetUID(), ns.GetResourceVersion()
	preconditions := &apistorage.Preconditions{UID: &uid, ResourceVersion: &rv}
	now := metav1.Now()
	out := t.Store.NewFunc()
	err = t.Store.Storage.GuaranteedUpdate(ctx, key, out, false, preconditions, func(existing runtime.Object, _ apistorage.ResponseMeta) (runtime.Object, *uint64, error) {
		u := existing.(*unstructured.Unstructured).DeepCopy()
		if u.GetDeletionTimestamp() == nil {
			u.SetDeletionTimestamp(&now)
		}
		_ = unstructured.SetNestedField(u.Object, string(corev1.NamespaceTerminating), "status", "phase")
		return u, nil, nil
	}, dryrun.IsDryRun(options.DryRun), nil)
	if err != nil {
		return nil, false, storeerr.InterpretUpdateError(err, namespacesGVR.GroupResource(), name)
	}
	return out, false, nil
}

// finalizeREST is a Namespace's finalize subresource: an update of its spec.finalizers
// alone. A namespace being deleted that is left with no finalizer goes.
type finalizeREST struct{ store *genericregistry.Store }

var _ rest.Updater = &finalizeREST{}

func (f *finalizeREST) New() runtime.Object { return f.store.New() }
func (f *finalizeREST) Destroy()            {}

func (f *finalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return f.store.Update(ctx, name, finalizersOnly{objInfo}, createValidation, updateValidation, false, options)
}

// finalizersOnly takes an update's spec.finalizers (and resourceVersion, its precondition)
// and keeps the rest of the stored Namespace.
type finalizersOnly struct{ rest.UpdatedObjectInfo }

func (o finalizersOnly) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := o.UpdatedObjectInfo.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	u := obj.(*unstructured.Unstructured)
	out := old.(*unstructured.Unstructured).DeepCopy()
	if finalizers := specFinalizers(u); len(finalizers) > 0 {
		_ = unstructured.SetNestedStringSlice(out.Object, finalizers, "spec", "finalizers")
	} else {
		unstructured.RemoveNestedField(out.Object, "spec", "finalizers")
	}
	out.SetResourceVersion(u.GetResourceVersion())
	return out, nil
}

// specFinalizers are a Namespace's spec.finalizers.
func specFinalizers(u *unstructured.Unstructured) []string {
	f, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "finalizers")
	return f
}

func client404(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteFedObjects deletes fed's own objects (policies, bindings, works…) in a namespace
// through fed-apiserver's handler and returns how many there were.
func (f *Fleet) deleteFedObjects(namespace string) (int, error) {
	count := 0
	for _, g := range f.set.Load().fedDiscovery {
		gv := g.PreferredVersion.GroupVersion
		var resources metav1.APIResourceList
		if err := f.fedCall(http.MethodGet, "/apis/"+gv, "", &resources); err != nil {
			return 0, err
		}
		for _, r := range resources.APIResources {
			if !r.Namespaced || !slices.Contains(r.Verbs, "deletecollection") {
				continue
			}
			path := "/apis/" + gv + "/namespaces/" + namespace + "/" + r.Name
			var list metav1.PartialObjectMetadataList
			if err := f.fedCall(http.MethodGet, path, namespace, &list); err != nil {
				return 0, err
			}
			if len(list.Items) == 0 {
				continue
			}
			count += len(list.Items)
			if err := f.fedCall(http.MethodDelete, path, namespace, nil); err != nil {
				return 0, err
			}
		}
	}
	return count, nil
}

// fedCall makes a request to fed-apiserver's own handler as fed-apiserver.
func (f *Fleet) fedCall(method, path, namespace string, into any) error {
	return f.fedDo(method, path, namespace, "application/json", into)
}

// fedDo makes a request to fed-apiserver's own handler as fed-apiserver, accepting accept,
// and decodes the answer into into (unless nil).
func (f *Fleet) fedDo(method, path, namespace, accept string, into any) error {
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("Accept", accept)
	info, err := subtree.RequestInfoFactory.NewRequestInfo(req)
	if err != nil {
		return err
	}
	ctx := request.WithRequestInfo(request.WithNamespace(systemContext, namespace), info)
	rec := httptest.NewRecorder()
	f.cfg.Fed.ServeHTTP(rec, req.WithContext(ctx))
	if rec.Code >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(rec.Body.Bytes(), into)
}
