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
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// TestDeletionProtection: a template labelled resourcetemplate.fedhq.io/deletion-protected=
// Always is not deleted by kubectl delete, by a Helm uninstall, nor with its namespace,
// which stays Terminating and says why; the label removed, it deletes and its members'
// copies go.
func TestDeletionProtection(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	helm := helmIn(t, filepath.Join(root, "bin", "helm"), fleet, ns)
	if out, err := helm("install", "keep", filepath.Join(root, "test", "e2e", "testdata", "charts", "web"), "--set", "protected=true,replicas=1"); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	member1 := memberKubeconfig("member1")
	expectOutput(t, 30*time.Second, member1, "configmap/keep", "get", "cm", "keep", "-n", ns, "-o", "name")

	refusal := fmt.Sprintf(`configmaps "keep" is forbidden: it is protected from deletion by its label resourcetemplate.fedhq.io/deletion-protected=Always: `+
		"to delete it, remove the label first (kubectl label configmaps keep -n %s resourcetemplate.fedhq.io/deletion-protected-)", ns)
	out, err := runKubectl(fleet, "delete", "cm", "keep", "-n", ns)
	if err == nil || !strings.Contains(out+err.Error(), refusal) {
		t.Errorf("kubectl delete cm keep: %q (%v), want it refused: %s", out, err, refusal)
	}
	// Helm 4 says only "failed to delete release: keep".
	if out, err := helm("uninstall", "keep", "--timeout=30s"); err == nil {
		t.Errorf("helm uninstall succeeded, want it to fail on the protected ConfigMap:\n%s", out)
	}
	// What Helm could delete is gone; the ConfigMap stays, in the fleet and in member1.
	expectOutput(t, 30*time.Second, fleet, "", "get", "deploy", "keep", "-n", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 5*time.Second, fleet, "configmap/keep", "get", "cm", "keep", "-n", ns, "-o", "name")
	expectOutput(t, 5*time.Second, member1, "configmap/keep", "get", "cm", "keep", "-n", ns, "-o", "name")

	// Its namespace deleted: Terminating, saying which template holds it, until the label goes.
	kubectl(t, fleet, "delete", "namespace", ns, "--wait=false")
	expectContains(t, 30*time.Second, fleet, []string{"Terminating", "protected from deletion"}, nil,
		"get", "namespace", ns, "-o", "jsonpath={.status.phase} {.status.conditions[*].message}")
	expectOutput(t, 5*time.Second, fleet, "configmap/keep", "get", "cm", "keep", "-n", ns, "-o", "name")
	kubectl(t, fleet, "label", "cm", "keep", "-n", ns, "resourcetemplate.fedhq.io/deletion-protected-")
	expectOutput(t, 60*time.Second, fleet, "", "get", "namespace", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 30*time.Second, member1, "", "get", "cm", "keep", "-n", ns, "--ignore-not-found", "-o", "name")
}

// TestConvertKarmadaYAML: a Deployment, PropagationPolicy, OverridePolicy and FederatedHPA
// written for Karmada (testdata/karmada), rewritten by kubectl fed convert and applied to
// the fleet, do what they do in Karmada: the Deployment divided over member1 and member2,
// member1's copy labelled by the override, the FederatedHPA stored, and the template
// protected from deletion by the label Karmada spells resourcetemplate.karmada.io/.
func TestConvertKarmadaYAML(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	converted, stderr, err := runFed(buildKubectlFed(t), "convert", "-f", filepath.Join("testdata", "karmada", "nginx.yaml"))
	if err != nil {
		t.Fatalf("kubectl fed convert: %v\n%s", err, stderr)
	}
	kubectlStdin(t, fleet, converted, "apply", "-n", ns, "-f", "-")
	// Before the namespace goes (cleanups run last first): the label lifted.
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "label", "deploy", "nginx", "-n", ns, "resourcetemplate.fedhq.io/deletion-protected-")
	})
	expectOutput(t, time.Minute, memberKubeconfig("member1"), "1 member1", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.labels.env}")
	expectOutput(t, time.Minute, memberKubeconfig("member2"), "1 <none>", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.labels.env}{\"<none>\"}")
	expectOutput(t, 10*time.Second, fleet, "federatedhpa.federation.fedhq.io/nginx", "get", "federatedhpa", "nginx", "-n", ns, "-o", "name")
	if out, err := runKubectl(fleet, "delete", "deploy", "nginx", "-n", ns); err == nil || !strings.Contains(out+err.Error(), "protected from deletion") {
		t.Errorf("kubectl delete deploy nginx: %q (%v), want it refused", out, err)
	}
}

// kubectl fed migrate --from-karmada reads a Karmada API server (a kube-apiserver of the
// lab's with stand-ins for Karmada's CRDs, holding the nginx example written for Karmada),
// says what it would carry, then carries it: the templates and policies, rewritten, in
// the fleet, placing and overriding as they did in Karmada.
func TestMigrateFromKarmada(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	karmada, stop, err := theLab.StartHost(ctx, "karmada")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, karmada.Kubeconfig, "apply", "-f", filepath.Join("testdata", "karmada", "crds.yaml"))
	kubectl(t, karmada.Kubeconfig, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
	kubectl(t, karmada.Kubeconfig, "create", "namespace", ns)
	kubectl(t, karmada.Kubeconfig, "apply", "-n", ns, "-f", filepath.Join("testdata", "karmada", "nginx.yaml"))
	bin := buildKubectlFed(t)

	// The dry run: a report, nothing written.
	stdout, stderr, err := runFed(bin, "migrate", "--from-karmada", karmada.Kubeconfig)
	if err != nil {
		t.Fatalf("kubectl fed migrate: %v\n%s%s", err, stdout, stderr)
	}
	for _, want := range []string{
		"deployment.apps " + ns + "/nginx would be applied",
		"propagationpolicy.federation.fedhq.io " + ns + "/nginx-propagation would be applied",
		"overridepolicy.federation.fedhq.io " + ns + "/nginx-override would be applied",
		"federatedhpa.federation.fedhq.io " + ns + "/nginx would be applied",
		"4 object(s) would be applied to the fleet, 0 left out",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the dry run's report:\n%s\nwant %q", stdout, want)
		}
	}
	if !strings.Contains(stderr, "label propagationpolicy.karmada.io/name is Karmada's own: left out") {
		t.Errorf("standard error:\n%s\nwant the label Karmada's controllers write said left out", stderr)
	}
	if out := kubectl(t, fleet, "get", "deploy,pp", "-n", ns, "--ignore-not-found", "-o", "name"); out != "" {
		t.Fatalf("the dry run wrote to the fleet:\n%s", out)
	}

	// Carried.
	stdout, stderr, err = runFed(bin, "migrate", "--from-karmada", karmada.Kubeconfig, "--dry-run=none")
	if err != nil {
		t.Fatalf("kubectl fed migrate --dry-run=none: %v\n%s%s", err, stdout, stderr)
	}
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "label", "deploy", "nginx", "-n", ns, "resourcetemplate.fedhq.io/deletion-protected-")
	})
	if !strings.Contains(stdout, "5 object(s) applied, 0 failed, 0 left out") {
		t.Errorf("kubectl fed migrate --dry-run=none:\n%s", stdout)
	}
	expectOutput(t, time.Minute, memberKubeconfig("member1"), "1 member1", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.labels.env}")
	expectOutput(t, time.Minute, memberKubeconfig("member2"), "1", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.spec.replicas}")
	expectOutput(t, 10*time.Second, fleet, "federatedhpa.federation.fedhq.io/nginx", "get", "federatedhpa", "nginx", "-n", ns, "-o", "name")
	// Karmada is only read.
	if out := kubectl(t, karmada.Kubeconfig, "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.metadata.labels.propagationpolicy\\.karmada\\.io/name}"); out != "nginx-propagation" {
		t.Errorf("Karmada's Deployment changed: its label %q", out)
	}
}
