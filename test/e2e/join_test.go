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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// TestKubectlFedJoin runs the real plugin binary as a user would: join member3, refuse to
// join it twice, taint and cordon it, and unjoin it, checking both sides each time.
func TestKubectlFedJoin(t *testing.T) {
	ctx := context.Background()
	fed := buildKubectlFed(t)
	hostKubeconfig := theLab.Host.Kubeconfig
	m3 := theLab.Member("member3")

	host, fedClient := hostClients(t)
	clusters := fedClient.ClusterV1alpha1().Clusters()
	member, err := m3.Client()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := member.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	memberID := string(ks.UID)

	// run runs kubectl fed against the host and returns its standard output and error.
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(fed, append([]string{"--kubeconfig", hostKubeconfig}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	// ok runs a command that must succeed with exactly want on standard output.
	ok := func(want string, args ...string) {
		t.Helper()
		out, errOut, err := run(args...)
		if err != nil {
			t.Fatalf("kubectl fed %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		if out != want+"\n" {
			t.Fatalf("kubectl fed %s printed %q, want %q", strings.Join(args, " "), out, want+"\n")
		}
	}
	// fails runs a command that must fail with wantErr in its standard error.
	fails := func(wantErr string, args ...string) {
		t.Helper()
		out, errOut, err := run(args...)
		if err == nil {
			t.Fatalf("kubectl fed %s succeeded (%q), want an error", strings.Join(args, " "), out)
		}
		if !strings.Contains(errOut, wantErr) {
			t.Fatalf("kubectl fed %s: error %q, want it to contain %q", strings.Join(args, " "), errOut, wantErr)
		}
	}

	// The lab joined member3 as member3: that join must refuse a second name, and then
	// make way for this test's own join; the lab joins it again at the end. A run that
	// died half-way may have left it joined under an e2e name.
	list, err := clusters.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := theLab.JoinMembers(ctx); err != nil {
			t.Errorf("joining the lab's members again: %v", err)
		}
	})
	for _, c := range list.Items {
		if c.Spec.ID != memberID {
			continue
		}
		if c.Name == m3.Name {
			fails("is already joined as member3; unjoin member3 first", "join", "e2e-m3-second", "--cluster-kubeconfig", m3.Kubeconfig, "--wait=false")
		} else if !strings.HasPrefix(c.Name, "e2e-m3-") {
			t.Fatalf("member3 is joined as %s by someone else; this test needs it free", c.Name)
		}
		ok("cluster.cluster.fedhq.io/"+c.Name+" unjoined", "unjoin", c.Name, "--cluster-kubeconfig", m3.Kubeconfig)
	}

	name := fmt.Sprintf("e2e-m3-%d", time.Now().UnixNano()%1_000_000)
	other := name + "-again"
	ref := "cluster.cluster.fedhq.io/" + name
	t.Cleanup(func() {
		_, _, _ = run("unjoin", name, "--cluster-kubeconfig", m3.Kubeconfig)
		_ = clusters.Delete(ctx, other, metav1.DeleteOptions{})
	})

	// Join.
	ok(ref+" joined", "join", name, "--cluster-kubeconfig", m3.Kubeconfig,
		"--region", "us-east", "--zone", "us-east-1a", "--provider", "aws", "--label", "e2e=join", "--wait=false")

	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Spec
	if s.ID != memberID || s.SyncMode != clusterv1alpha1.Push || s.APIEndpoint != m3.URL() ||
		s.Region != "us-east" || s.Zone != "us-east-1a" || s.Provider != "aws" || c.Labels["e2e"] != "join" ||
		s.SecretRef == nil || *s.SecretRef != (clusterv1alpha1.LocalSecretReference{Namespace: "fed-system", Name: name}) {
		t.Fatalf("cluster %s: labels %v, spec %+v", name, c.Labels, s)
	}

	secret, err := host.CoreV1().Secrets("fed-system").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m3Cfg, err := m3.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	wantCA := m3Cfg.CAData
	if len(wantCA) == 0 {
		if wantCA, err = os.ReadFile(m3Cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(secret.Data["caBundle"], wantCA) || len(secret.Data["token"]) == 0 {
		t.Fatalf("host secret fed-system/%s: caBundle matches %v, token of %d bytes", name, bytes.Equal(secret.Data["caBundle"], wantCA), len(secret.Data["token"]))
	}

	// The stored credentials work and are fed's service account with cluster-admin.
	asFed := kubernetes.NewForConfigOrDie(&rest.Config{
		Host:            c.Spec.APIEndpoint,
		BearerToken:     string(secret.Data["token"]),
		TLSClientConfig: rest.TLSClientConfig{CAData: secret.Data["caBundle"]},
	})
	review, err := asFed.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the stored token does not authenticate at the member: %v", err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:fed-system:fed"; got != want {
		t.Fatalf("the stored token is %s, want %s", got, want)
	}
	if _, err := asFed.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("fed's service account cannot list secrets in the member: %v", err)
	}

	if _, err := member.CoreV1().ServiceAccounts("fed-system").Get(ctx, "fed", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	crb, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if crb.RoleRef.Name != "cluster-admin" || !slices.Contains(crb.Subjects,
		rbacv1.Subject{Kind: "ServiceAccount", Name: "fed", Namespace: "fed-system"}) {
		t.Fatalf("binding fed: roleRef %+v, subjects %+v", crb.RoleRef, crb.Subjects)
	}

	// Joining again under the same name is fine, and waits until the cluster controller
	// reports the member Ready.
	ok(ref+" joined", "join", name, "--cluster-kubeconfig", m3.Kubeconfig,
		"--region", "us-east", "--zone", "us-east-1a", "--provider", "aws", "--timeout", "60s")

	// The same member under another name is refused, naming the first.
	fails("is already joined as "+name+"; unjoin "+name+" first",
		"join", other, "--cluster-kubeconfig", m3.Kubeconfig, "--wait=false")
	if _, err := clusters.Get(ctx, other, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster %s after a refused join: %v", other, err)
	}

	// Taints, as kubectl taint nodes.
	taints := func() []corev1.Taint {
		t.Helper()
		c, err := clusters.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Spec.Taints
	}
	has := func(key, value string, effect corev1.TaintEffect) bool {
		return slices.ContainsFunc(taints(), func(t corev1.Taint) bool {
			return t.Key == key && t.Value == value && t.Effect == effect
		})
	}
	ok(ref+" tainted", "taint", "clusters", name, "dedicated=gpu:NoSchedule")
	if !has("dedicated", "gpu", corev1.TaintEffectNoSchedule) {
		t.Fatalf("taints %+v", taints())
	}
	fails("cluster "+name+" already has dedicated taint(s) with same effect(s) and --overwrite is false",
		"taint", "clusters", name, "dedicated=ml:NoSchedule")
	ok(ref+" modified", "taint", "clusters", name, "dedicated=ml:NoSchedule", "--overwrite")
	if !has("dedicated", "ml", corev1.TaintEffectNoSchedule) || has("dedicated", "gpu", corev1.TaintEffectNoSchedule) {
		t.Fatalf("taints after --overwrite %+v", taints())
	}
	ok(ref+" tainted", "taint", "cluster", name, "evict=now:NoExecute")
	fails(`taint "dedicated:NoExecute" not found`, "taint", "clusters", name, "dedicated:NoExecute-")
	fails("invalid taint effect: PreferNoSchedule", "taint", "clusters", name, "x=y:PreferNoSchedule")
	ok(ref+" untainted", "taint", "clusters", name, "dedicated:NoSchedule-")
	ok(ref+" untainted", "taint", "clusters", name, "evict-")
	if has("dedicated", "ml", corev1.TaintEffectNoSchedule) || has("evict", "now", corev1.TaintEffectNoExecute) {
		t.Fatalf("taints after removal %+v", taints())
	}
	fails(`taint "dedicated" not found`, "taint", "clusters", name, "dedicated-")
	fails(`Error from server (NotFound): clusters.cluster.fedhq.io "`+name+`-missing" not found`,
		"taint", "clusters", name+"-missing", "a=b:NoSchedule")

	// Cordon and uncordon.
	ok(ref+" cordoned", "cordon", name)
	if !has("cluster.fedhq.io/unschedulable", "", corev1.TaintEffectNoSchedule) {
		t.Fatalf("taints after cordon %+v", taints())
	}
	ok(ref+" already cordoned", "cordon", name)
	ok(ref+" uncordoned", "uncordon", name)
	if has("cluster.fedhq.io/unschedulable", "", corev1.TaintEffectNoSchedule) {
		t.Fatalf("taints after uncordon %+v", taints())
	}
	ok(ref+" already uncordoned", "uncordon", name)

	// Unjoin with another member's kubeconfig is refused; with member3's it cleans up both sides.
	fails("is not cluster "+name, "unjoin", name, "--cluster-kubeconfig", theLab.Member("member1").Kubeconfig)
	ok(ref+" unjoined", "unjoin", name, "--cluster-kubeconfig", m3.Kubeconfig)
	if _, err := clusters.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster after unjoin: %v", err)
	}
	if _, err := host.CoreV1().Secrets("fed-system").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("host secret after unjoin: %v", err)
	}
	if _, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("member binding after unjoin: %v", err)
	}
	if _, err := member.CoreV1().ServiceAccounts("fed-system").Get(ctx, "fed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("member service account after unjoin: %v", err)
	}
	waitFor(t, 60*time.Second, func() error {
		_, err := member.CoreV1().Namespaces().Get(ctx, "fed-system", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("member namespace fed-system still there (%v)", err)
	})
	fails(`Error from server (NotFound): clusters.cluster.fedhq.io "`+name+`" not found`, "unjoin", name)
}

// TestUnjoinRemovesCopies: kubectl fed unjoin removes from the member what fed propagated
// there before the Cluster goes (and nothing else), so that a member joined again holds
// only what its placement now says. The fault campaign found copies that an unjoin left in
// member3 and that no binding placed there after it was joined again: fed never looked at
// them again.
func TestUnjoinRemovesCopies(t *testing.T) {
	fed := buildKubectlFed(t)
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m3 := theLab.Member("member3")
	m1, m3k := memberKubeconfig("member1"), m3.Kubeconfig
	t.Cleanup(func() {
		if err := theLab.JoinMembers(context.Background()); err != nil {
			t.Errorf("joining the lab's members again: %v", err)
		}
	})
	policy := func(clusters string) {
		kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: web}
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  placement:
    clusterAffinity:
      clusterNames: [`+clusters+`]
`, "apply", "-n", ns, "-f", "-")
	}
	kubectl(t, fleet, "create", "configmap", "web", "-n", ns, "--from-literal=v=1")
	kubectl(t, fleet, "create", "deployment", "web", "-n", ns, "--image=nginx:fleet")
	policy("member1, member3")
	// solo goes to member3 alone: while member3 is away its binding has nowhere else to
	// go and keeps member3, so its Work, deleted with member3's execution namespace, must
	// be made again when member3 is back.
	kubectl(t, fleet, "create", "configmap", "solo", "-n", ns)
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: solo
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: solo}
  placement:
    clusterAffinity:
      clusterNames: [member3]
`, "apply", "-n", ns, "-f", "-")
	solo := []string{"get", "configmap", "solo", "-n", ns, "--ignore-not-found", "-o", "name"}
	expectOutput(t, time.Minute, m3k, "configmap/solo", solo...)
	copies := []string{"get", "configmap,deployment", "-n", ns, "-l", "federation.fedhq.io/managed=true,app!=solo", "-o", "name"}
	kubectl(t, fleet, "label", "configmap", "solo", "-n", ns, "app=solo")
	both := "configmap/web\ndeployment.apps/web"
	expectOutput(t, time.Minute, m3k, both, copies...)
	// An object of the member's own in the same namespace stays.
	kubectl(t, m3k, "create", "configmap", "mine", "-n", ns)

	unjoin := exec.Command(fed, "--kubeconfig", theLab.Host.Kubeconfig, "unjoin", "member3", "--cluster-kubeconfig", m3k)
	if out, err := unjoin.CombinedOutput(); err != nil {
		t.Fatalf("kubectl fed unjoin member3: %v\n%s", err, out)
	}
	// Gone from member3 when unjoin returns; member1 keeps its copies.
	expectOutput(t, 0, m3k, "", copies...)
	expectOutput(t, 0, m3k, "", solo...)
	expectOutput(t, 0, m3k, "configmap/mine", "get", "configmap", "mine", "-n", ns, "-o", "name")
	expectOutput(t, 5*time.Second, m1, both, copies...)

	// Joined again after the policy left member3 out: nothing of fed's comes back there but
	// solo.
	policy("member1")
	if err := theLab.JoinMembers(context.Background()); err != nil {
		t.Fatal(err)
	}
	expectOutput(t, time.Minute, m3k, "configmap/solo", solo...)
	holds(t, 10*time.Second, func() error {
		out, err := runKubectl(m3k, copies...)
		if err != nil || out != "" {
			return fmt.Errorf("member3 holds %q (%v), want nothing of fed's but solo", out, err)
		}
		return nil
	})
	// And placed there again, they come.
	policy("member1, member3")
	expectOutput(t, time.Minute, m3k, both, copies...)
}
