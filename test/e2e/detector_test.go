package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDetectorBindsTemplatesToPolicies checks the first step of propagation on the lab:
// each template selected by a policy gets one binding that names the policy chosen by the
// seeds' priority rules, whichever came first, and loses it when no policy selects it.
func TestDetectorBindsTemplatesToPolicies(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	apply := func(yaml string) { kubectlStdin(t, fleet, yaml, "apply", "-n", ns, "-f", "-") }
	deployment := func(name string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, labels: {app: %s}}
spec:
  replicas: 2
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
`, name, name, name, name)
	}
	policy := func(name, selector string, priority int, clusters ...string) string {
		return fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: %s}
spec:
  priority: %d
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment%s}]
  placement: {clusterAffinity: {clusterNames: [%s]}}
`, name, priority, selector, strings.Join(clusters, ", "))
	}
	// bound reads the binding of a Deployment: its policy, resource, replicas and clusters;
	// "" when there is none.
	bound := func(name string) (string, error) {
		return runKubectl(fleet, "get", "resourcebindings", name+"-deployment", "-n", ns, "--ignore-not-found",
			"-o", `jsonpath={.metadata.labels.propagationpolicy\.federation\.fedhq\.io/name}|{.spec.resource.name}|{.spec.replicas}|{.spec.placement.clusterAffinity.clusterNames}`)
	}
	// is says whether the binding of a Deployment names want (a policy, or "" for a binding
	// without one) and, when placed is set, is placed there.
	is := func(name, want, placed string) func() error {
		return func() error {
			out, err := bound(name)
			if err != nil {
				return err
			}
			if !strings.HasPrefix(out, want+"|"+name+"|2|"+placed) {
				return fmt.Errorf("binding of %s: %q, want policy %q placed %s", name, out, want, placed)
			}
			return nil
		}
	}
	binding := func(name, want string) { t.Helper(); waitFor(t, 20*time.Second, is(name, want, "")) }
	unbound := func(name string) {
		t.Helper()
		waitFor(t, 20*time.Second, func() error {
			if out, err := bound(name); err != nil || out != "" {
				return fmt.Errorf("binding of %s still there: %s (%v)", name, out, err)
			}
			return nil
		})
	}
	// stays checks that a binding keeps its policy for a while (the detector saw the change
	// that must not move it by then).
	stays := func(name, want, placed string) { t.Helper(); holds(t, 2*time.Second, is(name, want, placed)) }

	// Template first, then the policy.
	apply(deployment("nginx"))
	apply(policy("by-kind", "", 0, "member1"))
	binding("nginx", "by-kind")
	out := kubectl(t, fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o", "jsonpath={.spec.resource.kind} {.spec.replicaRequirements.resourceRequest.cpu}")
	if out != "Deployment 100m" {
		t.Errorf("binding resource kind and per-replica cpu: %q", out)
	}

	// Policy first, then the template: the same result.
	apply(deployment("web"))
	binding("web", "by-kind")

	// A closer selector and a higher priority choose among policies for a template nothing
	// claimed yet; one that is claimed stays with its policy (preemption Never).
	apply(policy("by-name", ", name: nginx", 0, "member2"))
	apply(policy("by-label-high", ", labelSelector: {matchLabels: {app: nginx}}", 5, "member3"))
	stays("nginx", "by-kind", "")
	// Preemption Always takes it over.
	kubectl(t, fleet, "patch", "pp", "by-label-high", "-n", ns, "--type=merge", "-p", `{"spec":{"preemption":"Always"}}`)
	binding("nginx", "by-label-high")
	binding("web", "by-kind")
	if out := kubectl(t, fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o", "jsonpath={.spec.placement.clusterAffinity.clusterNames}"); out != `["member3"]` {
		t.Errorf("the binding follows the chosen policy's placement: %s", out)
	}

	// A changed policy re-binds; a deleted one unbinds to the next best.
	apply(policy("by-label-high", ", labelSelector: {matchLabels: {app: nginx}}", 5, "member1", "member2"))
	waitFor(t, 20*time.Second, is("nginx", "by-label-high", `["member1","member2"]`))
	kubectl(t, fleet, "delete", "pp", "by-label-high", "-n", ns)
	binding("nginx", "by-name")

	// Lazy: a changed policy reaches the template when its generation next moves.
	kubectl(t, fleet, "patch", "pp", "by-name", "-n", ns, "--type=merge", "-p",
		`{"spec":{"activationPreference":"Lazy","placement":{"clusterAffinity":{"clusterNames":["member3"]}}}}`)
	stays("nginx", "by-name", `["member2"]`)
	kubectl(t, fleet, "set", "env", "deployment/nginx", "-n", ns, "LAZY=1")
	waitFor(t, 20*time.Second, is("nginx", "by-name", `["member3"]`))

	// With no policy left, the bindings stay, without a policy, where they were placed
	// (nginx's by by-name, or by by-kind if the detector saw by-name go first).
	kubectl(t, fleet, "delete", "pp", "by-name", "by-kind", "-n", ns)
	binding("nginx", "")
	binding("web", "")
	// A template replaced at once by another of the same name is a new one: the old
	// binding goes with the old template.
	kubectlStdin(t, fleet, deployment("web"), "replace", "--force", "-n", ns, "-f", "-")
	unbound("web")

	// A new policy takes a binding without a policy over.
	apply(policy("by-kind", "", 0, "member1"))
	binding("web", "by-kind")
	binding("nginx", "by-kind")
	// A deleted template loses its binding.
	kubectl(t, fleet, "delete", "deployment", "web", "-n", ns)
	unbound("web")

	// dependentOverrides: the template waits, unbound, until the override policy exists.
	apply(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: needs-override}
spec:
  priority: 9
  dependentOverrides: [late]
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: late}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`)
	apply(deployment("late"))
	waitFor(t, 20*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=late,reason=DependentOverridesMissing", "-o", "jsonpath={.items[*].message}")
		if want := "PropagationPolicy " + ns + "/needs-override waits for OverridePolicy " + ns + "/late before it propagates this template"; err != nil || out != want {
			return fmt.Errorf("events %q (%v), want %q", out, err, want)
		}
		return nil
	})
	unbound("late")
	// ... and its status says so, as a condition a user can wait on.
	kubectl(t, fleet, "wait", "-n", ns, "deployment/late", "--for=condition=Propagated=false", "--timeout=20s")
	expectOutput(t, 5*time.Second, fleet, "DependentOverridesMissing", "get", "deployment", "late", "-n", ns,
		"-o", `jsonpath={.status.conditions[?(@.type=="Propagated")].reason}`)
	apply(`apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: late}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: late}]
  overrideRules: [{overriders: {labelsOverrider: [{operator: add, value: {overridden: "yes"}}]}}]
`)
	binding("late", "needs-override")
	// Propagated, its status is the members': the condition is gone.
	expectOutput(t, 30*time.Second, fleet, "", "get", "deployment", "late", "-n", ns,
		"-o", `jsonpath={.status.conditions[?(@.type=="Propagated")].status}`)
}

// TestDetectorClusterScoped checks cluster-scoped templates get ClusterResourceBindings
// from ClusterPropagationPolicies.
func TestDetectorClusterScoped(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	name := fmt.Sprintf("e2e-role-%d", time.Now().UnixNano()%1_000_000)
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: %s}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: %s}
spec:
  resourceSelectors: [{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: %s}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, name, name, name), "apply", "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "clusterrole", name, "--ignore-not-found")
		_, _ = runKubectl(fleet, "delete", "cpp", name, "--ignore-not-found")
	})
	waitFor(t, 20*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "clusterresourcebindings", name+"-clusterrole", "-o",
			`jsonpath={.metadata.labels.clusterpropagationpolicy\.federation\.fedhq\.io/name} {.spec.resource.kind}`)
		if err != nil || out != name+" ClusterRole" {
			return fmt.Errorf("cluster binding: %q (%v)", out, err)
		}
		return nil
	})
	if out, _ := runKubectl(theLab.Host.Kubeconfig, "get", "clusterrole", name, "--ignore-not-found", "-o", "name"); out != "" {
		t.Errorf("the template reached the host: %s", out)
	}
}

// TestSchedulerPlacesBindings runs the seeds' nginx example (2 replicas divided 1:1 over
// member1 and member2) to its binding's placement, scales it, moves it, and asks for a
// cluster that does not exist.
func TestSchedulerPlacesBindings(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))
	placed := func(clusters, status, reason string) {
		t.Helper()
		waitFor(t, 20*time.Second, func() error {
			out, err := runKubectl(fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o",
				`jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}|{.status.conditions[?(@.type=="Scheduled")].status}|{.status.conditions[?(@.type=="Scheduled")].reason}`)
			if err != nil {
				return err
			}
			if want := clusters + "|" + status + "|" + reason; out != want {
				return fmt.Errorf("binding placed %q, want %q", out, want)
			}
			return nil
		})
	}
	placed("member1=1 member2=1 ", "True", "Success")

	kubectl(t, fleet, "scale", "deployment", "nginx", "-n", ns, "--replicas=4")
	placed("member1=2 member2=2 ", "True", "Success")

	kubectl(t, fleet, "patch", "pp", "nginx-propagation", "-n", ns, "--type=json", "-p",
		`[{"op":"replace","path":"/spec/placement","value":{"clusterAffinity":{"clusterNames":["member2"]}}}]`)
	placed("member2=4 ", "True", "Success")

	kubectl(t, fleet, "patch", "pp", "nginx-propagation", "-n", ns, "--type=json", "-p",
		`[{"op":"replace","path":"/spec/placement","value":{"clusterAffinity":{"clusterNames":["nosuch"]}}}]`)
	placed("member2=4 ", "False", "NoClusterFit")
}
