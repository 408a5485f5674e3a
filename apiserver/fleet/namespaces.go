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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apiserver/internal/subtree"
)

// namespaceFinalizer holds a deleted Namespace template until the fleet has deleted every
// template in it, as the "kubernetes" finalizer does in a cluster.
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
		if !slices.Contains(u.GetFinalizers(), namespaceFinalizer) {
			u.SetFinalizers(append(u.GetFinalizers(), namespaceFinalizer))
		}
		_ = unstructured.SetNestedField(u.Object, string(corev1.NamespaceActive), "status", "phase")
		nameLabel(u)
	}
	r.prepareUpdate = func(u, _ *unstructured.Unstructured) { nameLabel(u) }
	// Labelled as the body is decoded too, as kube's defaulting does, so that the writer
	// owns the label (managedFields); a generated name gets it in prepareCreate.
	r.decodeBody = func(u *unstructured.Unstructured) ([]string, error) {
		if u.GetName() != "" && u.GetKind() == "Namespace" {
			nameLabel(u)
		}
		return nil, nil
	}
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
// a Namespace template that exists and is not being deleted, and the system namespaces may
// not be deleted — what NamespaceLifecycle does in a cluster.
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
	if a.GetOperation() != admission.Create || a.GetNamespace() == "" {
		return nil
	}
	ns, err := l.fleet.namespace(ctx, a.GetNamespace())
	if err != nil {
		return err
	}
	if ns.GetDeletionTimestamp() != nil {
		return admission.NewForbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.GetNamespace()))
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
			if ns.GetDeletionTimestamp() == nil || !slices.Contains(ns.GetFinalizers(), namespaceFinalizer) {
				continue
			}
			if err := f.finalizeNamespace(ns); err != nil {
				klog.ErrorS(err, "Deleting the templates of a deleted namespace", "namespace", ns.GetName())
			}
		}
	}
}

// finalizeNamespace marks a deleted namespace Terminating, deletes what is in it, and
// removes its finalizer once it is empty.
func (f *Fleet) finalizeNamespace(ns *unstructured.Unstructured) error {
	set := f.set.Load()
	name := ns.GetName()
	s := set.resources[namespacesGVR]
	if phase, _, _ := unstructured.NestedString(ns.Object, "status", "phase"); phase != string(corev1.NamespaceTerminating) && s.storage.status != nil {
		terminating := ns.DeepCopy()
		_ = unstructured.SetNestedField(terminating.Object, string(corev1.NamespaceTerminating), "status", "phase")
		if _, _, err := s.storage.status.Update(request.WithNamespace(systemContext, ""), name, rest.DefaultUpdatedObjectInfo(terminating), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	ctx := request.WithNamespace(systemContext, name)
	remaining := 0
	deleted := map[schema.GroupResource]bool{}
	for _, sv := range set.order {
		gr := sv.r.gvr.GroupResource()
		if !sv.r.namespaced || deleted[gr] {
			continue
		}
		deleted[gr] = true
		list, err := sv.storage.main.List(ctx, &metainternalversion.ListOptions{})
		if err != nil {
			return err
		}
		if n := len(list.(*unstructured.UnstructuredList).Items); n > 0 {
			remaining += n
			if _, err := sv.storage.main.DeleteCollection(ctx, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
				return err
			}
		}
	}
	n, err := f.deleteFedObjects(name)
	if err != nil {
		return err
	}
	if remaining += n; remaining > 0 {
		return nil // again on the next round, once they are gone
	}
	obj, err := s.storage.main.Get(request.WithNamespace(systemContext, ""), name, &metav1.GetOptions{})
	if err != nil {
		return client404(err)
	}
	done := obj.(*unstructured.Unstructured).DeepCopy()
	done.SetFinalizers(slices.DeleteFunc(done.GetFinalizers(), func(s string) bool { return s == namespaceFinalizer }))
	_, _, err = s.storage.main.Store.Update(request.WithNamespace(systemContext, ""), name, rest.DefaultUpdatedObjectInfo(done), nil, nil, false, &metav1.UpdateOptions{})
	return client404(err)
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
