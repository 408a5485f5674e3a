package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

var ppGVR = schema.GroupVersionResource{Group: "federation.fedhq.io", Version: "v1alpha1", Resource: "propagationpolicies"}

func policy(t *testing.T, name, placement string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	doc := `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: ` + name + `
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: nginx
  placement:
` + placement
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

func hostDynamic(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(hostTarget(t).config)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// TestInvalidObjectsAreRefused checks bad input gets a 422 naming the field and changes
// nothing already stored.
func TestInvalidObjectsAreRefused(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	pps := hostDynamic(t).Resource(ppGVR).Namespace(ns)
	ctx := context.Background()
	stored, err := pps.Create(ctx, policy(t, "stored", "    clusterAffinity:\n      clusterNames: [member1]\n"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, placement, field string
	}{
		{"unknown enum", "    replicaScheduling:\n      replicaSchedulingType: Sometimes\n", "spec.placement.replicaScheduling.replicaSchedulingType"},
		{"negative weight", `    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - targetCluster:
            clusterNames: [member1]
          weight: -1
`, "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight"},
		{"both affinity forms", `    clusterAffinity:
      clusterNames: [member1]
    clusterAffinities:
    - affinityName: primary
      clusterNames: [member2]
`, "spec.placement.clusterAffinit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pps.Create(ctx, policy(t, "bad", tc.placement), metav1.CreateOptions{})
			assertInvalid(t, err, tc.field)

			// The same change to a stored object is refused and the object stays as it was.
			bad := policy(t, "stored", tc.placement)
			bad.SetResourceVersion(stored.GetResourceVersion())
			_, err = pps.Update(ctx, bad, metav1.UpdateOptions{})
			assertInvalid(t, err, tc.field)
			now, err := pps.Get(ctx, "stored", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if now.GetResourceVersion() != stored.GetResourceVersion() {
				t.Errorf("a refused update changed the stored object: resourceVersion %s -> %s", stored.GetResourceVersion(), now.GetResourceVersion())
			}
		})
	}
	if _, err := pps.Get(ctx, "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("an invalid object was stored: %v", err)
	}
	// kubectl shows the field too.
	manifest, _ := yaml.Marshal(policy(t, "bad", cases[0].placement).Object)
	if _, err := runKubectlWith(theLab.Host.Kubeconfig, string(manifest), nil, "create", "-n", ns, "-f", "-"); err == nil || !strings.Contains(err.Error(), cases[0].field) {
		t.Errorf("kubectl create of an invalid policy: %v; want an error naming %s", err, cases[0].field)
	}
}

func assertInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
		t.Fatalf("got %v, want HTTP 422", err)
	}
	if !strings.Contains(err.Error(), field) {
		t.Errorf("error %q does not name %s", err, field)
	}
}

// TestRBACOfTheHostApplies checks fed asks the host whether a user may act.
func TestRBACOfTheHostApplies(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	// The user's Role lives in the host, in a namespace of the same name.
	kubectl(t, theLab.Host.Kubeconfig, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "namespace", ns, "--wait=false") })
	alice, err := theLab.Host.UserKubeconfig("alice")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runKubectl(alice, "get", "propagationpolicies", "-n", ns)
	if err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("alice without rights: %v, want Forbidden", err)
	}
	cfg, err := clientConfigFor(alice)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dyn.Resource(ppGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("list as alice: %v, want 403", err)
	}
	kubectl(t, theLab.Host.Kubeconfig, "create", "role", "pp-reader", "-n", ns, "--verb=get,list,watch", "--resource=propagationpolicies.federation.fedhq.io")
	kubectl(t, theLab.Host.Kubeconfig, "create", "rolebinding", "alice-pp-reader", "-n", ns, "--role=pp-reader", "--user=alice")
	waitFor(t, 10*time.Second, func() error {
		_, err := runKubectl(alice, "get", "propagationpolicies", "-n", ns)
		return err
	})
	if _, err := runKubectl(alice, "get", "clusters"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("alice may read clusters without a right to: %v", err)
	}
}

// TestExplain checks the OpenAPI published through the host documents fed's fields.
func TestExplain(t *testing.T) {
	t.Parallel()
	out := kubectl(t, theLab.Host.Kubeconfig, "explain", "propagationpolicy.spec.placement")
	for _, want := range []string{"clusterAffinity", "clusterAffinities", "clusterTolerations", "spreadConstraints", "replicaScheduling", "DESCRIPTION"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl explain propagationpolicy.spec.placement lacks %q:\n%s", want, out)
		}
	}
	out = kubectl(t, theLab.Host.Kubeconfig, "explain", "clusters.spec.syncMode")
	if !strings.Contains(out, "Push") {
		t.Errorf("kubectl explain clusters.spec.syncMode does not explain the modes:\n%s", out)
	}
	out = kubectl(t, theLab.Host.Kubeconfig, "explain", "rsp.spec.reschedulePolicy")
	// kubectl wraps the text.
	for _, want := range []string{"below the threshold less 10 points", "status.moves", "interval", "threshold"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("kubectl explain rsp.spec.reschedulePolicy lacks %q:\n%s", want, out)
		}
	}
	out = kubectl(t, theLab.Host.Kubeconfig, "explain", "frq.spec")
	for _, want := range []string{"overall", "staticAssignments", "does not place a workload, or a scale-up",
		"Object counts and limits are not enforced across the fleet", "Members not listed get none"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("kubectl explain frq.spec lacks %q:\n%s", want, out)
		}
	}
	for _, kind := range fedKinds {
		field := kind.resource + ".spec"
		if kind.topLevel != "" {
			field = kind.resource + "." + kind.topLevel
		}
		out := kubectl(t, theLab.Host.Kubeconfig, "explain", field)
		if !strings.Contains(out, "FIELDS") {
			t.Errorf("kubectl explain %s lists no fields:\n%s", field, out)
		}
	}
}

// TestFedHealthAndMetrics checks the server's own endpoints, asked directly.
func TestFedHealthAndMetrics(t *testing.T) {
	t.Parallel()
	cfg, err := theLab.FedRESTConfig(theLab.FedServer())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/livez":      "ok",
		"/readyz":     "ok",
		"/metrics":    "apiserver_request_total",
		"/openapi/v2": `"swagger"`,
		"/openapi/v3/apis/federation.fedhq.io/v1alpha1": "PropagationPolicy",
		"/openapi/v3/apis/search.fedhq.io/v1alpha1":     "ResourceRegistry",
	} {
		body, err := cs.Discovery().RESTClient().Get().AbsPath(path).DoRaw(context.Background())
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		if !strings.Contains(string(body), want) {
			t.Errorf("GET %s does not contain %q", path, want)
		}
	}
}

// TestRestartKeepsObjectsAndWatchHistory kills fed-apiserver (SIGKILL) and checks that the
// objects, their resourceVersions and the event history survive: a watch from a version
// before the kill replays exactly the changes made since.
func TestRestartKeepsObjectsAndWatchHistory(t *testing.T) {
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	ctx := context.Background()
	pps := hostDynamic(t).Resource(ppGVR).Namespace(ns)
	a, err := pps.Create(ctx, policy(t, "a", "    clusterAffinity:\n      clusterNames: [member1]\n"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := a.GetResourceVersion()
	a.SetLabels(map[string]string{"changed": "yes"})
	a, err = pps.Update(ctx, a, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := pps.Create(ctx, policy(t, "b", "    clusterAffinity:\n      clusterNames: [member2]\n"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pps.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ  watch.EventType
		name string
		rv   string
	}{{watch.Modified, "a", a.GetResourceVersion()}, {watch.Added, "b", b.GetResourceVersion()}, {watch.Deleted, "a", ""}}

	if err := theLab.KillProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	upCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := theLab.Up(upCtx); err != nil {
		t.Fatal(err)
	}

	got, err := pps.Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetResourceVersion() != b.GetResourceVersion() {
		t.Errorf("b's resourceVersion changed across the restart: %s -> %s", b.GetResourceVersion(), got.GetResourceVersion())
	}
	w, err := pps.Watch(ctx, metav1.ListOptions{ResourceVersion: from})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var last string
	for i, e := range want {
		ev := nextEvent(t, w)
		obj, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			t.Fatalf("event %d: %s %v, want %s of %s", i, ev.Type, ev.Object, e.typ, e.name)
		}
		if ev.Type != e.typ || obj.GetName() != e.name || (e.rv != "" && obj.GetResourceVersion() != e.rv) {
			t.Errorf("event %d: %s %s@%s, want %s %s@%s", i, ev.Type, obj.GetName(), obj.GetResourceVersion(), e.typ, e.name, e.rv)
		}
		last = obj.GetResourceVersion()
	}
	// Nothing more was missed, and new versions continue the sequence.
	c, err := pps.Create(ctx, policy(t, "c", "    clusterAffinity:\n      clusterNames: [member3]\n"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, w)
	if obj := ev.Object.(*unstructured.Unstructured); ev.Type != watch.Added || obj.GetName() != "c" {
		t.Errorf("next event %s %s, want ADDED c", ev.Type, obj.GetName())
	}
	if !rvAfter(c.GetResourceVersion(), last) {
		t.Errorf("resourceVersion after the restart %s is not after %s", c.GetResourceVersion(), last)
	}
}

func rvAfter(a, b string) bool {
	return len(a) > len(b) || (len(a) == len(b) && a > b)
}
