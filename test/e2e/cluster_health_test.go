package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// TestClusterHealth joins member2 as a Cluster by hand (a token of a cluster-admin service
// account in a host Secret), then checks that fed-apiserver's cluster controller reports it
// Ready with its version, nodes and capacity, marks it unreachable and taints it when its
// apiserver stops, and clears both when it is back.
func TestClusterHealth(t *testing.T) {
	ctx := context.Background()
	const name = "e2e-member2"
	member := theLab.Member("member2")
	if member == nil {
		t.Fatal("the lab has no member2")
	}
	host, fed := hostClients(t)
	clusters := fed.ClusterV1alpha1().Clusters()

	endpoint, token, ca := memberCredentials(t, member.Kubeconfig)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: clusterv1alpha1.FedNamespace},
		Data:       map[string][]byte{clusterv1alpha1.SecretTokenKey: []byte(token), clusterv1alpha1.SecretCABundleKey: ca},
	}
	_ = host.CoreV1().Secrets(secret.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	_ = clusters.Delete(ctx, name, metav1.DeleteOptions{})
	if _, err := host.CoreV1().Secrets(secret.Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = host.CoreV1().Secrets(secret.Namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.ClusterSpec{
			APIEndpoint: endpoint,
			SecretRef:   &clusterv1alpha1.LocalSecretReference{Namespace: secret.Namespace, Name: name},
			// A user's taint, which the controller must leave alone.
			Taints: []corev1.Taint{{Key: "example.com/team", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	if _, err := clusters.Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clusters.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	get := func() (*clusterv1alpha1.Cluster, error) { return clusters.Get(ctx, name, metav1.GetOptions{}) }
	start := time.Now()
	waitFor(t, 15*time.Second, func() error {
		c, err := get()
		if err != nil {
			return err
		}
		if err := readyAndUntainted(c); err != nil {
			return err
		}
		s := c.Status
		if s.KubernetesVersion != "v1.32.4" {
			return fmt.Errorf("kubernetesVersion %q, want v1.32.4", s.KubernetesVersion)
		}
		if s.NodeSummary == nil || s.NodeSummary.TotalNum != 2 || s.NodeSummary.ReadyNum != 2 {
			return fmt.Errorf("nodeSummary %+v, want 2 nodes, 2 ready", s.NodeSummary)
		}
		if s.ResourceSummary == nil || s.ResourceSummary.Allocatable.Cpu().Value() != 16 {
			return fmt.Errorf("resourceSummary %+v, want 16 allocatable cpu", s.ResourceSummary)
		}
		if !servesDeployments(s.APIEnablements) {
			return fmt.Errorf("apiEnablements lack apps/v1 deployments: %+v", s.APIEnablements)
		}
		return nil
	})
	t.Logf("Ready with version, nodes and capacity after %s", time.Since(start).Round(100*time.Millisecond))

	// Whatever happens below, leave member2 running for the other tests.
	memberDown := true
	t.Cleanup(func() {
		if !memberDown {
			return
		}
		restartControlPlane(t, "member2")
	})
	start = time.Now()
	if err := theLab.StopProcess("member2-apiserver"); err != nil {
		t.Fatal(err)
	}
	t.Logf("member2-apiserver stopped in %s", time.Since(start).Round(100*time.Millisecond))
	waitFor(t, 30*time.Second-time.Since(start), func() error {
		c, err := get()
		if err != nil {
			return err
		}
		ready := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		if ready == nil || ready.Status == metav1.ConditionTrue || ready.Reason != "ClusterUnreachable" {
			return fmt.Errorf("Ready condition %+v, want not True, reason ClusterUnreachable", ready)
		}
		if !hasTaint(c.Spec.Taints, clusterv1alpha1.TaintClusterUnreachable) || !hasTaint(c.Spec.Taints, "example.com/team") {
			return fmt.Errorf("taints %+v, want %s and the user's taint", c.Spec.Taints, clusterv1alpha1.TaintClusterUnreachable)
		}
		if c.Status.KubernetesVersion != "v1.32.4" {
			return fmt.Errorf("kubernetesVersion %q: the last observed one should be kept", c.Status.KubernetesVersion)
		}
		return nil
	})
	t.Logf("unreachable and tainted %s after the stop began", time.Since(start).Round(100*time.Millisecond))

	restartControlPlane(t, "member2")
	memberDown = false
	start = time.Now()
	waitFor(t, 15*time.Second, func() error {
		c, err := get()
		if err != nil {
			return err
		}
		return readyAndUntainted(c)
	})
	t.Logf("Ready and untainted %s after member2 was back", time.Since(start).Round(100*time.Millisecond))
}

// restartControlPlane starts a member's stopped apiserver again with the lab's Up. A
// kube-controller-manager that outlived its apiserver's restart stops filling service-account
// token Secrets (which join needs), so the member's controller manager and scheduler are
// restarted too, as after a real outage, leaving the lab as the other tests expect it.
func restartControlPlane(t testing.TB, member string) {
	t.Helper()
	for _, p := range []string{member + "-controller-manager", member + "-scheduler"} {
		if err := theLab.StopProcess(p); err != nil {
			t.Errorf("stopping %s: %v", p, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := theLab.Up(ctx); err != nil {
		t.Fatalf("restarting the lab: %v", err)
	}
}

// memberCredentials gives fed a cluster-admin service account in the member, as kubectl fed
// join does (nothing is created when the lab already joined the member):
// it returns the member's endpoint, a token of fed-system/fed and the member's CA bundle.
func memberCredentials(t *testing.T, kubeconfig string) (endpoint, token string, ca []byte) {
	t.Helper()
	ctx := context.Background()
	cfg, err := clientConfigFor(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ca = cfg.CAData
	if len(ca) == 0 {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns, sa := clusterv1alpha1.FedNamespace, clusterv1alpha1.MemberServiceAccount
	create := func(what string, err error) {
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating %s in the member: %v", what, err)
		}
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	create("namespace "+ns, err)
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	create("service account "+sa, err)
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "fed"}, // the name kubectl fed join gives it
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa}},
	}, metav1.CreateOptions{})
	create("cluster role binding fed", err)
	expiry := int64(time.Hour / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Host, tr.Status.Token, ca
}

func readyAndUntainted(c *clusterv1alpha1.Cluster) error {
	ready := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != "ClusterReady" {
		return fmt.Errorf("Ready condition %+v, want True, reason ClusterReady", ready)
	}
	if hasTaint(c.Spec.Taints, clusterv1alpha1.TaintClusterUnreachable) || hasTaint(c.Spec.Taints, clusterv1alpha1.TaintClusterNotReady) {
		return fmt.Errorf("taints %+v, want no health taint", c.Spec.Taints)
	}
	if !hasTaint(c.Spec.Taints, "example.com/team") {
		return fmt.Errorf("taints %+v: the user's taint is gone", c.Spec.Taints)
	}
	return nil
}

func hasTaint(taints []corev1.Taint, key string) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Key == key && t.Effect == corev1.TaintEffectNoSchedule })
}

func servesDeployments(enablements []clusterv1alpha1.APIEnablement) bool {
	for _, e := range enablements {
		if e.GroupVersion == "apps/v1" {
			return slices.Contains(e.Resources, clusterv1alpha1.APIResource{Name: "deployments", Kind: "Deployment"})
		}
	}
	return false
}

// TestClusterHealthCredentials checks the controller follows a member's credentials: no
// Secret makes the Cluster unreachable, the Secret's creation makes it Ready, and a token
// the member rejects makes it not ready (the member answers, but not to fed).
func TestClusterHealthCredentials(t *testing.T) {
	ctx := context.Background()
	const name = "e2e-member3-credentials"
	member := theLab.Member("member3")
	if member == nil {
		t.Fatal("the lab has no member3")
	}
	host, fed := hostClients(t)
	clusters := fed.ClusterV1alpha1().Clusters()
	secrets := host.CoreV1().Secrets(clusterv1alpha1.FedNamespace)
	endpoint, token, ca := memberCredentials(t, member.Kubeconfig)
	_ = secrets.Delete(ctx, name, metav1.DeleteOptions{})
	_ = clusters.Delete(ctx, name, metav1.DeleteOptions{})

	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.ClusterSpec{
			APIEndpoint: endpoint,
			SecretRef:   &clusterv1alpha1.LocalSecretReference{Namespace: clusterv1alpha1.FedNamespace, Name: name},
		},
	}
	if _, err := clusters.Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clusters.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	t.Cleanup(func() { _ = secrets.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	expect := func(what string, timeout time.Duration, status metav1.ConditionStatus, reason, taint string) {
		t.Helper()
		start := time.Now()
		waitFor(t, timeout, func() error {
			c, err := clusters.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ready := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			if ready == nil || ready.Status != status || ready.Reason != reason {
				return fmt.Errorf("Ready condition %+v, want %s, reason %s", ready, status, reason)
			}
			for _, key := range []string{clusterv1alpha1.TaintClusterNotReady, clusterv1alpha1.TaintClusterUnreachable} {
				if hasTaint(c.Spec.Taints, key) != (key == taint) {
					return fmt.Errorf("taints %+v, want only the health taint %q", c.Spec.Taints, taint)
				}
			}
			return nil
		})
		t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond))
	}

	expect("no Secret: unreachable", 10*time.Second, metav1.ConditionUnknown, "ClusterUnreachable", clusterv1alpha1.TaintClusterUnreachable)

	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: clusterv1alpha1.FedNamespace},
		Data:       map[string][]byte{clusterv1alpha1.SecretTokenKey: []byte(token), clusterv1alpha1.SecretCABundleKey: ca},
	}
	var err error
	if secret, err = secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Secret created: Ready", 10*time.Second, metav1.ConditionTrue, "ClusterReady", "")

	secret.Data[clusterv1alpha1.SecretTokenKey] = []byte("not-a-token")
	if _, err := secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("token rejected: not ready", 10*time.Second, metav1.ConditionFalse, "ClusterNotReady", clusterv1alpha1.TaintClusterNotReady)
}

// TestClusterAPIsFollowMember: a CRD made in member3 shows in its Cluster's
// status.apiEnablements within a few probes, and leaves it once deleted. fed reads a
// member's discovery with the ETag of its last answer; this is the document changing between
// two unchanged (304) answers.
func TestClusterAPIsFollowMember(t *testing.T) {
	ctx := context.Background()
	member := theLab.Member("member3")
	if member == nil {
		t.Fatal("the lab has no member3")
	}
	_, fed := hostClients(t)
	group := fmt.Sprintf("e2e-apis-%d.example.io", time.Now().UnixNano()%1_000_000_000)
	kubectlStdin(t, member.Kubeconfig, gadgetsCRD(group), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(member.Kubeconfig, "delete", "crd", "gadgets."+group, "--ignore-not-found") })
	serves := func() (bool, error) {
		c, err := fed.ClusterV1alpha1().Clusters().Get(ctx, "member3", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range c.Status.APIEnablements {
			if e.GroupVersion == group+"/v1" {
				return slices.ContainsFunc(e.Resources, func(r clusterv1alpha1.APIResource) bool { return r.Name == "gadgets" && r.Kind == "Gadget" }), nil
			}
		}
		return false, nil
	}
	start := time.Now()
	waitFor(t, 30*time.Second, func() error {
		if ok, err := serves(); err != nil || !ok {
			return fmt.Errorf("member3's apiEnablements lack %s/v1 gadgets (%v)", group, err)
		}
		return nil
	})
	t.Logf("in apiEnablements %s after the CRD was made", time.Since(start).Round(100*time.Millisecond))
	kubectl(t, member.Kubeconfig, "delete", "crd", "gadgets."+group)
	start = time.Now()
	waitFor(t, 30*time.Second, func() error {
		if ok, err := serves(); err != nil || ok {
			return fmt.Errorf("member3's apiEnablements still have %s/v1 gadgets (%v)", group, err)
		}
		return nil
	})
	t.Logf("out of apiEnablements %s after the CRD was deleted", time.Since(start).Round(100*time.Millisecond))
}
