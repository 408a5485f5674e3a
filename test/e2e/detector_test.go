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
	// binding waits until the binding of a Deployment names want (a policy, or "" for none).
	binding := func(name, want string) {
		t.Helper()
		waitFor(t, 20*time.Second, func() error {
			out, err := runKubectl(fleet, "get", "resourcebindings", name+"-deployment", "-n", ns, "--ignore-not-found",
				"-o", `jsonpath={.metadata.labels.propagationpolicy\.federation\.fedhq\.io/name}|{.spec.resource.name}|{.spec.replicas}|{.spec.placement.clusterAffinity.clusterNames}`)
			if err != nil {
				return err
			}
			if want == "" {
				if out != "" {
					return fmt.Errorf("binding %s still there: %s", name, out)
				}
				return nil
			}
			if !strings.HasPrefix(out, want+"|"+name+"|2|") {
				return fmt.Errorf("binding of %s: %q, want policy %s", name, out, want)
			}
			return nil
		})
	}

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

	// A name match beats the kind alone; a higher explicit priority beats both.
	apply(policy("by-name", ", name: nginx", 0, "member2"))
	binding("nginx", "by-name")
	binding("web", "by-kind")
	apply(policy("by-label-high", ", labelSelector: {matchLabels: {app: nginx}}", 5, "member3"))
	binding("nginx", "by-label-high")
	if out := kubectl(t, fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o", "jsonpath={.spec.placement.clusterAffinity.clusterNames}"); out != `["member3"]` {
		t.Errorf("the binding follows the chosen policy's placement: %s", out)
	}

	// A changed policy re-binds; a deleted one unbinds to the next best, then to none.
	apply(policy("by-label-high", ", labelSelector: {matchLabels: {app: nginx}}", 5, "member1", "member2"))
	waitFor(t, 20*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o", "jsonpath={.spec.placement.clusterAffinity.clusterNames}")
		if err != nil || out != `["member1","member2"]` {
			return fmt.Errorf("placement %s (%v)", out, err)
		}
		return nil
	})
	kubectl(t, fleet, "delete", "pp", "by-label-high", "-n", ns)
	binding("nginx", "by-name")
	kubectl(t, fleet, "delete", "pp", "by-name", "by-kind", "-n", ns)
	binding("nginx", "")
	binding("web", "")

	// A deleted template loses its binding.
	apply(policy("by-kind", "", 0, "member1"))
	binding("web", "by-kind")
	kubectl(t, fleet, "delete", "deployment", "web", "-n", ns)
	binding("web", "")
	binding("nginx", "by-kind")
}

// TestDetectorClusterScoped checks cluster-scoped templates get ClusterResourceBindings
// from ClusterPropagationPolicies.
func TestDetectorClusterScoped(t *testing.T) {
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
