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

package hostvalidation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

var (
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	namespacesGVR   = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	clusterRolesGVR = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	crdsGVR         = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	servicesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	configMapsGVR   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// fakeHost is a fake host kube-apiserver: a fake dynamic client whose creates behave like the
// host's dry runs (nothing stored, AlreadyExists for a name that exists, generateName honoured),
// with fail to make the host refuse a create. A create without dryRun=All falls through to the
// fake's tracker, which stores it, so that a test sees it.
type fakeHost struct {
	*fake.FakeDynamicClient
	mu   sync.Mutex
	fail func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error
}

func newFakeHost(existing ...runtime.Object) *fakeHost {
	listKinds := map[schema.GroupVersionResource]string{
		deploymentsGVR: "DeploymentList", namespacesGVR: "NamespaceList", clusterRolesGVR: "ClusterRoleList",
		crdsGVR: "CustomResourceDefinitionList", servicesGVR: "ServiceList", configMapsGVR: "ConfigMapList",
	}
	h := &fakeHost{FakeDynamicClient: fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, existing...)}
	h.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		ca := a.(clienttesting.CreateActionImpl)
		if !reflect.DeepEqual(ca.GetCreateOptions().DryRun, []string{metav1.DryRunAll}) {
			return false, nil, nil
		}
		obj := ca.GetObject().(*unstructured.Unstructured).DeepCopy()
		if obj.GetName() == "" && obj.GetGenerateName() != "" {
			obj.SetName(obj.GetGenerateName() + "x7k2p")
		}
		h.mu.Lock()
		fail := h.fail
		h.mu.Unlock()
		if fail != nil {
			if err := fail(ca.GetResource(), obj); err != nil {
				return true, nil, err
			}
		}
		if _, err := h.Tracker().Get(ca.GetResource(), ca.GetNamespace(), obj.GetName()); err == nil {
			return true, nil, apierrors.NewAlreadyExists(ca.GetResource().GroupResource(), obj.GetName())
		}
		return true, obj, nil
	})
	return h
}

func (h *fakeHost) setFail(fail func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fail = fail
}

func (h *fakeHost) creates(t *testing.T) []clienttesting.CreateActionImpl {
	t.Helper()
	var out []clienttesting.CreateActionImpl
	for _, a := range h.Actions() {
		ca, ok := a.(clienttesting.CreateActionImpl)
		if !ok {
			t.Fatalf("the validator sent a %s %s, not a create", a.GetVerb(), a.GetResource())
		}
		out = append(out, ca)
	}
	return out
}

func u(apiVersion, kind, namespace, name string, rest map[string]interface{}) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]interface{}{}}
	for k, v := range rest {
		obj.Object[k] = v
	}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	obj.SetName(name)
	if namespace != "" {
		obj.SetNamespace(namespace)
	}
	return obj
}

// storedTemplate is a Deployment template as fed's storage holds it, with what only the storage owns.
func storedTemplate() *unstructured.Unstructured {
	d := u("apps/v1", "Deployment", "fleet-a", "nginx", map[string]interface{}{
		"spec": map[string]interface{}{"replicas": int64(2)},
	})
	d.SetLabels(map[string]string{"app": "nginx"})
	d.SetAnnotations(map[string]string{"note": "kept"})
	d.SetResourceVersion("42")
	d.SetUID("0b5f8d4e-4c1e-4a8e-9a43-3b2f0f1c9d11")
	d.SetCreationTimestamp(metav1.Now())
	d.SetDeletionTimestamp(ptr.To(metav1.Now()))
	d.SetDeletionGracePeriodSeconds(ptr.To[int64](30))
	d.SetGeneration(3)
	d.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}})
	d.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1"}})
	d.SetFinalizers([]string{"fed.io/cleanup"})
	d.SetSelfLink("/apis/apps/v1/namespaces/fleet-a/deployments/nginx")
	return d
}

// TestNothingIsCreated proves that every request the validator sends is a dry run, whatever
// the host answers, and that nothing lands in the host.
func TestNothingIsCreated(t *testing.T) {
	existingNS := u("v1", "Namespace", "", "default", nil)
	existingCRD := u("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "foos.example.com", nil)
	host := newFakeHost(existingNS, existingCRD)
	v := &Validator{Client: host, Namespace: "fed-system"}
	ctx := context.Background()

	calls := []struct {
		gvr        schema.GroupVersionResource
		namespaced bool
		obj        *unstructured.Unstructured
	}{
		{deploymentsGVR, true, storedTemplate()},
		{namespacesGVR, false, u("v1", "Namespace", "", "default", nil)},
		{crdsGVR, false, u("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "foos.example.com", nil)},
		{clusterRolesGVR, false, u("rbac.authorization.k8s.io/v1", "ClusterRole", "", "admin", nil)},
		{servicesGVR, true, u("v1", "Service", "fleet-b", "web", nil)},
	}
	for _, fv := range []string{"", "Strict", "Warn", "Ignore"} {
		for _, c := range calls {
			if _, _, err := v.Validate(ctx, c.gvr, c.namespaced, c.obj, fv); err != nil {
				t.Fatalf("Validate %s %s: %v", c.gvr.Resource, c.obj.GetName(), err)
			}
		}
		// Also when the host refuses.
		host.setFail(func(schema.GroupVersionResource, *unstructured.Unstructured) error {
			return apierrors.NewInternalError(errors.New("boom"))
		})
		for _, c := range calls {
			if _, _, err := v.Validate(ctx, c.gvr, c.namespaced, c.obj, fv); err == nil {
				t.Fatalf("Validate %s %s: no error from a failing host", c.gvr.Resource, c.obj.GetName())
			}
		}
		host.setFail(nil)

		creates := host.creates(t)
		if len(creates) == 0 {
			t.Fatal("no request reached the host")
		}
		for _, ca := range creates {
			opts := ca.GetCreateOptions()
			if !reflect.DeepEqual(opts.DryRun, []string{metav1.DryRunAll}) {
				t.Errorf("create of %s %q without dryRun=All: %+v", ca.GetResource().Resource, ca.GetObject().(*unstructured.Unstructured).GetName(), opts)
			}
			if opts.FieldValidation != fv {
				t.Errorf("create with fieldValidation %q, want %q", opts.FieldValidation, fv)
			}
		}
		host.ClearActions()
	}

	for gvr, want := range map[schema.GroupVersionResource]int{deploymentsGVR: 0, namespacesGVR: 1, crdsGVR: 1, clusterRolesGVR: 0, servicesGVR: 0} {
		list, err := host.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != want {
			t.Errorf("the host holds %d %s, want %d (what it held before)", len(list.Items), gvr.Resource, want)
		}
	}
}

func TestWhatIsSent(t *testing.T) {
	host := newFakeHost()
	v := &Validator{Client: host, Namespace: "fed-system"}
	tmpl := storedTemplate()
	orig := tmpl.DeepCopy()
	if _, _, err := v.Validate(context.Background(), deploymentsGVR, true, tmpl, "Strict"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tmpl, orig) {
		t.Error("Validate changed the template it was given")
	}
	creates := host.creates(t)
	if len(creates) != 1 {
		t.Fatalf("%d creates, want 1", len(creates))
	}
	if ns := creates[0].GetNamespace(); ns != "fleet-a" {
		t.Errorf("create in namespace %q, want the template's own, fleet-a", ns)
	}
	sent := creates[0].GetObject().(*unstructured.Unstructured)
	meta := sent.Object["metadata"].(map[string]interface{})
	for _, f := range metadataOwnedByStorage {
		if _, ok := meta[f]; ok {
			t.Errorf("metadata.%s was sent", f)
		}
	}
	if sent.GetNamespace() != "fleet-a" || sent.GetName() != "nginx" ||
		sent.GetLabels()["app"] != "nginx" || sent.GetAnnotations()["note"] != "kept" {
		t.Errorf("metadata sent: %v", meta)
	}
	if r, _, _ := unstructured.NestedInt64(sent.Object, "spec", "replicas"); r != 2 {
		t.Errorf("spec sent: %v", sent.Object["spec"])
	}

	// Cluster-scoped: no namespace at all.
	host.ClearActions()
	cr := u("rbac.authorization.k8s.io/v1", "ClusterRole", "fleet-a", "reader", nil)
	if _, _, err := v.Validate(context.Background(), clusterRolesGVR, false, cr, ""); err != nil {
		t.Fatal(err)
	}
	creates = host.creates(t)
	if ns := creates[0].GetNamespace(); ns != "" {
		t.Errorf("cluster-scoped create in namespace %q", ns)
	}
	if ns := creates[0].GetObject().(*unstructured.Unstructured).GetNamespace(); ns != "" {
		t.Errorf("cluster-scoped object sent with namespace %q", ns)
	}
}

func TestAlreadyExistsRetriesUnderAGeneratedName(t *testing.T) {
	host := newFakeHost(u("v1", "Namespace", "", "default", nil))
	v := &Validator{Client: host, Namespace: "fed-system"}
	ns := u("v1", "Namespace", "", "default", nil)
	ns.SetLabels(map[string]string{"team": "a"})
	w, _, err := v.Validate(context.Background(), namespacesGVR, false, ns, "")
	if err != nil || len(w) != 0 {
		t.Fatalf("Validate: %v, warnings %q", err, w)
	}
	creates := host.creates(t)
	if len(creates) != 2 {
		t.Fatalf("%d creates, want 2", len(creates))
	}
	retry := creates[1].GetObject().(*unstructured.Unstructured)
	if retry.GetName() != "" || retry.GetGenerateName() != "default-" || retry.GetLabels()["team"] != "a" {
		t.Errorf("retried with name %q, generateName %q, labels %v", retry.GetName(), retry.GetGenerateName(), retry.GetLabels())
	}

	// The host's error about the retried object names the template, not the generated name.
	host.setFail(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
		if obj.GetName() == "default" {
			return nil // on to AlreadyExists
		}
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Namespace"}, obj.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "labels"), "bad value", fmt.Sprintf("label of %s is bad", obj.GetName())),
		})
	})
	_, _, err = v.Validate(context.Background(), namespacesGVR, false, ns, "")
	var se *apierrors.StatusError
	if !errors.As(err, &se) || !apierrors.IsInvalid(err) {
		t.Fatalf("error %v, want Invalid", err)
	}
	want := `Namespace "default" is invalid: metadata.labels: Invalid value: "bad value": label of default is bad`
	if se.Error() != want {
		t.Errorf("error %q, want %q", se.Error(), want)
	}
	if se.ErrStatus.Details.Name != "default" || strings.Contains(se.ErrStatus.Details.Causes[0].Message, "x7k2p") {
		t.Errorf("details %+v", se.ErrStatus.Details)
	}
}

func TestStructuralNameExists(t *testing.T) {
	host := newFakeHost(u("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "foos.example.com", nil))
	v := &Validator{Client: host, Namespace: "fed-system"}
	w, _, err := v.Validate(context.Background(), crdsGVR, false, u("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "foos.example.com", nil), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0], couldNotValidate) || !strings.Contains(w[0], "exists") {
		t.Errorf("warnings %q", w)
	}
	if n := len(host.creates(t)); n != 1 {
		t.Errorf("%d creates, want 1 (no retry)", n)
	}
}

func TestHostAnswers(t *testing.T) {
	gr := deploymentsGVR.GroupResource()
	cases := []struct {
		name      string
		hostErr   error
		namespace string // of the template
		warning   string // prefix of the only warning, if any
		check     func(t *testing.T, err error)
	}{
		{
			name:    "forbidden",
			hostErr: apierrors.NewForbidden(gr, "nginx", errors.New(`User "alice" cannot create resource "deployments" in API group "apps" in the namespace "fleet-a"`)),
			check: func(t *testing.T, err error) {
				if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "alice" cannot create`) {
					t.Errorf("error %v, want the host's Forbidden", err)
				}
			},
		},
		{
			name: "escalation",
			hostErr: apierrors.NewForbidden(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}, "nginx",
				errors.New(`user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held`)),
			check: func(t *testing.T, err error) {
				if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "attempting to grant RBAC permissions not currently held") {
					t.Errorf("error %v, want the host's escalation refusal", err)
				}
			},
		},
		{
			name:    "the host's quota",
			hostErr: apierrors.NewForbidden(gr, "nginx", errors.New(`exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1`)),
			// The host's own objects fill it: not the template's concern (the fleet counts its own).
		},
		{
			name:    "resource not served",
			hostErr: apierrors.NewGenericServerResponse(http.StatusNotFound, "POST", gr, "", "", 0, true),
			warning: couldNotValidate + "the host does not serve deployments.apps/v1",
		},
		{
			name:    "method not supported",
			hostErr: apierrors.NewMethodNotSupported(gr, "create"),
			warning: couldNotValidate + `create is not supported on resources of kind "deployments.apps"`,
		},
		{
			name:    "host namespace missing",
			hostErr: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "fed-system"),
			check: func(t *testing.T, err error) {
				if !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), `host namespace "fed-system"`) {
					t.Errorf("error %v, want ServiceUnavailable naming the host namespace", err)
				}
			},
		},
		{
			name:    "internal error",
			hostErr: apierrors.NewInternalError(errors.New("etcd is down")),
			check: func(t *testing.T, err error) {
				if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "fed could not validate the template with the host cluster") || !strings.Contains(err.Error(), "etcd is down") {
					t.Errorf("error %v, want an InternalError", err)
				}
			},
		},
		{
			name:    "timeout",
			hostErr: apierrors.NewServerTimeout(gr, "create", 1),
			check: func(t *testing.T, err error) {
				if !apierrors.IsServiceUnavailable(err) {
					t.Errorf("error %v, want ServiceUnavailable", err)
				}
			},
		},
		{
			name:    "host unreachable",
			hostErr: errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"),
			check: func(t *testing.T, err error) {
				if !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), "connection refused") {
					t.Errorf("error %v, want ServiceUnavailable", err)
				}
			},
		},
		{
			name: "invalid naming the host namespace",
			hostErr: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "nginx", field.ErrorList{
				field.Invalid(field.NewPath("spec", "x"), "y", `not allowed in namespace "fed-system"`),
			}),
			namespace: "fleet-b", // not in the host (newFakeHost): checked in fed-system
			check: func(t *testing.T, err error) {
				want := `Deployment.apps "nginx" is invalid: spec.x: Invalid value: "y": not allowed in namespace "fleet-b"`
				if !apierrors.IsInvalid(err) || err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				if c := err.(*apierrors.StatusError).ErrStatus.Details.Causes[0].Message; strings.Contains(c, "fed-system") {
					t.Errorf("cause %q names the host namespace", c)
				}
			},
		},
		{
			name:    "bad request",
			hostErr: apierrors.NewBadRequest(`Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"`),
			check: func(t *testing.T, err error) {
				if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.foo"`) {
					t.Errorf("error %v, want the host's BadRequest", err)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := newFakeHost()
			host.setFail(func(_ schema.GroupVersionResource, obj *unstructured.Unstructured) error {
				if obj.GetNamespace() == "fleet-b" {
					return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "fleet-b")
				}
				return c.hostErr
			})
			v := &Validator{Client: host, Namespace: "fed-system"}
			ns := c.namespace
			if ns == "" {
				ns = "fleet-a"
			}
			w, _, err := v.Validate(context.Background(), deploymentsGVR, true, u("apps/v1", "Deployment", ns, "nginx", nil), "")
			if c.warning == "" && c.check == nil {
				if err != nil || len(w) != 0 {
					t.Fatalf("Validate: %q, %v; want neither warning nor error", w, err)
				}
				return
			}
			if c.warning != "" {
				if err != nil {
					t.Fatalf("error %v, want a warning", err)
				}
				if len(w) != 1 || !strings.HasPrefix(w[0], c.warning) {
					t.Fatalf("warnings %q, want one starting %q", w, c.warning)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a StatusError", err, err)
			}
			c.check(t, err)
		})
	}
}

func TestWarningHandlerSeparatesCalls(t *testing.T) {
	var a, b warningCollector
	ctxA := context.WithValue(context.Background(), collectorKey{}, &a)
	ctxB := context.WithValue(context.Background(), collectorKey{}, &b)
	var other []string
	h := WarningHandler{Fallback: fallbackFunc(func(msg string) { other = append(other, msg) })}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); h.HandleWarningHeaderWithContext(ctxA, 299, "-", fmt.Sprintf("a%d", i)) }()
		go func() { defer wg.Done(); h.HandleWarningHeaderWithContext(ctxB, 299, "-", fmt.Sprintf("b%d", i)) }()
	}
	wg.Wait()
	h.HandleWarningHeaderWithContext(ctxA, 199, "-", "not an API warning")
	h.HandleWarningHeaderWithContext(context.Background(), 299, "-", "someone else's")
	if len(a.list()) != 50 || len(b.list()) != 50 {
		t.Fatalf("a got %d, b got %d warnings, want 50 each", len(a.list()), len(b.list()))
	}
	for _, m := range a.list() {
		if !strings.HasPrefix(m, "a") {
			t.Errorf("a got %q", m)
		}
	}
	if !reflect.DeepEqual(other, []string{"someone else's"}) {
		t.Errorf("fallback got %q", other)
	}
}

type fallbackFunc func(string)

func (f fallbackFunc) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, msg string) {
	f(msg)
}

func TestGenerateNamePrefix(t *testing.T) {
	for name, want := range map[string]string{
		"default":                   "default-",
		"system:aggregate-to-admin": "system:aggregate-to-admin-",
		"a.":                        "a-",
		"--":                        "fed-",
		strings.Repeat("x", 100):    strings.Repeat("x", 40) + "-",
	} {
		if got := generateNamePrefix(name); got != want {
			t.Errorf("generateNamePrefix(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestHostNamespaces: with the host's namespaces known, a template of a namespace the host
// lacks (or is deleting) is sent to fed's namespace at once, one of a namespace it has to
// that namespace.
func TestHostNamespaces(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	deleting := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "going", DeletionTimestamp: &metav1.Time{}}}
	for _, ns := range []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, deleting} {
		if err := indexer.Add(ns); err != nil {
			t.Fatal(err)
		}
	}
	for namespace, want := range map[string]string{"team-a": "team-a", "fleet-only": "fed-system", "going": "fed-system"} {
		host := newFakeHost()
		v := &Validator{Client: host, Namespace: "fed-system", HostNamespaces: corelisters.NewNamespaceLister(indexer), HostSynced: func() bool { return true }}
		if _, _, err := v.Validate(context.Background(), deploymentsGVR, true, u("apps/v1", "Deployment", namespace, "nginx", nil), ""); err != nil {
			t.Fatal(err)
		}
		creates := host.creates(t)
		if len(creates) != 1 || creates[0].GetNamespace() != want {
			t.Errorf("a template of %s: %d creates, the first in %q; want one in %s", namespace, len(creates), creates[0].GetNamespace(), want)
		}
	}
}
