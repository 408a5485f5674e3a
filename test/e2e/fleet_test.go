package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var fleetDeploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// fleetAdmin is the fleet kubeconfig the lab writes with `kubectl fed kubeconfig`.
func fleetAdmin(t *testing.T) string {
	t.Helper()
	kc := theLab.FleetKubeconfig()
	if _, err := os.Stat(kc); err != nil {
		t.Fatalf("the lab's fleet kubeconfig: %v", err)
	}
	return kc
}

// fleetDynamic is a dynamic client on the fleet.
func fleetDynamic(t *testing.T) dynamic.Interface {
	t.Helper()
	cfg, err := clientConfigFor(fleetAdmin(t))
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// expectFailure checks that a kubectl run failed with an error containing every want.
func expectFailure(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s succeeded, want an error containing %q", what, wants)
		return
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not contain %q", what, err, want)
		}
	}
}

// exitCode is the exit code of a failed kubectl run, 0 for success, -1 if it did not run.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// lines splits kubectl output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// tableSections splits `kubectl get a,b,c` output into its tables (separated by blank
// lines), each a list of rows of fields, the header first.
func tableSections(out string) [][][]string {
	var sections [][][]string
	var cur [][]string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				sections = append(sections, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, strings.Fields(l))
	}
	if cur != nil {
		sections = append(sections, cur)
	}
	return sections
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// examples are the YAML files the README applies to the fleet; the tests apply the same.
var examples = filepath.Join("..", "..", "artifacts", "examples")

func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func notFound(t *testing.T, kubeconfig string, args ...string) {
	t.Helper()
	_, err := runKubectl(kubeconfig, append([]string{"get"}, args...)...)
	if err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("kubectl get %s: %v, want NotFound", strings.Join(args, " "), err)
	}
}

// hostDeploymentsAndServices is every Deployment and Service of the host.
func hostDeploymentsAndServices(t *testing.T) string {
	t.Helper()
	return kubectl(t, theLab.Host.Kubeconfig, "get", "deploy,svc", "-A", "-o", "name")
}

// TestFleetNginxExample walks the example: a Deployment, a Service and a
// PropagationPolicy in one file, with the kubectl commands users run on it. They are
// templates: nothing appears in the host or in a member.
func TestFleetNginxExample(t *testing.T) {
	t.Parallel()
	fleet := fleetAdmin(t)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	hostBefore := hostDeploymentsAndServices(t)
	file := filepath.Join(examples, "nginx.yaml")
	kc := func(args ...string) string {
		t.Helper()
		return kubectl(t, fleet, append(args, "-n", ns)...)
	}
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "-f", file, "-n", ns, "--ignore-not-found") })

	out := kc("apply", "-f", file)
	for _, want := range []string{"deployment.apps/nginx created", "service/nginx created", "propagationpolicy.federation.fedhq.io/nginx-propagation created"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply output lacks %q:\n%s", want, out)
		}
	}

	// get deploy,svc,pp: three tables with kubectl's columns.
	out = kc("get", "deploy,svc,pp")
	sections := tableSections(out)
	want := []struct {
		header []string
		row    []string // leading fields of the single row
	}{
		// READY is the members' sum, which propagation may already have written.
		{[]string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, []string{"deployment.apps/nginx"}},
		{[]string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, []string{"service/nginx", "ClusterIP"}},
		{[]string{"NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"}, []string{"propagationpolicy.federation.fedhq.io/nginx-propagation"}},
	}
	if len(sections) != len(want) {
		t.Fatalf("kubectl get deploy,svc,pp printed %d tables, want %d:\n%s", len(sections), len(want), out)
	}
	for i, w := range want {
		s := sections[i]
		if !reflect.DeepEqual(s[0], w.header) {
			t.Errorf("table %d header = %v, want %v", i, s[0], w.header)
		}
		if len(s) != 2 {
			t.Errorf("table %d has %d rows, want 1:\n%s", i, len(s)-1, out)
			continue
		}
		if len(s[1]) < len(w.row) || !reflect.DeepEqual(s[1][:len(w.row)], w.row) {
			t.Errorf("table %d row = %v, want it to start with %v", i, s[1], w.row)
		}
	}
	if svc := sections[1]; len(svc) == 2 && !slices.Contains(svc[1], "80/TCP") {
		t.Errorf("service row %v lacks PORT(S) 80/TCP", svc[1])
	}

	if out := kc("describe", "deploy", "nginx"); !regexp.MustCompile(`(?m)^Replicas:\s+2 desired \|`).MatchString(out) {
		t.Errorf("kubectl describe deploy nginx does not show 2 desired replicas:\n%s", out)
	}

	// diff: a changed file shows the change and exits 1; the applied file exits 0.
	changed := writeFile(t, "nginx-changed.yaml", strings.Replace(readExample(t, "nginx.yaml"), "- image: nginx\n", "- image: nginx:1.27\n", 1))
	out, err := runKubectl(fleet, "diff", "-f", changed, "-n", ns)
	if exitCode(err) != 1 {
		t.Errorf("kubectl diff of a changed file: exit %d (%v), want 1", exitCode(err), err)
	}
	if !strings.Contains(out, "-      - image: nginx\n") || !strings.Contains(out, "+      - image: nginx:1.27\n") {
		t.Errorf("kubectl diff does not show the image change:\n%s", out)
	}
	if out, err := runKubectl(fleet, "diff", "-f", file, "-n", ns); err != nil || out != "" {
		t.Errorf("kubectl diff of the applied file: %v, output %q; want exit 0 and no output", err, out)
	}

	// scale
	gen := kc("get", "deploy", "nginx", "-o", "jsonpath={.metadata.generation}")
	if out := kc("scale", "deploy", "nginx", "--replicas=4"); !strings.Contains(out, "deployment.apps/nginx scaled") {
		t.Errorf("kubectl scale output: %q", out)
	}
	got := strings.Fields(kc("get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"))
	if len(got) != 2 {
		t.Fatalf("replicas and generation: %v", got)
	}
	before, _ := strconv.Atoi(gen)
	after, _ := strconv.Atoi(got[1])
	if got[0] != "4" {
		t.Errorf("spec.replicas after scale = %s, want 4", got[0])
	}
	if after <= before {
		t.Errorf("metadata.generation after scale = %d, was %d; want it to go up", after, before)
	}

	// edit
	kubectlEnv(t, fleet, []string{`KUBE_EDITOR=sed -i -e s/image:\ nginx$/image:\ nginx:1.27/`}, "edit", "deploy", "nginx", "-n", ns)
	if img := kc("get", "deploy", "nginx", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); img != "nginx:1.27" {
		t.Errorf("image after kubectl edit = %q, want nginx:1.27", img)
	}

	// server-side apply with --force-conflicts takes replicas from the scale's manager.
	deployDoc := strings.SplitN(readExample(t, "nginx.yaml"), "\n---\n", 2)[0]
	deployDoc = strings.Replace(deployDoc, "replicas: 2", "replicas: 3", 1)
	deployDoc = strings.Replace(deployDoc, "- image: nginx\n", "- image: nginx:1.27\n", 1)
	kubectlStdin(t, fleet, deployDoc, "apply", "--server-side", "--force-conflicts", "--field-manager", "e2e-fleet", "-n", ns, "-f", "-")
	d, err := fleetDynamic(t).Resource(fleetDeploymentsGVR).Namespace(ns).Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 3 {
		t.Errorf("spec.replicas after server-side apply = %d, want 3", r)
	}
	if !hasManager(d, "e2e-fleet", metav1.ManagedFieldsOperationApply) {
		t.Errorf("managedFields have no Apply entry of manager e2e-fleet: %v", d.GetManagedFields())
	}
	if out := kc("get", "deploy", "nginx", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}"); !strings.Contains(out, "e2e-fleet") {
		t.Errorf("kubectl shows managers %q, want e2e-fleet among them", out)
	}

	// label, and selectors
	kc("label", "deploy", "nginx", "tier=frontend")
	if out := kc("get", "deploy,svc,pp", "-l", "tier=frontend", "-o", "name"); strings.TrimSpace(out) != "deployment.apps/nginx" {
		t.Errorf("kubectl get -l tier=frontend = %q, want only deployment.apps/nginx", out)
	}
	if out := kc("get", "deploy,svc,pp", "--field-selector", "metadata.name=nginx", "-o", "name"); !reflect.DeepEqual(lines(out), []string{"deployment.apps/nginx", "service/nginx"}) {
		t.Errorf("kubectl get --field-selector metadata.name=nginx = %q, want the deployment and the service", out)
	}

	// Templates: nothing in the host (what reaches the members is propagation's, in
	// propagation_test.go).
	notFound(t, theLab.Host.Kubeconfig, "namespace", ns)

	out = kc("delete", "-f", file)
	for _, want := range []string{`deployment.apps "nginx" deleted`, `service "nginx" deleted`, `propagationpolicy.federation.fedhq.io "nginx-propagation" deleted`} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl delete -f output lacks %q:\n%s", want, out)
		}
	}
	if out := kc("get", "deploy,svc,pp", "-o", "name"); out != "" {
		t.Errorf("after kubectl delete -f the namespace still has:\n%s", out)
	}

	if hostAfter := hostDeploymentsAndServices(t); hostAfter != hostBefore {
		t.Errorf("the host's deployments and services changed:\nbefore:\n%s\nafter:\n%s", hostBefore, hostAfter)
	}
}

const guestbookCRD = "guestbooks.webapp.my.domain"

// TestFleetGuestbookCRD applies a CRD to the fleet and uses its kind: the CRD is a template
// too (the host does not get it), and the fleet serves its objects with the CRD's schema,
// printer columns, scale subresource and selectable fields.
func TestFleetGuestbookCRD(t *testing.T) {
	fleet := fleetAdmin(t)
	crdFile := filepath.Join(examples, "guestbooks-crd.yaml")
	deleteCRD := func() {
		_, _ = runKubectl(fleet, "delete", "crd", guestbookCRD, "--ignore-not-found", "--timeout=60s")
		waitFor(t, 60*time.Second, func() error {
			_, err := runKubectl(fleet, "get", "crd", guestbookCRD)
			if err == nil || !strings.Contains(err.Error(), "NotFound") {
				return fmt.Errorf("the CRD is still there: %v", err)
			}
			return nil
		})
	}
	// A run interrupted before its cleanup may have left the CRD.
	deleteCRD()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "guestbooks", "--all", "-n", ns, "--ignore-not-found")
		deleteCRD()
	})

	establish := func() {
		t.Helper()
		if out := kubectl(t, fleet, "apply", "-f", crdFile); !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/"+guestbookCRD+" created") {
			t.Errorf("kubectl apply of the CRD: %q", out)
		}
		waitFor(t, 30*time.Second, func() error {
			out, err := runKubectl(fleet, "api-resources", "--api-group=webapp.my.domain", "-o", "name")
			if err != nil {
				return err
			}
			if strings.TrimSpace(out) != guestbookCRD {
				return fmt.Errorf("api-resources --api-group=webapp.my.domain lists %q", out)
			}
			return nil
		})
	}
	establish()

	var conds []metav1.Condition
	out := kubectl(t, fleet, "get", "crd", guestbookCRD, "-o", "jsonpath={.status.conditions}")
	if err := json.Unmarshal([]byte(out), &conds); err != nil {
		t.Fatalf("CRD conditions %q: %v", out, err)
	}
	established := false
	for _, c := range conds {
		if c.Type == "Established" && c.Status == metav1.ConditionTrue {
			established = true
		}
	}
	if !established {
		t.Errorf("the CRD is not Established=True: %s", out)
	}
	notFound(t, theLab.Host.Kubeconfig, "crd", guestbookCRD)

	kc := func(args ...string) string {
		t.Helper()
		return kubectl(t, fleet, append(args, "-n", ns)...)
	}
	if out := kc("apply", "-f", filepath.Join(examples, "guestbook.yaml")); !strings.Contains(out, "guestbook.webapp.my.domain/guestbook-sample created") {
		t.Errorf("kubectl apply of the guestbook: %q", out)
	}
	table := tableSections(kc("get", "guestbooks"))
	if len(table) != 1 || len(table[0]) != 2 {
		t.Fatalf("kubectl get guestbooks: %v, want a header and one row", table)
	}
	if h := table[0][0]; !reflect.DeepEqual(h, []string{"NAME", "SIZE", "ALIAS", "AGE"}) {
		t.Errorf("kubectl get guestbooks columns = %v, want NAME SIZE ALIAS AGE", h)
	}
	if r := table[0][1]; len(r) != 4 || r[0] != "guestbook-sample" || r[1] != "2" || r[2] != "Name" {
		t.Errorf("kubectl get guestbooks row = %v, want guestbook-sample 2 Name AGE", r)
	}
	if out := kc("get", "gb", "-o", "name"); strings.TrimSpace(out) != "guestbook.webapp.my.domain/guestbook-sample" {
		t.Errorf("kubectl get gb (short name) = %q", out)
	}

	if out := kc("scale", "guestbook", "guestbook-sample", "--replicas=3"); !strings.Contains(out, "scaled") {
		t.Errorf("kubectl scale guestbook: %q", out)
	}
	if size := kc("get", "guestbook", "guestbook-sample", "-o", "jsonpath={.spec.size}"); size != "3" {
		t.Errorf("spec.size after scale = %q, want 3", size)
	}

	// The CRD's schema applies.
	bad := func(name, spec string) error {
		doc := "apiVersion: webapp.my.domain/v1\nkind: Guestbook\nmetadata:\n  name: " + name + "\nspec:\n" + spec
		_, err := runKubectlWith(fleet, doc, nil, "create", "-n", ns, "-f", "-")
		return err
	}
	expectFailure(t, "create of a guestbook with spec.size -1", bad("negative", "  size: -1\n"),
		"spec.size in body should be greater than or equal to 0")
	notFound(t, fleet, "guestbook", "negative", "-n", ns)
	expectFailure(t, "create of a guestbook with an unknown field", bad("bogus", "  size: 1\n  bogus: x\n"),
		`unknown field "spec.bogus"`)
	notFound(t, fleet, "guestbook", "bogus", "-n", ns)

	// Selectable fields.
	if out := kc("get", "guestbooks", "--field-selector", "spec.alias=Name", "-o", "name"); strings.TrimSpace(out) != "guestbook.webapp.my.domain/guestbook-sample" {
		t.Errorf("--field-selector spec.alias=Name = %q, want the guestbook", out)
	}
	if out := kc("get", "guestbooks", "--field-selector", "spec.alias=Phone", "-o", "name"); out != "" {
		t.Errorf("--field-selector spec.alias=Phone = %q, want nothing", out)
	}

	// Deleting the CRD deletes its objects: once re-created, it has none.
	kubectl(t, fleet, "delete", "crd", guestbookCRD, "--timeout=60s")
	deleteCRD()
	establish()
	waitFor(t, 15*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "guestbooks", "-A", "-o", "name")
		if err != nil {
			return err
		}
		if out != "" {
			return fmt.Errorf("guestbooks after the CRD was deleted and re-created: %q", out)
		}
		return nil
	})
}

// TestFleetAPIResources checks the fleet serves every kind the host serves, and fed's own.
func TestFleetAPIResources(t *testing.T) {
	t.Parallel()
	fleet := fleetAdmin(t)
	served := map[string]bool{}
	for _, name := range lines(kubectl(t, fleet, "api-resources", "-o", "name")) {
		served[name] = true
	}
	hostNames := lines(kubectl(t, theLab.Host.Kubeconfig, "api-resources", "--verbs=create,get,list", "-o", "name"))
	if len(hostNames) < 30 {
		t.Fatalf("the host lists only %d resources: %v", len(hostNames), hostNames)
	}
	for _, name := range hostNames {
		if strings.HasSuffix(name, ".metrics.k8s.io") {
			continue
		}
		if !served[name] {
			t.Errorf("the fleet does not serve %s, which the host serves", name)
		}
	}
	for _, name := range []string{"deployments.apps", "configmaps", "namespaces", "customresourcedefinitions.apiextensions.k8s.io",
		"propagationpolicies.federation.fedhq.io", "clusters.cluster.fedhq.io"} {
		if !served[name] {
			t.Errorf("kubectl api-resources through the fleet lacks %s", name)
		}
	}

	out := kubectl(t, fleet, "explain", "deployment.spec.replicas")
	for _, want := range []string{"KIND:       Deployment", "FIELD: replicas <integer>", "DESCRIPTION:", "Number of desired pods"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl explain deployment.spec.replicas lacks %q:\n%s", want, out)
		}
	}
}

// TestFleetInvalidTemplates checks native templates are validated with the host's rules and
// unknown kinds are refused.
func TestFleetInvalidTemplates(t *testing.T) {
	t.Parallel()
	fleet := fleetAdmin(t)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	deployment := func(name, selector, template string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
spec:
  replicas: 1
  selector:
    matchLabels:
      app: ` + selector + `
  template:
    metadata:
      labels:
        app: ` + template + `
    spec:
      containers:
      - name: web
        image: nginx
`
	}

	_, err := runKubectlWith(fleet, deployment("mismatch", "web", "db"), nil, "create", "-n", ns, "-f", "-")
	expectFailure(t, "create of a Deployment whose selector does not match its labels", err,
		`spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `+"`selector` does not match template `labels`")
	notFound(t, fleet, "deployment", "mismatch", "-n", ns)

	svc := `apiVersion: v1
kind: Service
metadata:
  name: bad-port
spec:
  selector:
    app: web
  ports:
  - port: 70000
`
	_, err = runKubectlWith(fleet, svc, nil, "create", "-n", ns, "-f", "-")
	expectFailure(t, "create of a Service with port 70000", err, "spec.ports[0].port: Invalid value: 70000")
	notFound(t, fleet, "service", "bad-port", "-n", ns)

	// A valid template changed to an invalid one is refused and stays as it was.
	kubectlStdin(t, fleet, deployment("valid", "web", "web"), "apply", "-n", ns, "-f", "-")
	dyn := fleetDynamic(t)
	deployments := dyn.Resource(fleetDeploymentsGVR).Namespace(ns)
	stored, err := deployments.Get(context.Background(), "valid", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runKubectlWith(fleet, deployment("valid", "web", "db"), nil, "apply", "-n", ns, "-f", "-")
	expectFailure(t, "apply of an invalid change", err, "spec.template.metadata.labels: Invalid value", "`selector` does not match template `labels`")
	now, err := deployments.Get(context.Background(), "valid", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.GetResourceVersion() != stored.GetResourceVersion() {
		t.Errorf("a refused apply changed the resourceVersion: %s -> %s", stored.GetResourceVersion(), now.GetResourceVersion())
	}
	if !reflect.DeepEqual(now.Object["spec"], stored.Object["spec"]) {
		t.Errorf("a refused apply changed the spec:\nbefore %v\nafter  %v", stored.Object["spec"], now.Object["spec"])
	}

	// Unknown kinds.
	foos := schema.GroupVersionResource{Group: "nope.io", Version: "v1", Resource: "foos"}
	_, err = dyn.Resource(foos).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("list of foos.nope.io/v1: %v, want 404", err)
	} else if !strings.Contains(err.Error(), `the fleet serves no resource "foos"`) {
		t.Errorf("list of foos.nope.io/v1: %q does not say the fleet serves no resource \"foos\"", err)
	}
	_, err = runKubectl(fleet, "get", "foos", "-n", ns)
	expectFailure(t, "kubectl get foos", err, `the server doesn't have a resource type "foos"`)
}

// TestFleetNamespaces checks the fleet's namespaces are its own (not the host's) and behave
// as a cluster's.
func TestFleetNamespaces(t *testing.T) {
	t.Parallel()
	fleet := fleetAdmin(t)
	host := theLab.Host.Kubeconfig
	ns := fmt.Sprintf("e2e-ns-%d", time.Now().UnixNano()%1_000_000_000)
	kubectl(t, host, "create", "namespace", ns)
	t.Cleanup(func() {
		_, _ = runKubectl(host, "delete", "namespace", ns, "--wait=false")
		_, _ = runKubectl(fleet, "delete", "namespace", ns, "--wait=false", "--ignore-not-found")
	})

	// The host has the namespace; the fleet does not.
	_, err := runKubectl(fleet, "create", "configmap", "cm", "--from-literal=a=b", "-n", ns)
	expectFailure(t, "create of a ConfigMap in a namespace the fleet does not have", err, fmt.Sprintf("namespaces %q not found", ns))

	kubectl(t, fleet, "create", "namespace", ns)
	if phase := kubectl(t, fleet, "get", "namespace", ns, "-o", "jsonpath={.status.phase}"); phase != "Active" {
		t.Errorf("new namespace phase = %q, want Active", phase)
	}
	kubectl(t, fleet, "create", "configmap", "cm", "--from-literal=a=b", "-n", ns)
	kubectl(t, fleet, "create", "deployment", "web", "--image=nginx", "-n", ns)
	manifest, err := yaml.Marshal(policy(t, "pp", "    clusterAffinity:\n      clusterNames: [member1]\n").Object)
	if err != nil {
		t.Fatal(err)
	}
	kubectlStdin(t, fleet, string(manifest), "create", "-n", ns, "-f", "-")
	if out := kubectl(t, fleet, "get", "cm/cm", "deploy/web", "pp/pp", "-n", ns, "-o", "name"); !reflect.DeepEqual(lines(out), []string{
		"configmap/cm", "deployment.apps/web", "propagationpolicy.federation.fedhq.io/pp"}) {
		t.Errorf("the namespace holds %q", out)
	}
	if data := kubectl(t, fleet, "get", "cm", "cm", "-n", ns, "-o", "jsonpath={.data.a}"); data != "b" {
		t.Errorf("configmap data a = %q, want b", data)
	}
	// Nothing of it in the host's namespace of the same name.
	notFound(t, host, "configmap", "cm", "-n", ns)
	notFound(t, host, "deployment", "web", "-n", ns)

	// Deleting the namespace deletes what is in it, then the namespace.
	kubectl(t, fleet, "delete", "namespace", ns, "--timeout=60s")
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectl(fleet, "get", "namespace", ns)
		if err == nil || !strings.Contains(err.Error(), "NotFound") {
			return fmt.Errorf("namespace still there: %v", err)
		}
		return nil
	})
	notFound(t, fleet, "configmap", "cm", "-n", ns)
	notFound(t, fleet, "deployment", "web", "-n", ns)
	notFound(t, fleet, "propagationpolicy", "pp", "-n", ns)
	if out := kubectl(t, fleet, "get", "cm,deploy,pp", "-n", ns, "-o", "name"); out != "" {
		t.Errorf("after the namespace was deleted it still lists:\n%s", out)
	}
	// The host's namespace is untouched.
	if phase := kubectl(t, host, "get", "namespace", ns, "-o", "jsonpath={.status.phase}"); phase != "Active" {
		t.Errorf("the host's namespace %s is %q after the fleet's was deleted, want Active", ns, phase)
	}

	_, err = runKubectl(fleet, "delete", "namespace", "default")
	expectFailure(t, "delete namespace default", err, "Forbidden")
	if phase := kubectl(t, fleet, "get", "namespace", "default", "-o", "jsonpath={.status.phase}"); phase != "Active" {
		t.Errorf("the fleet's namespace default is %q, want Active", phase)
	}

	// generateName
	gns := testNamespace(t, theLab.Host.Kubeconfig)
	out := kubectlStdin(t, fleet, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\ndata:\n  a: b\n", "create", "-n", gns, "-f", "-", "-o", "name")
	name := strings.TrimPrefix(strings.TrimSpace(out), "configmap/")
	if !strings.HasPrefix(name, "gen-") || len(name) <= len("gen-") || !strings.HasPrefix(strings.TrimSpace(out), "configmap/") {
		t.Errorf("create of a ConfigMap with generateName gen- made %q", out)
	} else if data := kubectl(t, fleet, "get", "cm", name, "-n", gns, "-o", "jsonpath={.data.a}"); data != "b" {
		t.Errorf("generated configmap %s data a = %q, want b", name, data)
	}
}

// TestFleetWatchAndStatus uses the fleet with client-go: watch, the status and scale
// subresources.
func TestFleetWatchAndStatus(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	ctx := context.Background()
	deployments := fleetDynamic(t).Resource(fleetDeploymentsGVR).Namespace(ns)
	newDeployment := func(name string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{}
		doc := strings.SplitN(readExample(t, "nginx.yaml"), "\n---\n", 2)[0]
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		obj.SetName(name)
		return obj
	}

	t.Run("watch", func(t *testing.T) {
		list, err := deployments.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 || list.GetResourceVersion() == "" {
			t.Fatalf("list of a new namespace: %d items, resourceVersion %q", len(list.Items), list.GetResourceVersion())
		}
		w, err := deployments.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()

		created, err := deployments.Create(ctx, newDeployment("nginx"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(created.Object, int64(5), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		updated, err := deployments.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := deployments.Delete(ctx, "nginx", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for i, want := range []struct {
			typ      watch.EventType
			rv       string
			replicas int64
		}{{watch.Added, created.GetResourceVersion(), 2}, {watch.Modified, updated.GetResourceVersion(), 5}, {watch.Deleted, "", 5}} {
			ev := nextEvent(t, w)
			obj, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("event %d: %s %v, want %s", i, ev.Type, ev.Object, want.typ)
			}
			r, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
			if ev.Type != want.typ || obj.GetName() != "nginx" || (want.rv != "" && obj.GetResourceVersion() != want.rv) || r != want.replicas {
				t.Errorf("event %d: %s nginx=%s@%s replicas %d, want %s nginx@%s replicas %d",
					i, ev.Type, obj.GetName(), obj.GetResourceVersion(), r, want.typ, want.rv, want.replicas)
			}
		}
	})

	// Status: UpdateStatus changes status and not spec; Update changes spec and not status;
	// the scale subresource shows spec.replicas.
	t.Run("status and scale", func(t *testing.T) {
		d, err := deployments.Create(ctx, newDeployment("status"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = deployments.Delete(context.Background(), "status", metav1.DeleteOptions{}) })
		status := map[string]interface{}{"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": int64(1)}
		if err := unstructured.SetNestedMap(d.Object, status, "status"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(d.Object, int64(9), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		d, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, wantReplicas int64, wantStatus map[string]interface{}) {
			t.Helper()
			got, err := deployments.Get(ctx, "status", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != wantReplicas {
				t.Errorf("after %s spec.replicas = %d, want %d", what, r, wantReplicas)
			}
			if s, _, _ := unstructured.NestedMap(got.Object, "status"); !reflect.DeepEqual(s, wantStatus) {
				t.Errorf("after %s status = %v, want %v", what, s, wantStatus)
			}
		}
		check("UpdateStatus", 2, status)

		d.SetLabels(map[string]string{"updated": "yes"})
		if err := unstructured.SetNestedField(d.Object, int64(3), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(d.Object, int64(7), "status", "replicas"); err != nil {
			t.Fatal(err)
		}
		d, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.GetLabels()["updated"] != "yes" {
			t.Errorf("update did not change labels: %v", d.GetLabels())
		}
		check("Update", 3, status)

		// The scale subresource.
		scale, err := deployments.Get(ctx, "status", metav1.GetOptions{}, "scale")
		if err != nil {
			t.Fatal(err)
		}
		if scale.GetKind() != "Scale" || scale.GetAPIVersion() != "autoscaling/v1" {
			t.Errorf("scale subresource is %s %s, want autoscaling/v1 Scale", scale.GetAPIVersion(), scale.GetKind())
		}
		if r, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas"); r != 3 {
			t.Errorf("scale spec.replicas = %d, want 3", r)
		}
	})
}

// TestFleetAuthorization checks the host's gate (fleets/proxy) and then the host's RBAC for
// the inner request.
func TestFleetAuthorization(t *testing.T) {
	t.Parallel()
	host := theLab.Host.Kubeconfig
	ns := testNamespace(t, host)
	suffix := ns[len("e2e-"):]
	bobHost, err := theLab.Host.UserKubeconfig("bob")
	if err != nil {
		t.Fatal(err)
	}
	bob := fleetKubeconfig(t, bobHost)

	_, err = runKubectl(bob, "get", "configmaps", "-n", ns)
	if err == nil || !strings.Contains(err.Error(), "Forbidden") ||
		!(strings.Contains(err.Error(), "fleets/proxy") || strings.Contains(err.Error(), "cannot")) {
		t.Fatalf("bob without rights: %v, want Forbidden by the host's gate", err)
	}

	crb := "e2e-bob-fleet-" + suffix
	kubectl(t, host, "create", "clusterrolebinding", crb, "--clusterrole=fed:fleet-edit", "--user=bob")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "clusterrolebinding", crb, "--ignore-not-found") })
	kubectl(t, host, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, host, "create", "role", "configmaps-only", "-n", ns, "--verb=create,get,list", "--resource=configmaps")
	kubectl(t, host, "create", "rolebinding", "bob-configmaps", "-n", ns, "--role=configmaps-only", "--user=bob")
	t.Cleanup(func() {
		_, _ = runKubectl(host, "delete", "rolebinding", "bob-configmaps", "-n", ns, "--ignore-not-found")
		_, _ = runKubectl(host, "delete", "role", "configmaps-only", "-n", ns, "--ignore-not-found")
	})

	waitFor(t, 15*time.Second, func() error {
		_, err := runKubectl(bob, "create", "configmap", "bobs", "--from-literal=a=b", "-n", ns)
		return err
	})
	if data := kubectl(t, bob, "get", "configmap", "bobs", "-n", ns, "-o", "jsonpath={.data.a}"); data != "b" {
		t.Errorf("bob's configmap data a = %q, want b", data)
	}
	_, err = runKubectl(bob, "create", "deployment", "bobs", "--image=nginx", "-n", ns)
	expectFailure(t, "bob creating a Deployment", err, "forbidden", `cannot create resource "deployments"`)
	notFound(t, theLab.FleetKubeconfig(), "deployment", "bobs", "-n", ns)

	// Templates only: the host's namespace has neither.
	notFound(t, host, "configmap", "bobs", "-n", ns)
	if out := kubectl(t, host, "get", "deployments", "-n", ns, "-o", "name"); out != "" {
		t.Errorf("the host's namespace %s has deployments:\n%s", ns, out)
	}

	// A raw check of the status code of the refusal.
	cfg, err := clientConfigFor(bob)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dyn.Resource(fleetDeploymentsGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != http.StatusForbidden {
		t.Errorf("bob listing deployments: %v, want 403", err)
	}
}
