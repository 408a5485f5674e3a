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

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// TestReadiness checks that readiness tools see a Deployment template ready when its
// copies are: kubectl wait --for=condition=Available and kubectl rollout status return once
// every member's copy is available, and time out, naming the member, while one cannot
// become ready (its pods cannot be scheduled there, by an override).
func TestReadiness(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	// The override first, so that member2's copy never runs.
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: stuck-nowhere-in-member2}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: stuck}]
  overrideRules:
  - targetCluster: {clusterNames: [member2]}
    overriders:
      plaintext:
      - {path: /spec/template/spec/nodeSelector, operator: add, value: {topology.kubernetes.io/region: nowhere}}
`, "apply", "-n", ns, "-f", "-")
	kubectlStdin(t, fleet, dividedDeployment("ready", 4)+dividedDeployment("stuck", 4), "apply", "-n", ns, "-f", "-")

	t.Run("kubectl wait and rollout status return once every member's copy is available", func(t *testing.T) {
		start := time.Now()
		kubectl(t, fleet, "wait", "-n", ns, "--for=condition=Available", "deploy/ready", "--timeout=90s")
		kubectl(t, fleet, "rollout", "status", "-n", ns, "deploy/ready", "--timeout=30s")
		t.Logf("Available after %s", time.Since(start).Round(time.Millisecond))
		counts, err := memberDeploymentReplicas(ns, "ready", "member1", "member2")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"member1", "member2"} {
			out := kubectl(t, theLab.Member(m).Kubeconfig, "get", "deploy", "ready", "-n", ns, "-o", "jsonpath={.status.availableReplicas}")
			if out != fmt.Sprint(counts[m]) {
				t.Errorf("the template is Available while %s has %s of %d replicas available", m, out, counts[m])
			}
		}
		out := kubectl(t, fleet, "get", "deploy", "ready", "-n", ns, "-o", "jsonpath={.metadata.generation} {.status.observedGeneration} {.status.availableReplicas}")
		if f := strings.Fields(out); len(f) != 3 || f[0] != f[1] || f[2] != "4" {
			t.Errorf("generation, observedGeneration, availableReplicas: %q; want the generation observed and 4 available", out)
		}
	})

	t.Run("a new generation is not observed before the members observed it", func(t *testing.T) {
		before := kubectl(t, fleet, "get", "deploy", "ready", "-n", ns, "-o", "jsonpath={.metadata.generation}")
		// kubectl set image sends a strategic merge patch.
		kubectl(t, fleet, "set", "image", "-n", ns, "deploy/ready", "app=nginx:1.27")
		if after := kubectl(t, fleet, "get", "deploy", "ready", "-n", ns, "-o", "jsonpath={.metadata.generation}"); after == before {
			t.Fatalf("kubectl set image left the generation at %s", after)
		}
		kubectl(t, fleet, "rollout", "status", "-n", ns, "deploy/ready", "--timeout=90s")
		for _, m := range []string{"member1", "member2"} {
			out := kubectl(t, theLab.Member(m).Kubeconfig, "get", "deploy", "ready", "-n", ns, "-o",
				"jsonpath={.spec.template.spec.containers[0].image} {.status.updatedReplicas} {.status.availableReplicas}")
			if f := strings.Fields(out); len(f) != 3 || f[0] != "nginx:1.27" || f[1] != f[2] {
				t.Errorf("rollout status returned while %s has image, updated, available %q", m, out)
			}
		}
	})

	t.Run("a member that cannot run its copy keeps the template not Available", func(t *testing.T) {
		out, err := runKubectl(fleet, "wait", "-n", ns, "--for=condition=Available", "deploy/stuck", "--timeout=8s")
		if err == nil {
			t.Fatalf("kubectl wait returned though member2 cannot schedule the pods: %s", out)
		}
		// A rollout that member2 cannot finish: rollout status waits too.
		kubectl(t, fleet, "patch", "overridepolicy", "stuck-nowhere-in-member2", "-n", ns, "--type=json", "-p",
			`[{"op":"add","path":"/spec/resourceSelectors/-","value":{"apiVersion":"apps/v1","kind":"Deployment","name":"ready"}}]`)
		kubectl(t, fleet, "set", "image", "-n", ns, "deploy/ready", "app=nginx:1.28")
		if out, err := runKubectl(fleet, "rollout", "status", "-n", ns, "deploy/ready", "--timeout=8s"); err == nil {
			t.Errorf("kubectl rollout status returned though member2 cannot run the new pods: %s", out)
		}
		msg := kubectl(t, fleet, "get", "deploy", "stuck", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].message}`)
		if !strings.Contains(msg, "member2") {
			t.Errorf("the Available condition's message %q does not name member2", msg)
		}
	})
}

// TestHelmWait installs, upgrades, rolls back and uninstalls a chart (a Deployment, a
// Service, a ConfigMap and a PropagationPolicy) through the fleet kubeconfig with --wait,
// with Helm 4 (whose waiter is kstatus) and Helm 3 (which reads a Deployment's newest
// ReplicaSet and a Service's cluster IP): it returns once the members run the release, and
// an upgrade that one member cannot run fails.
func TestHelmWait(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct{ name, bin, wait, why string }{
		// Helm 4 says which resource is not ready; Helm 3 says so with --debug.
		{"helm 4", filepath.Join(root, "bin", "helm"), "--wait=watcher", "resource Deployment/"},
		{"helm 3", filepath.Join(root, "bin", "helm3", "helm"), "--wait", "Deployment is not ready"},
	} {
		t.Run(v.name, func(t *testing.T) { helmWait(t, v.bin, v.wait, v.why) })
	}
}

// helmIn returns a runner of helmBin in namespace ns of kubeconfig, with a home of the
// test's own; it returns the combined output.
func helmIn(t *testing.T, helmBin, kubeconfig, ns string) func(args ...string) (string, error) {
	home := t.TempDir()
	return func(args ...string) (string, error) {
		cmd := exec.Command(helmBin, append([]string{"--kubeconfig", kubeconfig, "-n", ns}, args...)...)
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config", "HELM_DATA_HOME="+home+"/data")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

func helmWait(t *testing.T, helmBin, wait, why string) {
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(helmBin); err != nil {
		t.Fatalf("%v: make test builds it", err)
	}
	chart := filepath.Join(root, "test", "e2e", "testdata", "charts", "web")
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	helm := helmIn(t, helmBin, fleet, ns)
	memberImages := func() map[string]string {
		out := map[string]string{}
		for _, m := range []string{"member1", "member2"} {
			o, _ := runKubectl(theLab.Member(m).Kubeconfig, "get", "deploy", "web", "-n", ns, "-o",
				"jsonpath={.spec.template.spec.containers[0].image} {.status.availableReplicas}/{.spec.replicas}")
			out[m] = o
		}
		return out
	}

	t.Run("install --wait returns once the members run it", func(t *testing.T) {
		if out, err := helm("install", "web", chart, wait, "--timeout=2m"); err != nil {
			t.Fatalf("helm install: %v\n%s", err, out)
		}
		for m, got := range memberImages() {
			if got != "nginx:1.27 2/2" {
				t.Errorf("helm install returned while %s runs %q, want nginx:1.27 2/2", m, got)
			}
		}
		// The Service template has the cluster IP the host's dry run allocated; the
		// members' copies are applied without it.
		if ip := kubectl(t, fleet, "get", "svc", "web", "-n", ns, "-o", "jsonpath={.spec.clusterIP}"); ip == "" {
			t.Error("the Service template has no cluster IP")
		}
		manifest := kubectl(t, fleet, "get", "work", ns+".web-service", "-n", "fed-es-member1", "-o", "jsonpath={.spec.workload.manifests[0].spec}")
		if manifest == "" || strings.Contains(manifest, "clusterIP") {
			t.Errorf("member1's Work of the Service: %s, want it without a cluster IP", manifest)
		}
		// Helm 3 finds the Deployment's rollout as a ReplicaSet of the fleet.
		if rs := kubectl(t, fleet, "get", "rs", "-n", ns, "-l", "app=web", "-o", "jsonpath={.items[*].metadata.ownerReferences[0].name}"); rs != "web" {
			t.Errorf("the fleet's ReplicaSets of web: owners %q, want web", rs)
		}
	})
	t.Run("upgrade --wait returns once the members run the new image", func(t *testing.T) {
		if out, err := helm("upgrade", "web", chart, wait, "--timeout=2m", "--set", "image=nginx:1.27.1"); err != nil {
			t.Fatalf("helm upgrade: %v\n%s", err, out)
		}
		for m, got := range memberImages() {
			if got != "nginx:1.27.1 2/2" {
				t.Errorf("helm upgrade returned while %s runs %q, want nginx:1.27.1 2/2", m, got)
			}
		}
	})
	// member2 cannot run what this override selects (no node there has the region): made
	// before the release that meets it, as an operator would, since an override that
	// arrives after its workload changes the copy in a second rollout.
	nowhere := func(deployments ...string) {
		t.Helper()
		var selectors []string
		for _, d := range deployments {
			selectors = append(selectors, "{apiVersion: apps/v1, kind: Deployment, name: "+d+"}")
		}
		kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: nowhere-in-member2}
spec:
  resourceSelectors: [`+strings.Join(selectors, ", ")+`]
  overrideRules:
  - targetCluster: {clusterNames: [member2]}
    overriders:
      plaintext:
      - {path: /spec/template/spec/nodeSelector, operator: add, value: {topology.kubernetes.io/region: nowhere}}
`, "apply", "-n", ns, "-f", "-")
	}
	t.Run("an install one member cannot run fails", func(t *testing.T) {
		nowhere("stuck")
		out, err := helm("install", "stuck", chart, wait, "--debug", "--timeout=12s")
		if err == nil {
			t.Fatalf("helm install succeeded though member2 cannot schedule the pods:\n%s", out)
		}
		if !strings.Contains(out, why) {
			t.Errorf("helm's output does not say %q:\n%s", why, out)
		}
		msg := kubectl(t, fleet, "get", "deploy", "stuck", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].message}`)
		if !strings.Contains(msg, "member2") {
			t.Errorf("the Available condition's message %q does not name member2", msg)
		}
		if out, err := helm("uninstall", "stuck", wait, "--timeout=1m"); err != nil {
			t.Errorf("helm uninstall: %v\n%s", err, out)
		}
	})
	t.Run("an upgrade one member cannot run fails", func(t *testing.T) {
		nowhere("stuck", "web")
		out, err := helm("upgrade", "web", chart, wait, "--debug", "--timeout=12s", "--set", "image=nginx:1.28")
		if err == nil {
			t.Fatalf("helm upgrade succeeded though member2 cannot schedule the new pods:\n%s", out)
		}
		if !strings.Contains(out, why) {
			t.Errorf("helm's output does not say %q:\n%s", why, out)
		}
		kubectl(t, fleet, "delete", "overridepolicy", "nowhere-in-member2", "-n", ns)
	})
	t.Run("rollback --wait returns once the members run the revision again", func(t *testing.T) {
		if out, err := helm("rollback", "web", "2", wait, "--timeout=2m"); err != nil {
			t.Fatalf("helm rollback: %v\n%s", err, out)
		}
		for m, got := range memberImages() {
			if got != "nginx:1.27.1 2/2" {
				t.Errorf("helm rollback returned while %s runs %q, want nginx:1.27.1 2/2", m, got)
			}
		}
	})
	t.Run("uninstall --wait removes it from the members", func(t *testing.T) {
		if out, err := helm("uninstall", "web", wait, "--timeout=1m"); err != nil {
			t.Fatalf("helm uninstall: %v\n%s", err, out)
		}
		waitFor(t, 30*time.Second, func() error {
			for _, m := range []string{"member1", "member2"} {
				out, _ := runKubectl(theLab.Member(m).Kubeconfig, "get", "deploy/web", "svc/web", "cm/web", "-n", ns, "-o", "name", "--ignore-not-found")
				if strings.TrimSpace(out) != "" {
					return fmt.Errorf("%s still has %s", m, out)
				}
			}
			return nil
		})
	})
}
