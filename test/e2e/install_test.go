package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedhq/fed/test/lab"
)

// TestInstall checks fed's install manifests against the lab's host with server-side dry
// runs, which validate every object as the host would create it and change nothing: the
// plain manifests of artifacts/deploy, and the chart artifacts/charts/fed in both storage
// modes. The lab's own fed-apiserver objects (its Service and APIServices) must be as they
// were after the dry runs. A Badger chart with two replicas is refused by the template.
func TestInstall(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	host := theLab.Host.Kubeconfig
	chart := filepath.Join(root, "artifacts", "charts", "fed")
	helm := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(root, "bin", "helm"), args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return stdout.String(), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return stdout.String(), nil
	}
	before := fedRegistration(t)

	dryRun := func(t *testing.T, stdin string, args ...string) string {
		t.Helper()
		out, err := runKubectlWith(host, stdin, nil, append([]string{"apply", "--dry-run=server"}, args...)...)
		if err != nil {
			t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, out)
		}
		for _, want := range []string{"apiservice.apiregistration.k8s.io/v1alpha1.search.fedhq.io", "service/fed-apiserver",
			"clusterrole.rbac.authorization.k8s.io/fed-apiserver", "role.rbac.authorization.k8s.io/fed-apiserver:leader-election"} {
			if !strings.Contains(out, want) {
				t.Errorf("the dry run did not apply %s:\n%s", want, out)
			}
		}
		if !strings.Contains(out, "(server dry run)") {
			t.Errorf("not a server-side dry run:\n%s", out)
		}
		return out
	}

	t.Run("artifacts/deploy", func(t *testing.T) {
		out := dryRun(t, "", "-f", filepath.Join(root, "artifacts", "deploy"))
		if !strings.Contains(out, "statefulset.apps/fed-apiserver") {
			t.Errorf("artifacts/deploy has no StatefulSet:\n%s", out)
		}
	})

	tls := []string{"--set", "tls.crt=-----BEGIN CERTIFICATE-----", "--set", "tls.key=-----BEGIN PRIVATE KEY-----",
		"--set", "tls.ca=-----BEGIN CERTIFICATE-----"}
	for _, c := range []struct {
		name string
		set  []string
		want []string
	}{
		{"badger", []string{"--set", "storage.badger.size=1Gi"}, []string{"statefulset.apps/fed-apiserver", "secret/fed-apiserver-serving"}},
		{"etcd3", []string{"--set", "storage.mode=etcd3", "--set", "storage.etcd.servers={https://etcd-0.etcd:2379,https://etcd-1.etcd:2379}",
			"--set", "storage.etcd.certsSecret=etcd-client"},
			[]string{"deployment.apps/fed-apiserver", "poddisruptionbudget.policy/fed-apiserver", "secret/fed-apiserver-serving"}},
	} {
		t.Run("chart "+c.name, func(t *testing.T) {
			// The lab's Namespace fed-system exists: helm install --create-namespace's way.
			rendered, err := helm(append(append([]string{"template", "fed", chart, "--set", "namespace.create=false"}, tls...), c.set...)...)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			out := dryRun(t, rendered, "-f", "-")
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the dry run did not apply %s:\n%s", w, out)
				}
			}
		})
	}

	t.Run("badger with 2 replicas", func(t *testing.T) {
		out, err := helm("template", "fed", chart, "--set", "replicas=2")
		if err == nil {
			t.Fatalf("helm template of a Badger chart with replicas=2 succeeded:\n%s", out)
		}
		if want := "storage.mode=badger runs one replica"; !strings.Contains(err.Error(), want) {
			t.Errorf("helm template: %v, want %q", err, want)
		}
	})

	checkUntouched(t, before)
}

// fedRegistration is the lab's registration of fed-apiserver in its host: its APIServices
// and its Service of type ExternalName, with their resourceVersions. Dry runs of an install
// must leave it as it is.
func fedRegistration(t *testing.T) string {
	t.Helper()
	host := theLab.Host.Kubeconfig
	out := kubectl(t, host, "get", "apiservices", "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion}{\"\\n\"}{end}")
	var fed []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "fedhq.io=") {
			fed = append(fed, l)
		}
	}
	return strings.Join(fed, " ") + " | " + kubectl(t, host, "get", "-n", "fed-system", "service/fed-apiserver", "-o", "jsonpath={.spec.type} {.metadata.resourceVersion}")
}

// checkUntouched fails when dry runs of an install changed the lab's host: its
// registration of fed-apiserver is no longer before, or an install's workload, serving
// Secret or PodDisruptionBudget exists.
func checkUntouched(t *testing.T, before string) {
	t.Helper()
	if got := fedRegistration(t); got != before {
		t.Errorf("the dry runs changed the lab's fed-apiserver registration: before %s, after %s", before, got)
	}
	for _, o := range []string{"statefulset/fed-apiserver", "deployment/fed-apiserver", "secret/fed-apiserver-serving", "poddisruptionbudget/fed-apiserver"} {
		if out := kubectl(t, theLab.Host.Kubeconfig, "get", "-n", "fed-system", o, "--ignore-not-found", "-o", "name"); out != "" {
			t.Errorf("the dry runs created %s", out)
		}
	}
}
