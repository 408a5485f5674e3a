package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTemplateDefaults: the fleet stores and serves a template as the host's defaulting
// makes it (replicas 1, a RollingUpdate strategy, restartPolicy Always; a Secret's
// stringData folded into data; unknown fields of an update dropped, with kube's warning
// and "patched (no change)"), and an update that leaves a default out changes nothing;
// the members get only what the template's writers set (fed's manager owns no default in
// member1), and what a writer sets later reaches them.
func TestTemplateDefaults(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	member := theLab.Member("member1").Kubeconfig
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	file := filepath.Join(t.TempDir(), "web.yaml")
	deployment := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %s}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27", ports: [{containerPort: 80}]}]
`, ns)
	if err := os.WriteFile(file, []byte(deployment), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, fleet, "apply", "-f", file)
	get := func(kubeconfig, path string) string {
		return kubectl(t, kubeconfig, "get", "deploy", "web", "-n", ns, "-o", "jsonpath="+path)
	}
	if got := get(fleet, "{.spec.replicas} {.spec.strategy.type} {.spec.template.spec.restartPolicy} {.spec.template.spec.containers[0].imagePullPolicy} {.metadata.generation}"); got != "1 RollingUpdate Always IfNotPresent 1" {
		t.Errorf("the template reads back %q, want the host's defaults: 1 RollingUpdate Always IfNotPresent, generation 1", got)
	}
	if out, err := runKubectl(fleet, "diff", "-f", file); err != nil {
		t.Errorf("kubectl diff of the applied file: %v\n%s", err, out)
	}
	if out := kubectl(t, fleet, "apply", "-f", file); !strings.Contains(out, "unchanged") {
		t.Errorf("applying the same file again: %q, want unchanged", out)
	}

	// An update that leaves the defaults out (kubectl replace of the file) changes nothing
	// but what it changes.
	kubectl(t, fleet, "replace", "-f", file)
	if got := get(fleet, "{.metadata.generation} {.spec.strategy.type} {.spec.template.spec.restartPolicy}"); got != "1 RollingUpdate Always" {
		t.Errorf("after kubectl replace without the defaults: %q, want generation 1 and the defaults", got)
	}

	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: %s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}, {apiVersion: v1, kind: Secret}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, ns), "apply", "-f", "-")
	// fedOwns is what fed's manager owns of member1's Deployment.
	fedOwns := func() (string, error) {
		out, err := runKubectl(member, "get", "deploy", "web", "-n", ns, "-o", "json", "--show-managed-fields")
		if err != nil {
			return "", err
		}
		var d struct {
			Metadata struct {
				ManagedFields []struct {
					Manager  string          `json:"manager"`
					FieldsV1 json.RawMessage `json:"fieldsV1"`
				} `json:"managedFields"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			return "", err
		}
		for _, e := range d.Metadata.ManagedFields {
			if e.Manager == "fed" {
				return string(e.FieldsV1), nil
			}
		}
		return "", fmt.Errorf("fed owns nothing of member1's Deployment yet")
	}
	var owned string
	waitFor(t, 60*time.Second, func() (err error) {
		owned, err = fedOwns()
		return err
	})
	for _, f := range []string{`"f:image"`, `"f:containerPort"`} {
		if !strings.Contains(owned, f) {
			t.Errorf("fed does not own %s of member1's Deployment: %s", f, owned)
		}
	}
	for _, f := range []string{`"f:replicas"`, `"f:strategy"`, `"f:restartPolicy"`, `"f:imagePullPolicy"`, `"f:terminationMessagePath"`, `"f:progressDeadlineSeconds"`} {
		if strings.Contains(owned, f) {
			t.Errorf("fed owns the default %s in member1: %s", f, owned)
		}
	}

	// What a writer sets reaches the member: replicas by the scale subresource, a
	// default changed by a patch. (A patch that writes a default's own value changes
	// nothing, in the fleet as in a cluster: no manager owns it then.)
	kubectl(t, fleet, "scale", "deploy", "web", "-n", ns, "--replicas=2")
	kubectl(t, fleet, "patch", "deploy", "web", "-n", ns, "-p", `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"50%"}}}}`)
	waitFor(t, 60*time.Second, func() error {
		owned, err := fedOwns()
		if err != nil {
			return err
		}
		if r := get(member, "{.spec.replicas}"); r != "2" || !strings.Contains(owned, `"f:maxSurge"`) {
			return fmt.Errorf("member1's replicas %s, fed owns %s; want 2 replicas and maxSurge", r, owned)
		}
		return nil
	})

	// Unknown fields of an update are dropped, as a cluster drops them.
	out, stderr, err := kubectlOutErr(fleet, "patch", "deploy", "web", "-n", ns, "--type=json",
		"-p", `[{"op":"add","path":"/spec/template/spec/containers/0/bogus","value":"x"}]`)
	if err != nil || !strings.Contains(out, "patched (no change)") || !strings.Contains(stderr, `unknown field "spec.template.spec.containers[0].bogus"`) {
		t.Errorf("a patch adding an unknown field: %v\n%s%s\nwant it dropped with kube's warning", err, out, stderr)
	}
	if got := get(fleet, "{.spec.template.spec.containers[0]}"); strings.Contains(got, "bogus") {
		t.Errorf("the template keeps the unknown field: %s", got)
	}

	// A Secret's stringData is folded into data, the fleet's and member1's.
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: %s}
data: {b: b2xk}
stringData: {pw: hunter2, b: new}
`, ns), "create", "-f", "-")
	secret := func(kubeconfig string) string {
		return kubectl(t, kubeconfig, "get", "secret", "creds", "-n", ns, "-o", "jsonpath={.data} {.stringData} {.type}")
	}
	const folded = `{"b":"bmV3","pw":"aHVudGVyMg=="}  Opaque`
	if got := secret(fleet); got != folded {
		t.Errorf("the fleet's Secret: %q, want %q", got, folded)
	}
	waitFor(t, 60*time.Second, func() error {
		if got, err := runKubectl(member, "get", "secret", "creds", "-n", ns, "-o", "jsonpath={.data} {.stringData} {.type}"); err != nil || got != folded {
			return fmt.Errorf("member1's Secret: %q (%v), want %q", got, err, folded)
		}
		return nil
	})

	// A port applied server-side without its protocol is the stored one, defaulted to TCP,
	// not a second one (list keys take their defaults, as in a cluster).
	service := fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: web, namespace: %s}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: %%d}]
`, ns)
	kubectlStdin(t, fleet, fmt.Sprintf(service, 8080), "apply", "--server-side", "-f", "-")
	kubectlStdin(t, fleet, fmt.Sprintf(service, 8081), "apply", "--server-side", "-f", "-")
	if got := kubectl(t, fleet, "get", "svc", "web", "-n", ns, "-o", "jsonpath={.spec.ports}"); got != `[{"port":80,"protocol":"TCP","targetPort":8081}]` {
		t.Errorf("the Service's ports after two server-side applies: %s", got)
	}
}

// TestFleetHealthAndVersion: the fleet answers /healthz, /livez and /readyz as a cluster
// does, and /version with the host's version (kubectl version parses it).
func TestFleetHealthAndVersion(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if got := kubectl(t, theLab.FleetKubeconfig(), "get", "--raw", p); got != "ok" {
			t.Errorf("GET %s through the fleet: %q, want ok", p, got)
		}
	}
	serverVersion := func(kubeconfig string) string {
		var v struct {
			ServerVersion struct {
				GitVersion string `json:"gitVersion"`
			} `json:"serverVersion"`
		}
		if err := json.Unmarshal([]byte(kubectl(t, kubeconfig, "version", "-o", "json")), &v); err != nil {
			t.Fatal(err)
		}
		return v.ServerVersion.GitVersion
	}
	host := serverVersion(theLab.Host.Kubeconfig)
	if got := serverVersion(theLab.FleetKubeconfig()); got != host || host == "" {
		t.Errorf("kubectl version through the fleet: %q, want the host's %q", got, host)
	}
}

// TestFleetAuthCanI: kubectl auth can-i and auth whoami work through the fleet, and answer
// by the rules that govern it: a tenant may create Deployments in its namespace, not in
// another, and may not bind cluster roles; whoami names the tenant.
func TestFleetAuthCanI(t *testing.T) {
	t.Parallel()
	tn := newTenant(t, "canit")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "deployments", "-n", tn.ns}, "yes"},
		{[]string{"create", "propagationpolicies.federation.fedhq.io", "-n", tn.ns}, "yes"},
		{[]string{"create", "deployments", "-n", "default"}, "no"},
		{[]string{"create", "clusterrolebindings"}, "no"},
	} {
		out, err := runKubectl(tn.fleet, append([]string{"auth", "can-i"}, tc.args...)...)
		if got := strings.TrimSpace(out); got != tc.want {
			t.Errorf("kubectl auth can-i %s: %q (%v), want %s", strings.Join(tc.args, " "), got, err, tc.want)
		}
	}
	if out := kubectl(t, tn.fleet, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); out != tn.user {
		t.Errorf("kubectl auth whoami through the fleet: %q, want %s", out, tn.user)
	}
}

// TestFleetNamespaceNameLabel: a fleet Namespace carries kubernetes.io/metadata.name, as in
// a cluster, so that selecting namespaces by name works.
func TestFleetNamespaceNameLabel(t *testing.T) {
	t.Parallel()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	if got := kubectl(t, theLab.FleetKubeconfig(), "get", "ns", "-l", "kubernetes.io/metadata.name="+ns, "-o", "name"); strings.TrimSpace(got) != "namespace/"+ns {
		t.Errorf("namespaces labelled with the name %s: %q", ns, got)
	}
	kubectl(t, theLab.FleetKubeconfig(), "label", "ns", ns, "kubernetes.io/metadata.name=other", "--overwrite")
	if got := kubectl(t, theLab.FleetKubeconfig(), "get", "ns", ns, "-o", "jsonpath={.metadata.labels.kubernetes\\.io/metadata\\.name}"); got != ns {
		t.Errorf("after relabelling, the name label is %q, want %s", got, ns)
	}
}

// TestRolloutHistoryAndUndo: kubectl rollout history and undo work on a Deployment
// template as on a cluster's Deployment: the same commands on the fleet and on member1
// print the same history at each step, undo puts an earlier revision's pod template back
// (which the members then run), and the template's records go with it.
func TestRolloutHistoryAndUndo(t *testing.T) {
	t.Parallel()
	fleet, member := theLab.FleetKubeconfig(), memberKubeconfig("member1")
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, member, "create", "namespace", ns+"-oracle")
	t.Cleanup(func() { _, _ = runKubectl(member, "delete", "namespace", ns+"-oracle", "--wait=false") })
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`, "apply", "-n", ns, "-f", "-")
	both := func(args ...string) (string, string) {
		t.Helper()
		return kubectl(t, fleet, append(args, "-n", ns)...), kubectl(t, member, append(args, "-n", ns+"-oracle")...)
	}
	// A pod-template-hash is computed from the Go value of the template, whose fields are
	// those of the Kubernetes release that computes it: fed's and the member's may differ.
	hash := regexp.MustCompile(`pod-template-hash=\w+`)
	same := func(step string, args ...string) string {
		t.Helper()
		f, m := both(args...)
		f, m = hash.ReplaceAllString(f, "pod-template-hash=…"), hash.ReplaceAllString(m, "pod-template-hash=…")
		if f != m {
			t.Errorf("%s: the fleet prints\n%s\na cluster prints\n%s", step, f, m)
		}
		return f
	}
	history := func(step string) string {
		t.Helper()
		// The member's controller writes its ReplicaSets a moment after each change.
		var f, m string
		waitFor(t, 20*time.Second, func() error {
			f, m = both("rollout", "history", "deployment/web")
			if f != m {
				return fmt.Errorf("%s: the fleet prints\n%s\na cluster prints\n%s", step, f, m)
			}
			return nil
		})
		return f
	}
	both("create", "deployment", "web", "--image=nginx:1.25")
	both("annotate", "deployment", "web", "kubernetes.io/change-cause=first")
	history("after create")
	both("set", "image", "deployment/web", "nginx=nginx:1.26")
	both("annotate", "deployment", "web", "kubernetes.io/change-cause=second", "--overwrite")
	history("after a new image")
	both("set", "image", "deployment/web", "nginx=nginx:1.27")
	if got := history("after another"); !strings.Contains(got, "3         second") {
		t.Errorf("history after three images:\n%s", got)
	}
	same("undo", "rollout", "undo", "deployment/web")
	if got := history("after undo"); !strings.Contains(got, "4         second") || strings.Contains(got, "2 ") {
		t.Errorf("history after undo, want revision 2 back as 4:\n%s", got)
	}
	same("the image after undo", "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	expectOutput(t, time.Minute, memberKubeconfig("member2"), "nginx:1.26", "get", "deployment", "web", "-n", ns,
		"--ignore-not-found", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	same("undo to a revision", "rollout", "undo", "deployment/web", "--to-revision=1")
	history("after undo to revision 1")
	same("a revision's template", "rollout", "history", "deployment/web", "--revision=5")
	_, err := runKubectl(fleet, "rollout", "undo", "deployment/web", "--to-revision=9", "-n", ns)
	expectFailure(t, "undo to a revision there is not", err, "unable to find specified revision 9 in history")
	expectOutput(t, time.Minute, memberKubeconfig("member2"), "nginx:1.25", "get", "deployment", "web", "-n", ns,
		"--ignore-not-found", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	if got := kubectl(t, fleet, "get", "deployment", "web", "-n", ns, "-o", `jsonpath={.metadata.annotations.deployment\.kubernetes\.io/revision} {.metadata.annotations.federation\.fedhq\.io/view}`); got != "5 " {
		t.Errorf("the template's revision and view mark: %q, want 5 and none", got)
	}
	// The records go with the template.
	kubectl(t, fleet, "delete", "deployment", "web", "-n", ns)
	expectOutput(t, 10*time.Second, fleet, "", "get", "replicasets", "-n", ns, "-o", "name")
}
