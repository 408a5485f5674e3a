package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	pluginfleet "github.com/fedhq/fed/plugin/fleet"
)

// rows parses a table of kubectl fed get into its rows' fields, keyed "NAME CLUSTER".
func rows(out string) map[string][]string {
	m := map[string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 2 {
			continue
		}
		m[f[0]+" "+f[1]] = f
	}
	return m
}

// TestFedGet creates a Deployment by hand in member1 and member2 and a template of the same
// name in the fleet, then checks kubectl fed get: the table with CLUSTER and ADOPTION, the
// pods of the members, -o yaml with the cluster of each item, and the warnings and exit
// code for an unknown cluster and a cluster whose proxy fails.
func TestFedGet(t *testing.T) {
	ctx := context.Background()
	bin := buildKubectlFed(t)
	ns := fmt.Sprintf("e2e-get-%d", time.Now().UnixNano()%1000000)
	fleet := theLab.FleetKubeconfig()
	members := []string{"member1", "member2"}
	for _, m := range members {
		kc := theLab.Member(m).Kubeconfig
		kubectl(t, kc, "create", "namespace", ns)
		t.Cleanup(func() { _, _ = runKubectl(kc, "delete", "namespace", ns, "--wait=false") })
		kubectl(t, kc, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=1", "-n", ns)
	}
	kubectl(t, fleet, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, fleet, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "-n", ns)

	t.Run("deployments", func(t *testing.T) {
		out, stderr, err := runFed(bin, "get", "deploy", "--all-clusters", "-n", ns)
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if !strings.HasPrefix(out, "NAME ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "CLUSTER") {
			t.Errorf("header of\n%s", out)
		}
		r := rows(out)
		for key, adoption := range map[string]string{"web -": "-", "web member1": "N", "web member2": "N"} {
			f, ok := r[key]
			if !ok {
				t.Errorf("no row %q in\n%s", key, out)
				continue
			}
			if got := f[len(f)-1]; got != adoption {
				t.Errorf("row %q: ADOPTION %q, want %q", key, got, adoption)
			}
		}
		if _, ok := r["web member3"]; ok {
			t.Errorf("member3 has no Deployment web in %s:\n%s", ns, out)
		}
		// Without member flags, only the template.
		out, stderr, err = runFed(bin, "get", "deployments.apps", "-n", ns)
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if r := rows(out); len(r) != 1 || r["web -"] == nil {
			t.Errorf("templates only, got\n%s", out)
		}
	})

	t.Run("pods", func(t *testing.T) {
		var out string
		waitFor(t, 30*time.Second, func() error {
			o, stderr, err := runFed(bin, "get", "pods", "-n", ns)
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			out = o
			running := map[string]bool{}
			for _, f := range rows(o) {
				if len(f) >= 4 && f[3] == "Running" {
					running[f[1]] = true
				}
			}
			if !running["member1"] || !running["member2"] {
				return fmt.Errorf("want a Running pod in member1 and member2:\n%s", o)
			}
			return nil
		})
		for _, f := range rows(out) {
			if f[1] == "-" || f[len(f)-1] != "N" {
				t.Errorf("row %v: want a member and ADOPTION N", f)
			}
		}
	})

	t.Run("yaml", func(t *testing.T) {
		out, stderr, err := runFed(bin, "get", "deploy", "web", "--all-clusters", "-n", ns, "-o", "yaml")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		j, err := yaml.YAMLToJSON([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		var list unstructured.UnstructuredList
		if err := list.UnmarshalJSON(j); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, item := range list.Items {
			cluster := item.GetAnnotations()[pluginfleet.AnnotationCluster]
			seen[cluster] = true
			kc := fleet
			if cluster != "" {
				kc = theLab.Member(cluster).Kubeconfig
			}
			// Re-read the object where the annotation says it lives.
			again := kubectl(t, kc, "get", "deployment", item.GetName(), "-n", item.GetNamespace(), "-o", "jsonpath={.metadata.uid}")
			if again != string(item.GetUID()) || item.GetName() != "web" || item.GetNamespace() != ns {
				t.Errorf("item %s/%s of %q: uid %s, re-read %s", item.GetNamespace(), item.GetName(), cluster, item.GetUID(), again)
			}
		}
		if len(list.Items) != 3 || !seen[""] || !seen["member1"] || !seen["member2"] {
			t.Errorf("want the template and the Deployments of member1 and member2, got clusters %v", seen)
		}
	})

	t.Run("unknown-cluster", func(t *testing.T) {
		out, stderr, err := runFed(bin, "get", "pods", "-C", "member1,nosuch", "-n", ns)
		if err == nil {
			t.Errorf("exit 0, want non-zero")
		}
		if !strings.Contains(stderr, "Warning: cluster nosuch") {
			t.Errorf("stderr %q: no warning naming nosuch", stderr)
		}
		r := rows(out)
		if len(r) == 0 {
			t.Errorf("member1's pods not shown:\n%s", out)
		}
		for _, f := range r {
			if f[1] != "member1" {
				t.Errorf("row %v: want member1 only", f)
			}
		}
	})

	t.Run("cluster-down", func(t *testing.T) {
		host, fed := hostClients(t)
		const name = "e2e-down"
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: clusterv1alpha1.FedNamespace},
			Data:       map[string][]byte{clusterv1alpha1.SecretTokenKey: []byte("dummy")},
		}
		_ = host.CoreV1().Secrets(secret.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
		_ = fed.ClusterV1alpha1().Clusters().Delete(ctx, name, metav1.DeleteOptions{})
		if _, err := host.CoreV1().Secrets(secret.Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = host.CoreV1().Secrets(secret.Namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
		})
		cluster := &clusterv1alpha1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: clusterv1alpha1.ClusterSpec{
				APIEndpoint: "https://127.0.0.1:1",
				SecretRef:   &clusterv1alpha1.LocalSecretReference{Namespace: secret.Namespace, Name: name},
			},
		}
		if _, err := fed.ClusterV1alpha1().Clusters().Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Gone, not only deleted: a Cluster is cleaned up before it goes, and the next
			// subtest asks every cluster.
			_ = fed.ClusterV1alpha1().Clusters().Delete(context.Background(), name, metav1.DeleteOptions{})
			waitFor(t, time.Minute, func() error {
				if _, err := fed.ClusterV1alpha1().Clusters().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("cluster %s still there (%v)", name, err)
				}
				return nil
			})
		})
		start := time.Now()
		out, stderr, err := runFed(bin, "get", "deploy", "--all-clusters", "-n", ns)
		t.Logf("with a cluster down: %s", time.Since(start).Round(time.Millisecond))
		if err == nil {
			t.Errorf("exit 0, want non-zero")
		}
		if !strings.Contains(stderr, "Warning: cluster "+name+":") {
			t.Errorf("stderr %q: no warning naming %s", stderr, name)
		}
		r := rows(out)
		for _, key := range []string{"web -", "web member1", "web member2"} {
			if r[key] == nil {
				t.Errorf("no row %q in\n%s", key, out)
			}
		}
	})

	t.Run("not-found", func(t *testing.T) {
		_, stderr, err := runFed(bin, "get", "deploy", "nosuch", "--all-clusters", "-n", ns)
		if err == nil || !strings.Contains(stderr, "NotFound") {
			t.Errorf("err %v, stderr %q: want NotFound", err, stderr)
		}
		// Found in member1 only: no error.
		kubectl(t, theLab.Member("member1").Kubeconfig, "create", "deployment", "only1", "--image=nginx:1.27", "-n", ns)
		out, stderr, err := runFed(bin, "get", "deploy", "only1", "--all-clusters", "-n", ns)
		if err != nil || rows(out)["only1 member1"] == nil {
			t.Errorf("err %v, stderr %q, out\n%s", err, stderr, out)
		}
	})
}
