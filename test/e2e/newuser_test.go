package e2e

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// What trying fed as a new user found, each in the order that showed it, now holding.

// TestNewUserLuaPatternWithinLimit: a pattern within the subject limit that would backtrack
// for seconds is refused at once, in kubectl fed interpret and on the server alike.
func TestNewUserLuaPatternWithinLimit(t *testing.T) {
	bin := buildKubectlFed(t)
	dir := t.TempDir()
	ric := filepath.Join(dir, "ric.yaml")
	if err := os.WriteFile(ric, []byte(`apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: slow-pattern}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          local s = ("a"):rep(12000) .. "c"
          if s:match("(a*)*b") then return 2 end
          return 1
        end
`), 0o600); err != nil {
		t.Fatal(err)
	}
	desired := filepath.Join(dir, "deploy.yaml")
	if err := os.WriteFile(desired, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, stderr, err := runFed(bin, "interpret", "-f", ric, "--operation", "replicaResource", "--desired", desired)
	took := time.Since(start)
	if err == nil || !strings.Contains(stderr, "could backtrack") {
		t.Errorf("kubectl fed interpret: %v\n%s%s, want the pattern refused", err, out, stderr)
	}
	if took > 2*time.Second { // the command, its start included; the call itself is refused before it runs
		t.Errorf("kubectl fed interpret took %v", took)
	}
}

// TestNewUserScriptTopLevel: a script whose top level never ends is refused by the server as
// kubectl fed interpret --check refuses it, though it defines its function.
func TestNewUserScriptTopLevel(t *testing.T) {
	t.Parallel()
	ric := `apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: e2e-loops-at-top}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    replicaResource:
      luaScript: |
        while true do end
        function GetReplicas(obj) return 1 end
`
	bin := buildKubectlFed(t)
	f := filepath.Join(t.TempDir(), "ric.yaml")
	if err := os.WriteFile(f, []byte(ric), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runFed(bin, "interpret", "-f", f, "--check")
	if err == nil || !strings.Contains(stdout, "replicaResource: the script ran out of time") {
		t.Errorf("--check: %v\n%s%s, want it refused for running out of time", err, stdout, stderr)
	}
	out, err := runKubectlWith(theLab.FleetKubeconfig(), ric, nil, "apply", "-f", "-")
	expectRefused(t, "the server", out, err, "spec.customizations.replicaResource.luaScript", "ran out of time")
	if _, err := runKubectl(theLab.FleetKubeconfig(), "get", "ric", "e2e-loops-at-top"); err == nil {
		t.Error("the customization was stored")
	}
}

// TestNewUserRefusedRollout: a change every member refuses (a Deployment's selector, which is
// immutable) is a failed rollout on the template, not a completed one: kubectl rollout status
// says the deadline was exceeded.
func TestNewUserRefusedRollout(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	deploy := func(app string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: immut, namespace: %[1]s}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[2]s}}
  template:
    metadata: {labels: {app: %[2]s}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: immut, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: immut}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, ns, app)
	}
	kubectlStdin(t, fleet, deploy("immut"), "apply", "-f", "-")
	kubectl(t, fleet, "rollout", "status", "-n", ns, "deploy/immut", "--timeout=60s")
	kubectlStdin(t, fleet, deploy("immut-2"), "apply", "-f", "-")
	out, err := runKubectl(fleet, "rollout", "status", "-n", ns, "deploy/immut", "--timeout=60s")
	if err == nil || !strings.Contains(err.Error(), "exceeded its progress deadline") {
		t.Errorf("kubectl rollout status after a change member1 refuses: %v\n%s, want the deadline exceeded", err, out)
	}
	cond := kubectl(t, fleet, "get", "deploy", "immut", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Progressing")].reason} {.status.conditions[?(@.type=="Progressing")].message}`)
	if !strings.HasPrefix(cond, "ProgressDeadlineExceeded ") || !strings.Contains(cond, "cluster member1") || !strings.Contains(cond, "immutable") {
		t.Errorf("Progressing: %q, want ProgressDeadlineExceeded naming member1 and why", cond)
	}
	// Put back, the rollout is complete again.
	kubectlStdin(t, fleet, deploy("immut"), "apply", "-f", "-")
	kubectl(t, fleet, "rollout", "status", "-n", ns, "deploy/immut", "--timeout=60s")
}

// TestNewUserChartValues: the chart refuses a misspelt value, with Helm 4 and Helm 3.
func TestNewUserChartValues(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(root, "artifacts", "charts", "fed")
	for _, helm := range []string{filepath.Join(root, "bin", "helm"), filepath.Join(root, "bin", "helm3", "helm")} {
		for set, want := range map[string]string{
			"storage.badger.sise=5Gi": "additional properties 'sise' not allowed",
			"storag.mode=etcd3":       "additional properties 'storag' not allowed",
		} {
			out, err := exec.Command(helm, "template", "fed", chart, "--set", set).CombinedOutput()
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("%s template --set %s: %v\n%s, want %q", helm, set, err, out, want)
			}
		}
		if out, err := exec.Command(helm, "template", "fed", chart, "--set", "podAnnotations.team=a").CombinedOutput(); err != nil {
			t.Errorf("%s template with a pod annotation: %v\n%s", helm, err, out)
		}
	}
}

// TestNewUserEventsKept: after a busy template's many Synced events, a rescale's Scheduled
// and a policy's removal (PolicyRemoved) are still recorded on it.
func TestNewUserEventsKept(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: busy, namespace: %[1]s}
spec:
  replicas: 2
  selector: {matchLabels: {app: busy}}
  template:
    metadata: {labels: {app: busy}}
    spec: {containers: [{name: c, image: nginx, env: [{name: COUNT, value: "0"}]}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: busy, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: busy}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted,
      weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [member1]}, weight: 1}, {targetCluster: {clusterNames: [member2]}, weight: 1}]}}
`, ns), "apply", "-f", "-")
	events := func(reason string) string {
		return kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=busy,reason="+reason, "-o", "jsonpath={.items[*].message}")
	}
	synced := func() int {
		n := 0
		for _, c := range strings.Fields(kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=busy,reason=Synced", "-o", "jsonpath={.items[*].count}")) {
			var k int
			fmt.Sscan(c, &k)
			n += k
		}
		return n
	}
	for i := 1; synced() < 25; i++ { // the spam filter lets 25 through
		if i > 40 {
			t.Fatalf("only %d Synced events after %d changes", synced(), i)
		}
		kubectl(t, fleet, "set", "env", "-n", ns, "deploy/busy", fmt.Sprintf("COUNT=%d", i))
		time.Sleep(300 * time.Millisecond)
	}
	kubectl(t, fleet, "scale", "-n", ns, "deploy/busy", "--replicas=4")
	waitFor(t, 30*time.Second, func() error {
		if m := events("Scheduled"); !strings.Contains(m, "member1 (2), member2 (2)") {
			return fmt.Errorf("Scheduled events %q, want the rescale to 2 and 2", m)
		}
		return nil
	})
	kubectl(t, fleet, "delete", "propagationpolicy", "-n", ns, "busy")
	waitFor(t, 30*time.Second, func() error {
		if m := events("PolicyRemoved"); m == "" {
			return fmt.Errorf("no PolicyRemoved event after %d Synced", synced())
		}
		return nil
	})
}

// TestNewUserDependentOverrideDeleted: an OverridePolicy a policy depends on, deleted after
// the template was propagated, holds back none of the template's later changes: a rescale
// and an image change both reach the members.
func TestNewUserDependentOverrideDeleted(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: op, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  overrideRules: [{overriders: {imageOverrider: [{component: Tag, operator: replace, value: "1.26"}]}}]
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: %[1]s}
spec:
  dependentOverrides: [op]
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted,
      weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [member1]}, weight: 1}, {targetCluster: {clusterNames: [member2]}, weight: 1}]}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[1]s}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.25"}]}
`, ns), "apply", "-f", "-")
	member := func(m, want string) func() error {
		return func() error {
			got, err := runKubectl(theLab.Member(m).Kubeconfig, "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}")
			if err != nil || got != want {
				return fmt.Errorf("%s has %q (%v), want %q", m, got, err, want)
			}
			return nil
		}
	}
	waitFor(t, 30*time.Second, member("member1", "1 nginx:1.26"))
	kubectl(t, fleet, "delete", "overridepolicy", "op", "-n", ns)
	waitFor(t, 30*time.Second, member("member1", "1 nginx:1.25"))
	kubectl(t, fleet, "scale", "deploy/web", "-n", ns, "--replicas=4")
	kubectl(t, fleet, "set", "image", "deploy/web", "-n", ns, "nginx=nginx:1.27")
	for _, m := range []string{"member1", "member2"} {
		waitFor(t, 30*time.Second, member(m, "2 nginx:1.27"))
	}
	if ev := kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=web,reason=DependentOverridesMissing", "-o", "name"); ev != "" {
		t.Errorf("the propagated template waits for its deleted override: %s", ev)
	}
}

// TestNewUserServiceClusterIPs: each Service template has a cluster IP of its own, from the
// fleet's never-routed range, kept across updates; a headless one says None; the members
// allocate theirs.
func TestNewUserServiceClusterIPs(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, fleet, "create", "service", "clusterip", "one", "-n", ns, "--tcp=80:80")
	kubectl(t, fleet, "create", "service", "clusterip", "two", "-n", ns, "--tcp=80:80")
	kubectl(t, fleet, "create", "service", "clusterip", "headless", "-n", ns, "--clusterip=None")
	ip := func(name string) string {
		return kubectl(t, fleet, "get", "svc", name, "-n", ns, "-o", "jsonpath={.spec.clusterIP}")
	}
	fleetRange := netip.MustParsePrefix("240.0.0.0/4")
	inFleet := func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && fleetRange.Contains(a) }
	one, two := ip("one"), ip("two")
	if !inFleet(one) || !inFleet(two) {
		t.Errorf("cluster IPs %q and %q, want two of 240.0.0.0/4", one, two)
	}
	if one == two {
		t.Errorf("two Services share the cluster IP %s", one)
	}
	if h := ip("headless"); h != "None" {
		t.Errorf("the headless Service's cluster IP %q, want None", h)
	}
	kubectl(t, fleet, "label", "svc", "one", "-n", ns, "tier=web")
	if again := ip("one"); again != one {
		t.Errorf("an update changed the cluster IP from %s to %s", one, again)
	}
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: svc, namespace: %s}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Service, name: one}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, ns), "apply", "-f", "-")
	waitFor(t, 30*time.Second, func() error {
		got, err := runKubectl(theLab.Member("member1").Kubeconfig, "get", "svc", "one", "-n", ns, "-o", "jsonpath={.spec.clusterIP}")
		if err != nil || got == "" || inFleet(got) {
			return fmt.Errorf("member1's cluster IP %q (%v), want one of member1's own range", got, err)
		}
		return nil
	})
}

// TestNewUserSecretsInSearch: a registry that caches Secrets keeps nothing of their values,
// whichever way they were made (kubectl apply, whose last-applied annotation holds the data;
// kubectl create; server-side apply; an annotation under fed's prefix), through every path
// that reads the cache, each of which warns that data is left out; kubectl fed get reads
// Secrets from the members, data included; ConfigMaps keep their data and annotations.
func TestNewUserSecretsInSearch(t *testing.T) {
	t.Parallel()
	host := theLab.Host.Kubeconfig
	m1 := theLab.Member("member1").Kubeconfig
	ns := fmt.Sprintf("s-%d", time.Now().UnixNano()%1_000_000_000)
	kubectl(t, m1, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(m1, "delete", "namespace", ns, "--wait=false") })
	names := memberSecrets(t, m1, ns)
	kubectlStdin(t, m1, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: %s, annotations: {note: kept}}
data: {color: blue}
`, ns), "apply", "-f", "-")
	registry := "e2e-" + ns
	kubectlStdin(t, host, fmt.Sprintf(`apiVersion: search.fedhq.io/v1alpha1
kind: ResourceRegistry
metadata: {name: %s}
spec:
  targetCluster: {clusterNames: [member1]}
  resourceSelectors: [{apiVersion: v1, kind: Secret, namespace: %[2]s}, {apiVersion: v1, kind: ConfigMap, namespace: %[2]s}]
`, registry, ns), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "resourceregistry", registry, "--ignore-not-found") })

	cache := "/apis/search.fedhq.io/v1alpha1/search/cache/api/v1/namespaces/" + ns
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(host, "get", "--raw", cache+"/secrets")
		if err != nil || strings.Count(out, `"kind":"Secret"`) < len(names) {
			return fmt.Errorf("the cache's Secrets: %v\n%s", err, out)
		}
		return nil
	})
	bin := buildKubectlFed(t)
	proxy := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if _, errOut, err := runFed(bin, "kubeconfig", "--proxy", "-o", proxy); err != nil {
		t.Fatalf("kubectl fed kubeconfig --proxy: %v: %s", err, errOut)
	}
	const warning = "Warning: the search cache keeps only the metadata of secrets, not their data"
	// Each path, its output and standard error both.
	read := func(what string, run func() (string, string, error)) string {
		t.Helper()
		out, errOut, err := run()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, errOut)
		}
		noSecretValue(t, what, out+errOut)
		if !strings.Contains(errOut, warning) {
			t.Errorf("%s does not warn that data is left out:\n%s", what, errOut)
		}
		return out
	}
	kubectlRead := func(kubeconfig string, args ...string) func() (string, string, error) {
		return func() (string, string, error) { return kubectlOutErr(kubeconfig, args...) }
	}
	fedRead := func(args ...string) func() (string, string, error) {
		return func() (string, string, error) { return runFed(bin, args...) }
	}
	read("the cache's raw list", kubectlRead(host, "get", "--raw", cache+"/secrets"))
	read("the cache's raw watch", kubectlRead(host, "get", "--raw", cache+"/secrets?watch=true&timeoutSeconds=1"))
	read("kubectl fed search secrets", fedRead("search", "secrets", "-n", ns))
	yaml := read("kubectl fed search secrets -o yaml", fedRead("search", "secrets", "-n", ns, "-o", "yaml"))
	for _, name := range names {
		if !strings.Contains(yaml, "name: "+name) {
			t.Errorf("kubectl fed search secrets does not list %s:\n%s", name, yaml)
		}
	}
	if !strings.Contains(yaml, "meta.helm.sh/release-name: shop") {
		t.Errorf("kubectl fed search secrets -o yaml lost Helm's release name:\n%s", yaml)
	}
	table := read("kubectl get secrets through the fleet proxy", kubectlRead(proxy, "get", "secrets", "-n", ns))
	if strings.Contains(table, "Opaque") {
		t.Errorf("the cache's table of Secrets shows a type it does not know:\n%s", table)
	}
	read("kubectl get secrets -o yaml through the fleet proxy", kubectlRead(proxy, "get", "secrets", "-n", ns, "-o", "yaml"))
	read("kubectl get secrets -o json through the fleet proxy", kubectlRead(proxy, "get", "secrets", "-n", ns, "-o", "json"))

	// One Secret by name through the proxy is the member's, read as the caller; so are
	// kubectl fed get's, data and all.
	if out := kubectl(t, proxy, "get", "secret", "applied", "-n", ns, "-o", "jsonpath={.data.token}"); out != secretTokenB64 {
		t.Errorf("kubectl get secret applied through the fleet proxy: data %q, want the member's", out)
	}
	stdout, stderr, err := runFed(bin, "get", "secrets", "-n", ns, "-C", "member1", "-o", "yaml", "-v=1")
	if err != nil {
		t.Fatalf("kubectl fed get secrets: %v %s", err, stderr)
	}
	if strings.Count(stdout, "token: "+secretTokenData) != len(names) {
		t.Errorf("kubectl fed get secrets -o yaml, want each Secret's data from member1:\n%s", stdout)
	}
	if !strings.Contains(stderr, "reading secrets from the members (member1): the search cache keeps only the metadata of secrets") {
		t.Errorf("kubectl fed get -v=1 does not say why it reads the members:\n%s", stderr)
	}
	// ConfigMaps keep their data and annotations in the cache, kubectl's included.
	out, errOut, err := kubectlOutErr(host, "get", "--raw", cache+"/configmaps")
	if err != nil || !strings.Contains(out, `"color":"blue"`) || !strings.Contains(out, `"note":"kept"`) || !strings.Contains(out, "last-applied-configuration") {
		t.Errorf("the cache's ConfigMaps lost their data or annotations: %v\n%s", err, out)
	}
	if strings.Contains(errOut, "Warning") {
		t.Errorf("the cache's ConfigMaps warn: %s", errOut)
	}
}

// TestNewUserSearchTopAndRefusals: the roles the README names for searching are enough for
// kubectl fed search; kubectl top nodes through the fleet proxy says what to cache, and works
// once a registry caches Nodes; a name not found prints no empty List; a user with no rights
// gets one refusal, not discovery's errors first; a cluster the cache holds nothing of is
// named in a warning.
func TestNewUserSearchTopAndRefusals(t *testing.T) {
	t.Parallel()
	host := theLab.Host.Kubeconfig
	bin := buildKubectlFed(t)
	ns := fmt.Sprintf("srch-%d", time.Now().UnixNano()%1_000_000_000)
	m1 := theLab.Member("member1").Kubeconfig
	kubectl(t, m1, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(m1, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, m1, "create", "deployment", "found", "-n", ns, "--image=nginx", "--replicas=0")
	registry := "e2e-" + ns
	kubectlStdin(t, host, fmt.Sprintf(`apiVersion: search.fedhq.io/v1alpha1
kind: ResourceRegistry
metadata: {name: %s}
spec:
  targetCluster: {clusterNames: [member1]}
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: %s}]
`, registry, ns), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "resourceregistry", registry, "--ignore-not-found") })

	// A user with fed:search-view and view in the namespace, as the README says.
	user := "searcher-" + ns
	userHost, err := theLab.Host.UserKubeconfig(user)
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, host, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, host, "create", "rolebinding", "view", "-n", ns, "--clusterrole=view", "--user="+user)
	kubectl(t, host, "create", "clusterrolebinding", registry, "--clusterrole=fed:search-view", "--user="+user)
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "clusterrolebinding", registry, "--ignore-not-found") })
	waitFor(t, 30*time.Second, func() error {
		cmd := exec.Command(bin, "--kubeconfig", userHost, "search", "deployments", "-n", ns)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "found") || !strings.Contains(string(out), "member1") {
			return fmt.Errorf("kubectl fed search with fed:search-view: %v\n%s", err, out)
		}
		return nil
	})

	// A name not found: NotFound alone.
	stdout, stderr, err := runFed(bin, "search", "deployments", "nosuch", "-n", ns, "-o", "yaml")
	if err == nil || stdout != "" || !strings.Contains(stderr, `"nosuch" not found`) {
		t.Errorf("kubectl fed search deployments nosuch -o yaml: %v, printed %q and %q; want NotFound alone", err, stdout, stderr)
	}

	// No rights: the host's refusal, without discovery's errors before it.
	nobody, err := theLab.Host.UserKubeconfig("nobody-" + ns)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--kubeconfig", nobody, "get", "pods", "-A")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "Couldn't get current server API group list") || !strings.Contains(string(out), "Forbidden") {
		t.Errorf("kubectl fed get pods -A with no rights: %v\n%s", err, out)
	}

	// clusters=nosuch warns.
	_, errOut, err := kubectlOutErr(host, "get", "--raw", "/apis/search.fedhq.io/v1alpha1/search/cache/apis/apps/v1/namespaces/"+ns+"/deployments?clusters=nosuch")
	if err != nil || !strings.Contains(errOut, `holds no deployments.apps of cluster "nosuch"`) {
		t.Errorf("a search of a cluster the cache holds nothing of: %v, warnings %q", err, errOut)
	}

	// kubectl top nodes through the fleet proxy.
	proxy := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if _, errOut, err := runFed(bin, "kubeconfig", "--proxy", "-o", proxy); err != nil {
		t.Fatalf("kubectl fed kubeconfig --proxy: %v: %s", err, errOut)
	}
	_, err = runKubectl(proxy, "top", "nodes")
	if err == nil || !strings.Contains(err.Error(), "add {apiVersion: v1, kind: Node} to a registry's resourceSelectors") {
		t.Errorf("kubectl top nodes through the proxy without Nodes cached: %v, want what to add", err)
	}
	nodes := "e2e-nodes-" + ns
	kubectlStdin(t, host, fmt.Sprintf(`apiVersion: search.fedhq.io/v1alpha1
kind: ResourceRegistry
metadata: {name: %s}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Node}]
`, nodes), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "resourceregistry", nodes, "--ignore-not-found") })
	waitFor(t, time.Minute, func() error {
		out, err := runKubectl(proxy, "top", "nodes")
		if err != nil || !strings.Contains(out, "member1-node-") {
			return fmt.Errorf("kubectl top nodes through the proxy with Nodes cached: %v\n%s", err, out)
		}
		return nil
	})
}
