package hostvalidation

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedhq/fed/test/lab"
)

// labAdmin is the lab's host administrator, the caller of most tests here.
var labAdmin = &user.DefaultInfo{Name: "lab-admin", Groups: []string{"system:masters", "system:authenticated"}}

// as is ctx carrying the user whose request fed-apiserver validates.
func as(ctx context.Context, u user.Info) context.Context { return request.WithUser(ctx, u) }

var (
	labOnce  sync.Once
	labValue *lab.Lab
	labStop  func() error
	labErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if labStop != nil {
		if err := labStop(); err != nil {
			fmt.Fprintln(os.Stderr, "hostvalidation: stopping the lab:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// hostLab is the lab of the repository (`make up`), or one of the package's own.
func hostLab(t *testing.T) *lab.Lab {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the lab's host cluster")
	}
	labOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		labValue, labStop, labErr = lab.Shared(ctx)
	})
	if labErr != nil {
		t.Fatalf("the lab did not start: %v", labErr)
	}
	return labValue
}

// hostValidator is a Validator with the host's client as fed-apiserver's service account (with
// the credentials the lab's fed-apiserver runs with, so that its RBAC in the host is what is
// tried), and the host admin's own dynamic client.
func hostValidator(t *testing.T) (*Validator, dynamic.Interface) {
	v, admin, _ := recordedHostValidator(t)
	return v, admin
}

// sentRequests records the requests a Validator sends to the host.
type sentRequests struct {
	mu   sync.Mutex
	reqs []string // method, path and query
}

func (s *sentRequests) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

type recordingTransport struct {
	rt   http.RoundTripper
	sent *sentRequests
}

func (r recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.sent.mu.Lock()
	r.sent.reqs = append(r.sent.reqs, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
	r.sent.mu.Unlock()
	return r.rt.RoundTrip(req)
}

func recordedHostValidator(t *testing.T) (*Validator, dynamic.Interface, *sentRequests) {
	t.Helper()
	l := hostLab(t)
	admin, err := l.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(l.Dir(), "fed", "host.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	sent := &sentRequests{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{rt: rt, sent: sent} })
	client, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	adminClient, err := dynamic.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	return &Validator{Client: client, Namespace: lab.FedNamespace}, adminClient, sent
}

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, rand.New(rand.NewSource(time.Now().UnixNano())).Intn(1_000_000_000))
}

func deployment(namespace, name string, selector, podLabels map[string]interface{}) *unstructured.Unstructured {
	return u("apps/v1", "Deployment", namespace, name, map[string]interface{}{
		"spec": map[string]interface{}{
			"replicas": int64(1),
			"selector": map[string]interface{}{"matchLabels": selector},
			"template": map[string]interface{}{
				"metadata": map[string]interface{}{"labels": podLabels},
				"spec": map[string]interface{}{
					"containers": []interface{}{map[string]interface{}{"name": "nginx", "image": "nginx:1.27"}},
				},
			},
		},
	})
}

func mustStatus(t *testing.T, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v, want the host's StatusError", err, err)
	}
	return se
}

func TestHost(t *testing.T) {
	v, admin, sent := recordedHostValidator(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx = as(ctx, labAdmin)

	// Fleet namespaces need not exist in the host.
	fleetNS := unique("fleet-nowhere")
	if _, err := admin.Resource(namespacesGVR).Get(ctx, fleetNS, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s in the host: %v", fleetNS, err)
	}
	app := map[string]interface{}{"app": "nginx"}
	deployName := unique("nginx")
	clusterRoleName := unique("fed-validation-test")
	serviceName := unique("web")

	t.Run("valid Deployment", func(t *testing.T) {
		d := deployment(fleetNS, deployName, app, app)
		d.SetResourceVersion("17") // fed's storage's, which a create would refuse
		d.SetUID("0b5f8d4e-4c1e-4a8e-9a43-3b2f0f1c9d11")
		w, _, err := v.Validate(ctx, deploymentsGVR, true, d, "Strict")
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		t.Logf("warnings: %q", w)
	})

	t.Run("selector does not match template labels", func(t *testing.T) {
		d := deployment(fleetNS, deployName, app, map[string]interface{}{"app": "other"})
		_, _, err := v.Validate(ctx, deploymentsGVR, true, d, "")
		se := mustStatus(t, err)
		if !apierrors.IsInvalid(err) || se.ErrStatus.Code != 422 {
			t.Fatalf("error %v (code %d), want 422 Invalid", err, se.ErrStatus.Code)
		}
		msg := err.Error()
		wantPrefix := fmt.Sprintf(`Deployment.apps %q is invalid: spec.template.metadata.labels: Invalid value: `, deployName)
		if !strings.HasPrefix(msg, wantPrefix) || !strings.Contains(msg, "`selector` does not match template `labels`") {
			t.Errorf("error %q, want the host's %q...", msg, wantPrefix)
		}
		if se.ErrStatus.Details.Name != deployName {
			t.Errorf("details name %q, want %q", se.ErrStatus.Details.Name, deployName)
		}
		if strings.Contains(msg, lab.FedNamespace) {
			t.Errorf("error %q names the host namespace", msg)
		}
	})

	t.Run("unknown field", func(t *testing.T) {
		d := deployment(fleetNS, deployName, app, app)
		if err := unstructured.SetNestedField(d.Object, "x", "spec", "bogus"); err != nil {
			t.Fatal(err)
		}
		_, _, err := v.Validate(ctx, deploymentsGVR, true, d, metav1.FieldValidationStrict)
		mustStatus(t, err)
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.bogus"`) {
			t.Fatalf("error %v, want the host's strict decoding error", err)
		}
		w, _, err := v.Validate(ctx, deploymentsGVR, true, d, metav1.FieldValidationWarn)
		if err != nil {
			t.Fatalf("Validate with Warn: %v", err)
		}
		if len(w) != 1 || w[0] != `unknown field "spec.bogus"` {
			t.Errorf("warnings with Warn: %q, want the host's unknown field warning", w)
		}
		if w, _, err := v.Validate(ctx, deploymentsGVR, true, d, metav1.FieldValidationIgnore); err != nil || len(w) != 0 {
			t.Errorf("Validate with Ignore: %q, %v", w, err)
		}
	})

	t.Run("Namespace default", func(t *testing.T) {
		ns := u("v1", "Namespace", "", "default", nil)
		ns.SetLabels(map[string]string{"team": "a"})
		before := len(sent.list())
		if w, _, err := v.Validate(ctx, namespacesGVR, false, ns, "Strict"); err != nil || len(w) != 0 {
			t.Fatalf("Validate: %q, %v", w, err)
		}
		if n := len(sent.list()) - before; n != 2 {
			t.Errorf("%d requests, want 2 (AlreadyExists, then the generateName retry)", n)
		}
		ns.SetLabels(map[string]string{"team": "not a valid label value"})
		_, _, err := v.Validate(ctx, namespacesGVR, false, ns, "Strict")
		se := mustStatus(t, err)
		if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), `Namespace "default" is invalid: metadata.labels: Invalid value: "not a valid label value"`) || se.ErrStatus.Details.Name != "default" {
			t.Errorf("error %v, want the host's Invalid naming default", err)
		}
	})

	t.Run("ClusterRole", func(t *testing.T) {
		rules := map[string]interface{}{"rules": []interface{}{
			map[string]interface{}{"apiGroups": []interface{}{"*"}, "resources": []interface{}{"*"}, "verbs": []interface{}{"*"}},
			map[string]interface{}{"nonResourceURLs": []interface{}{"/metrics"}, "verbs": []interface{}{"get"}},
		}}
		for _, name := range []string{clusterRoleName, "admin"} {
			cr := u("rbac.authorization.k8s.io/v1", "ClusterRole", "", name, rules)
			if w, _, err := v.Validate(ctx, clusterRolesGVR, false, cr, "Strict"); err != nil || len(w) != 0 {
				t.Errorf("Validate ClusterRole %s: %q, %v", name, w, err)
			}
		}
		crb := u("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", clusterRoleName, map[string]interface{}{
			"roleRef":  map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": []interface{}{map[string]interface{}{"kind": "User", "name": "someone"}},
		})
		if w, _, err := v.Validate(ctx, clusterRolesGVR.GroupVersion().WithResource("clusterrolebindings"), false, crb, "Strict"); err != nil || len(w) != 0 {
			t.Errorf("Validate ClusterRoleBinding: %q, %v", w, err)
		}
	})

	t.Run("Service with an invalid port", func(t *testing.T) {
		svc := u("v1", "Service", fleetNS, serviceName, map[string]interface{}{
			"spec": map[string]interface{}{
				"selector": app,
				"ports":    []interface{}{map[string]interface{}{"name": "http", "port": int64(70000)}},
			},
		})
		_, _, err := v.Validate(ctx, servicesGVR, true, svc, "Strict")
		mustStatus(t, err)
		// The host defaults targetPort to port, so it names both.
		want := fmt.Sprintf(`Service %q is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, `, serviceName)
		if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want %q...", err, want)
		}
	})

	t.Run("ConfigMap in a fleet namespace", func(t *testing.T) {
		cm := u("v1", "ConfigMap", fleetNS, "settings", map[string]interface{}{"data": map[string]interface{}{"a": "b"}})
		if w, _, err := v.Validate(ctx, configMapsGVR, true, cm, "Strict"); err != nil || len(w) != 0 {
			t.Errorf("Validate: %q, %v", w, err)
		}
	})

	t.Run("concurrent calls get their own warnings", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := deployment(fleetNS, deployName, app, app)
				f := fmt.Sprintf("bogus%d", i)
				_ = unstructured.SetNestedField(d.Object, "x", "spec", f)
				w, _, err := v.Validate(ctx, deploymentsGVR, true, d, metav1.FieldValidationWarn)
				if err != nil {
					errs <- err
					return
				}
				if want := fmt.Sprintf(`unknown field "spec.%s"`, f); len(w) != 1 || w[0] != want {
					errs <- fmt.Errorf("call %d got warnings %q, want [%q]", i, w, want)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	// Every request was a dry-run create.
	reqs := sent.list()
	if len(reqs) < 10 {
		t.Errorf("only %d requests sent", len(reqs))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, "POST ") || !strings.Contains(r, "dryRun=All") {
			t.Errorf("request %s is not a dry-run create", r)
		}
	}

	// Nothing of all that exists in the host.
	for _, c := range []struct {
		gvr       schema.GroupVersionResource
		namespace string
		name      string
	}{
		{deploymentsGVR, lab.FedNamespace, deployName},
		{servicesGVR, lab.FedNamespace, serviceName},
		{configMapsGVR, lab.FedNamespace, "settings"},
		{clusterRolesGVR, "", clusterRoleName},
		{clusterRolesGVR.GroupVersion().WithResource("clusterrolebindings"), "", clusterRoleName},
		{namespacesGVR, "", fleetNS},
	} {
		var err error
		if c.namespace != "" {
			_, err = admin.Resource(c.gvr).Namespace(c.namespace).Get(ctx, c.name, metav1.GetOptions{})
		} else {
			_, err = admin.Resource(c.gvr).Get(ctx, c.name, metav1.GetOptions{})
		}
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s %s/%s in the host after validation: %v", c.gvr.Resource, c.namespace, c.name, err)
		}
	}
	nss, err := admin.Resource(namespacesGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		if strings.HasPrefix(ns.GetName(), "default-") {
			t.Errorf("namespace %s in the host after validation", ns.GetName())
		}
	}
}

// TestHostStructuralName: a CustomResourceDefinition template named like one in the host is
// not validated, with a warning.
func TestHostStructuralName(t *testing.T) {
	v, admin := hostValidator(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx = as(ctx, labAdmin)
	// An APIService of the host's own, always there.
	existing, err := admin.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}).Get(ctx, "v1.apps", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := u("apiregistration.k8s.io/v1", "APIService", "", "v1.apps", map[string]interface{}{"spec": existing.Object["spec"]})
	w, _, err := v.Validate(ctx, schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}, false, tmpl, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0], couldNotValidate) {
		t.Errorf("warnings %q, want that it could not be validated", w)
	}
}

// TestHostForbidden: a caller the host does not let create the kind is refused with the
// host's Forbidden, which names the template's namespace rather than fed's.
func TestHostForbidden(t *testing.T) {
	v, _ := hostValidator(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nobody := &user.DefaultInfo{Name: "nobody-" + unique("u"), Groups: []string{"system:authenticated"}}
	app := map[string]interface{}{"app": "nginx"}
	fleetNS := unique("fleet-nowhere")
	_, _, err := v.Validate(as(ctx, nobody), deploymentsGVR, true, deployment(fleetNS, "nginx", app, app), "")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), nobody.Name) || !strings.Contains(err.Error(), fmt.Sprintf("namespace %q", fleetNS)) {
		t.Fatalf("Validate: %v, want the host's Forbidden for %s in namespace %s", err, nobody.Name, fleetNS)
	}
	if strings.Contains(err.Error(), lab.FedNamespace) {
		t.Errorf("error %q names fed's namespace", err)
	}
	if _, _, err := v.Validate(ctx, deploymentsGVR, true, deployment(fleetNS, "nginx", app, app), ""); err == nil || !strings.Contains(err.Error(), "no user") {
		t.Errorf("Validate without a user: %v, want a refusal to validate as fed itself", err)
	}
}

// TestHostAsAuthor: a template is judged as its author creating it in the host namespace of
// its name: a namespace admin may bind the roles it holds there and not cluster-admin, nor
// write a Role granting everything; the host namespace's Pod Security level applies; the
// host's quota of that namespace, which counts the host's own objects, does not.
func TestHostAsAuthor(t *testing.T) {
	v, admin, sent := recordedHostValidator(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := unique("tenant")
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(admin.Resource(namespacesGVR).Create(ctx, u("v1", "Namespace", "", ns, nil), metav1.CreateOptions{}))
	t.Cleanup(func() { _ = admin.Resource(namespacesGVR).Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	roleBindings := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}
	roles := roleBindings.GroupVersion().WithResource("roles")
	binding := func(name, role string) *unstructured.Unstructured {
		return u("rbac.authorization.k8s.io/v1", "RoleBinding", ns, name, map[string]interface{}{
			"roleRef":  map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
			"subjects": []interface{}{map[string]interface{}{"kind": "User", "name": "tenant-admin"}},
		})
	}
	must(admin.Resource(roleBindings).Namespace(ns).Create(ctx, binding("admin", "admin"), metav1.CreateOptions{}))
	tenant := as(ctx, &user.DefaultInfo{Name: "tenant-admin", Groups: []string{"system:authenticated"}})
	// RBAC takes a moment to see the new binding.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, err := v.Validate(tenant, roleBindings, true, binding("viewers", "view"), "")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a namespace admin binding view: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	before := len(sent.list())
	if _, _, err := v.Validate(tenant, roleBindings, true, binding("viewers", "view"), ""); err != nil {
		t.Fatal(err)
	}
	for _, r := range sent.list()[before:] {
		if !strings.Contains(r, "/namespaces/"+ns+"/") {
			t.Errorf("request %s, want it in the template's own namespace %s", r, ns)
		}
	}

	_, _, err := v.Validate(tenant, roleBindings, true, binding("escalate", "cluster-admin"), "")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "attempting to grant RBAC permissions not currently held") {
		t.Errorf("a namespace admin binding cluster-admin: %v, want the host's escalation refusal", err)
	}
	all := u("rbac.authorization.k8s.io/v1", "Role", ns, "everything", map[string]interface{}{"rules": []interface{}{
		map[string]interface{}{"apiGroups": []interface{}{"*"}, "resources": []interface{}{"*"}, "verbs": []interface{}{"*"}},
	}})
	if _, _, err := v.Validate(tenant, roles, true, all, ""); !apierrors.IsForbidden(err) {
		t.Errorf("a namespace admin writing a Role on everything: %v, want Forbidden", err)
	}
	// The lab's admin may do both.
	if _, _, err := v.Validate(as(ctx, labAdmin), roleBindings, true, binding("escalate", "cluster-admin"), ""); err != nil {
		t.Errorf("the host's admin binding cluster-admin: %v", err)
	}

	// Pod Security of the host's namespace.
	nsObj, err := admin.Resource(namespacesGVR).Get(ctx, ns, metav1.GetOptions{})
	must(nsObj, err)
	nsObj.SetLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	must(admin.Resource(namespacesGVR).Update(ctx, nsObj, metav1.UpdateOptions{}))
	pod := u("v1", "Pod", ns, "privileged", map[string]interface{}{"spec": map[string]interface{}{
		"containers": []interface{}{map[string]interface{}{"name": "c", "image": "nginx",
			"securityContext": map[string]interface{}{"privileged": true}}},
	}})
	// PodSecurity reads the namespace's labels from the host's informer, which may not have
	// the label just set: ask again until it does, for at most 10 s.
	refused := func() error {
		_, _, err := v.Validate(tenant, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true, pod, "")
		return err
	}
	err = refused()
	for deadline := time.Now().Add(10 * time.Second); err == nil && time.Now().Before(deadline); err = refused() {
		time.Sleep(100 * time.Millisecond)
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("a privileged Pod in a restricted namespace: %v, want the host's PodSecurity refusal", err)
	}

	// The host's quota is full of its own ConfigMaps (kube-root-ca.crt).
	quota := u("v1", "ResourceQuota", ns, "q", map[string]interface{}{"spec": map[string]interface{}{
		"hard": map[string]interface{}{"count/configmaps": "1"}}})
	must(admin.Resource(schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}).Namespace(ns).Create(ctx, quota, metav1.CreateOptions{}))
	cm := u("v1", "ConfigMap", ns, "settings", map[string]interface{}{"data": map[string]interface{}{"a": "b"}})
	deadline = time.Now().Add(10 * time.Second)
	for {
		// Once the quota's status counts the host's ConfigMap, the host refuses a new one...
		_, err := admin.Resource(configMapsGVR).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsForbidden(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the host's quota did not fill: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// ... which the template's validation does not take as the template's.
	if w, _, err := v.Validate(tenant, configMapsGVR, true, cm, ""); err != nil || len(w) != 0 {
		t.Errorf("a ConfigMap under the host's full quota: %q, %v; want it valid", w, err)
	}
}
