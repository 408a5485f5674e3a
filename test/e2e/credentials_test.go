package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// storedToken is a member's credentials as the host Secret holds them.
type storedToken struct {
	token, endpoint string
	ca              []byte
	// expiration is the Secret's annotation; issued and expires the token's claims.
	expiration, issued, expires time.Time
}

// readStoredToken reads the host Secret of a lab member joined with kubectl fed join.
func readStoredToken(t *testing.T, host kubernetes.Interface, cluster string) storedToken {
	t.Helper()
	s, err := host.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Get(context.Background(), cluster, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	value, ok := s.Annotations[clusterv1alpha1.AnnotationTokenExpiration]
	if !ok {
		t.Fatalf("host secret fed-system/%s has no annotation %s (annotations %v)", cluster, clusterv1alpha1.AnnotationTokenExpiration, s.Annotations)
	}
	st := storedToken{token: string(s.Data["token"]), ca: s.Data["caBundle"], endpoint: theLab.Member(cluster).URL()}
	if st.expiration, err = time.Parse(time.RFC3339, value); err != nil {
		t.Fatalf("annotation %s: %v", clusterv1alpha1.AnnotationTokenExpiration, err)
	}
	parts := strings.Split(st.token, ".")
	if len(parts) != 3 {
		t.Fatalf("the token of fed-system/%s is not a JSON Web Token", cluster)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct{ Iat, Exp int64 }
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	st.issued, st.expires = time.Unix(claims.Iat, 0), time.Unix(claims.Exp, 0)
	return st
}

// asFed is a client of the member with the stored token.
func (st storedToken) asFed() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(&rest.Config{Host: st.endpoint, BearerToken: st.token, TLSClientConfig: rest.TLSClientConfig{CAData: st.ca}})
}

// works checks that the member takes the token as fed's service account.
func (st storedToken) works() error {
	review, err := st.asFed().AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("the stored token does not authenticate at %s: %w", st.endpoint, err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:fed-system:fed"; got != want {
		return fmt.Errorf("the stored token is %s, want %s", got, want)
	}
	return nil
}

// TestJoinTokenRequest: the lab's join stored a TokenRequest token of fed with its expiry,
// one of a day that works, and made no non-expiring token Secret in the member.
func TestJoinTokenRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	host, _ := hostClients(t)
	st := readStoredToken(t, host, "member1")
	if !st.expiration.Equal(st.expires) {
		t.Errorf("annotation says the token expires at %s, its claims at %s", st.expiration, st.expires)
	}
	if got := st.expires.Sub(st.issued); got != 24*time.Hour {
		t.Errorf("the token lives %s, want join's default 24h", got)
	}
	if err := st.works(); err != nil {
		t.Fatal(err)
	}
	member, err := theLab.Member("member1").Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := member.CoreV1().Secrets("fed-system").Get(ctx, "fed-token", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("member1's Secret fed-system/fed-token: %v, want NotFound", err)
	}
	role, err := member.RbacV1().Roles("fed-system").Get(ctx, "fed:token-renewal", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := role.Rules; len(r) != 1 || strings.Join(r[0].Resources, ",") != "serviceaccounts/token" || strings.Join(r[0].ResourceNames, ",") != "fed" {
		t.Errorf("role fed:token-renewal rules %+v", r)
	}
}

// TestTokenRenewal: fed renews a token whose recorded expiry is near, with a new token of the
// same lifetime that works, and says on the Cluster when it cannot.
func TestTokenRenewal(t *testing.T) {
	ctx := context.Background()
	host, fed := hostClients(t)
	clusters := fed.ClusterV1alpha1().Clusters()
	secrets := host.CoreV1().Secrets(clusterv1alpha1.FedNamespace)

	old := readStoredToken(t, host, "member1")
	soon := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, clusterv1alpha1.AnnotationTokenExpiration, soon)
	start := time.Now()
	if _, err := secrets.Patch(ctx, "member1", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var renewed storedToken
	waitFor(t, 30*time.Second, func() error {
		renewed = readStoredToken(t, host, "member1")
		if renewed.token == old.token || renewed.expiration.Format(time.RFC3339) == soon {
			return fmt.Errorf("token unchanged (%v), expiration %s", renewed.token == old.token, renewed.expiration)
		}
		return nil
	})
	t.Logf("renewed in %s", time.Since(start).Round(100*time.Millisecond))
	if !renewed.expiration.Equal(renewed.expires) || renewed.expires.Sub(renewed.issued) != 24*time.Hour || renewed.expiration.Before(time.Now().Add(23*time.Hour)) {
		t.Errorf("renewed token: recorded expiry %s, claims %s to %s, want a new token of 24h", renewed.expiration, renewed.issued, renewed.expires)
	}
	if err := renewed.works(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() error {
		c, err := clusters.Get(ctx, "member1", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionTokenCurrent)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != "RenewalScheduled" ||
			!strings.Contains(cond.Message, renewed.expiration.UTC().Format(time.RFC3339)) {
			return fmt.Errorf("member1's TokenCurrent condition %+v, want True, RenewalScheduled, with the new expiry", cond)
		}
		if !meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			return fmt.Errorf("member1 is not Ready: %+v", c.Status.Conditions)
		}
		return nil
	})

	// A token the member refuses cannot be renewed: the Cluster says so. (A Cluster of its
	// own on member3, so that no lab member loses its credentials.)
	const name = "e2e-token-renewal"
	_ = clusters.Delete(ctx, name, metav1.DeleteOptions{})
	_ = secrets.Delete(ctx, name, metav1.DeleteOptions{})
	m3 := theLab.Member("member3")
	if _, err := secrets.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{clusterv1alpha1.AnnotationTokenExpiration: soon}},
		Data:       map[string][]byte{"token": []byte("not-a-token"), "caBundle": readStoredToken(t, host, "member3").ca},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = secrets.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if _, err := clusters.Create(ctx, &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: m3.URL(),
			SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: clusterv1alpha1.FedNamespace, Name: name}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clusters.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	waitFor(t, 30*time.Second, func() error {
		c, err := clusters.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionTokenCurrent)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != "RenewalFailed" || !strings.Contains(cond.Message, "Unauthorized") {
			return fmt.Errorf("TokenCurrent condition %+v, want False, RenewalFailed, Unauthorized", cond)
		}
		return nil
	})
}

// TestJoinClusterRole re-joins member2 bound to the example's narrower ClusterRole: fed may
// no longer write what the role leaves out, a propagated Deployment still arrives, and the
// proxy still acts as the caller. member2 is joined again with cluster-admin afterwards.
func TestJoinClusterRole(t *testing.T) {
	ctx := context.Background()
	bin := buildKubectlFed(t)
	host, _ := hostClients(t)
	m2 := theLab.Member("member2")
	member, err := m2.Client()
	if err != nil {
		t.Fatal(err)
	}
	join := func(extra ...string) error {
		args := append([]string{"join", m2.Name, "--cluster-kubeconfig", m2.Kubeconfig, "--region", m2.Member.Region,
			"--zone", m2.Member.Zone, "--provider", m2.Member.Provider, "--timeout", "60s"}, extra...)
		if _, stderr, err := runFed(bin, args...); err != nil {
			return fmt.Errorf("kubectl fed %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		return nil
	}

	// A role the member lacks is refused before anything changes.
	if err := join("--cluster-role", "fed:e2e-missing"); err == nil || !strings.Contains(err.Error(), "the member has no ClusterRole fed:e2e-missing") {
		t.Fatalf("join with a missing role: %v", err)
	}

	kubectl(t, m2.Kubeconfig, "apply", "-f", filepath.Join(examples, "member-clusterrole.yaml"))
	t.Cleanup(func() {
		if err := join(); err != nil {
			t.Errorf("joining member2 again with cluster-admin: %v", err)
		}
		if crb, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed", metav1.GetOptions{}); err != nil || crb.RoleRef.Name != "cluster-admin" {
			t.Errorf("member2's binding fed after the test: %v, %+v", err, crb)
		}
		_, _ = runKubectl(m2.Kubeconfig, "delete", "clusterrole", "fed:member", "--ignore-not-found")
	})
	if err := join("--cluster-role", "fed:member"); err != nil {
		t.Fatal(err)
	}
	crb, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if crb.RoleRef.Name != "fed:member" {
		t.Fatalf("binding fed refers to %+v, want ClusterRole fed:member", crb.RoleRef)
	}
	st := readStoredToken(t, host, "member2")
	for _, tc := range []struct {
		attrs authorizationv1.ResourceAttributes
		want  bool
	}{
		{authorizationv1.ResourceAttributes{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "default"}, true},
		{authorizationv1.ResourceAttributes{Verb: "list", Group: "example.com", Resource: "anything"}, true},
		{authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "groups", Name: "system:masters"}, true},
		{authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "fed-system", Name: "fed"}, true},
		{authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "fed-system", Name: "default"}, false},
		{authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, false},
		{authorizationv1.ResourceAttributes{Verb: "create", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, false},
	} {
		r, err := st.asFed().AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tc.attrs}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed != tc.want {
			t.Errorf("fed may %s %s/%s %s: %v, want %v", tc.attrs.Verb, tc.attrs.Resource, tc.attrs.Subresource, tc.attrs.Name, r.Status.Allowed, tc.want)
		}
	}

	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: narrow
spec:
  replicas: 1
  selector: {matchLabels: {app: narrow}}
  template:
    metadata: {labels: {app: narrow}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: narrow
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: narrow}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`, "apply", "-n", ns, "-f", "-")
	expectOutput(t, time.Minute, m2.Kubeconfig, "1/1 true", "get", "deploy", "narrow", "-n", ns, "--ignore-not-found",
		"-o", "jsonpath={.spec.replicas}/{.status.readyReplicas} {.metadata.labels.federation\\.fedhq\\.io/managed}")

	// The proxy impersonates the caller with the narrower role.
	out, stderr, err := runFed(bin, "get", "pods", "-n", ns, "-C", "member2", "--cache=false")
	if err != nil {
		t.Fatalf("kubectl fed get pods -C member2: %v\n%s", err, stderr)
	}
	if r := lines(out); len(r) != 2 || !strings.HasPrefix(r[1], "narrow-") || !strings.Contains(r[1], "member2") || !strings.Contains(r[1], "Running") {
		t.Errorf("kubectl fed get pods -C member2 printed\n%s", out)
	}
	kubectl(t, fleet, "delete", "deploy", "narrow", "-n", ns)
	expectOutput(t, 30*time.Second, m2.Kubeconfig, "", "get", "deploy", "narrow", "-n", ns, "--ignore-not-found", "-o", "name")
}
