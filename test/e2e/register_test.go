package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

// TestKubectlFedRegister registers member3 in pull mode under another name, as a user
// would with the real plugin: a token made on the host, register run against the member
// (the agent not installed), refused while member3 is joined in push mode, fed's
// registration controller approving the certificate the host then issues once it is
// unjoined, and unregister; member3 is joined again at the end. It is not parallel: no
// other test runs while member3 is out of push mode.
func TestKubectlFedRegister(t *testing.T) {
	ctx := context.Background()
	fed := buildKubectlFed(t)
	host, fedClient := hostClients(t)
	clusters := fedClient.ClusterV1alpha1().Clusters()
	m3 := theLab.Member("member3")
	member, err := m3.Client()
	if err != nil {
		t.Fatal(err)
	}
	const name, other = "pullreg", "pullreg2"

	// run runs kubectl fed with a kubeconfig (the host's or the member's).
	run := func(kubeconfig string, args ...string) (string, string, error) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, fed, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	ok := func(kubeconfig string, args ...string) string {
		t.Helper()
		out, errOut, err := run(kubeconfig, args...)
		if err != nil {
			t.Fatalf("kubectl fed %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return out
	}
	fails := func(wantErr string, kubeconfig string, args ...string) string {
		t.Helper()
		out, errOut, err := run(kubeconfig, args...)
		if err == nil {
			t.Fatalf("kubectl fed %s succeeded (%q), want an error", strings.Join(args, " "), out)
		}
		if !strings.Contains(errOut, wantErr) {
			t.Fatalf("kubectl fed %s: error %q, want it to contain %q", strings.Join(args, " "), errOut, wantErr)
		}
		return errOut
	}

	// What the test makes, removed before (a run that died) and after, even on failure.
	var tokenIDs []string
	cleanup := func() {
		for _, n := range []string{name, other} {
			_ = clusters.Delete(ctx, n, metav1.DeleteOptions{})
			lease := clusterv1alpha1.AgentLease(n)
			_ = host.RbacV1().RoleBindings("fed-system").Delete(ctx, lease, metav1.DeleteOptions{})
			_ = host.RbacV1().Roles("fed-system").Delete(ctx, lease, metav1.DeleteOptions{})
			_ = host.CoordinationV1().Leases("fed-system").Delete(ctx, lease, metav1.DeleteOptions{})
		}
		for _, id := range tokenIDs {
			_ = host.CoreV1().Secrets("kube-system").Delete(ctx, "bootstrap-token-"+id, metav1.DeleteOptions{})
		}
		if csrs, err := host.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{}); err == nil {
			for _, c := range csrs.Items {
				if strings.HasPrefix(c.Name, "fed-agent-"+name) || strings.HasPrefix(c.Name, "fed-agent-member1-") {
					_ = host.CertificatesV1().CertificateSigningRequests().Delete(ctx, c.Name, metav1.DeleteOptions{})
				}
			}
		}
		_ = member.AppsV1().Deployments("fed-system").Delete(ctx, "fed-agent", metav1.DeleteOptions{})
		_ = member.CoreV1().Secrets("fed-system").Delete(ctx, "fed-agent", metav1.DeleteOptions{})
		_ = member.CoreV1().ServiceAccounts("fed-system").Delete(ctx, "fed-agent", metav1.DeleteOptions{})
		_ = member.RbacV1().ClusterRoleBindings().Delete(ctx, "fed-agent", metav1.DeleteOptions{})
	}
	cleanup()
	// Last: member3, unjoined below, joins again in push mode once pullreg is gone.
	t.Cleanup(func() {
		if err := theLab.JoinMembers(ctx); err != nil {
			t.Errorf("joining the lab's members again: %v", err)
		}
	})
	t.Cleanup(cleanup)

	// The host's token, and the command that registers with it.
	cmdLine := strings.Fields(ok(theLab.Host.Kubeconfig, "token", "create", "--print-register-command", "--ttl", "10m", "--description", "e2e register"))
	hostCA, err := os.ReadFile(theLab.Host.Dir + "/ca.crt")
	if err != nil {
		t.Fatal(err)
	}
	certs, err := certutil.ParseCertsPEM(hostCA)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(certs[0].RawSubjectPublicKeyInfo)
	wantHash := "sha256:" + hex.EncodeToString(sum[:])
	if len(cmdLine) != 8 || strings.Join(cmdLine[:3], " ") != "kubectl fed register" || cmdLine[3] != theLab.Host.URL() ||
		cmdLine[4] != "--token" || cmdLine[6] != "--discovery-token-ca-cert-hash" || cmdLine[7] != wantHash {
		t.Fatalf("token create --print-register-command printed %q; want the host %s and the hash %s", cmdLine, theLab.Host.URL(), wantHash)
	}
	server, token := cmdLine[3], cmdLine[5]
	id, _, _ := strings.Cut(token, ".")
	tokenIDs = append(tokenIDs, id)
	secret, err := host.CoreV1().Secrets("kube-system").Get(ctx, "bootstrap-token-"+id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if secret.Type != "bootstrap.kubernetes.io/token" || string(secret.Data["auth-extra-groups"]) != clusterv1alpha1.RegisterGroup ||
		string(secret.Data["usage-bootstrap-authentication"]) != "true" || string(secret.Data["usage-bootstrap-signing"]) != "true" ||
		len(secret.Data["expiration"]) == 0 {
		t.Fatalf("the token's Secret: type %s, data %q", secret.Type, secret.Data)
	}

	register := func(cluster string, args ...string) []string {
		return append([]string{"register", server, "--token", token, "--cluster-name", cluster, "--install-agent=false"}, args...)
	}

	// A CA hash that is not the host's is refused before anything is asked of the host.
	fails("the host's CA does not match --discovery-token-ca-cert-hash", m3.Kubeconfig,
		register(name, "--discovery-token-ca-cert-hash", "sha256:"+strings.Repeat("0", 64))...)
	if _, err := clusters.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster %s after a refused register: %v", name, err)
	}

	// member3 is joined in push mode: fed refuses to register it too, under any name.
	fails("this member is in the fleet already, as cluster member3 (Push mode)", m3.Kubeconfig,
		register(name, "--discovery-token-ca-cert-hash", wantHash)...)
	if _, err := clusters.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster %s after a refused register: %v", name, err)
	}
	denied := agentCSR(t, host, name)
	if cond := csrCondition(denied, certificatesv1.CertificateDenied); cond == nil || cond.Reason != "FedAgentOtherMember" {
		t.Fatalf("CSR %s of a member joined in push mode: conditions %+v, want Denied, FedAgentOtherMember", denied.Name, denied.Status.Conditions)
	}
	ok(theLab.Host.Kubeconfig, "unjoin", "member3", "--cluster-kubeconfig", m3.Kubeconfig)

	// Register member3 as pullreg: fed approves, the host issues, the member gets the agent's
	// Secret (no Deployment: --install-agent=false).
	args := register(name, "--discovery-token-ca-cert-hash", wantHash, "--cluster-provider", "aws", "--cluster-region", "us-east", "--cluster-zone", "us-east-1a")
	if out := ok(m3.Kubeconfig, args...); out != "cluster.cluster.fedhq.io/"+name+" registered\n" {
		t.Fatalf("register printed %q", out)
	}
	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Spec; s.SyncMode != clusterv1alpha1.Pull || s.APIEndpoint != "" || s.SecretRef != nil ||
		s.Provider != "aws" || s.Region != "us-east" || s.Zone != "us-east-1a" {
		t.Fatalf("cluster %s: spec %+v", name, s)
	}
	csr := agentCSR(t, host, name, denied.Name)
	if cond := csrCondition(csr, certificatesv1.CertificateApproved); cond == nil || cond.Reason != "FedAgentRegistration" || len(csr.Status.Certificate) == 0 {
		t.Fatalf("CSR %s: conditions %+v, certificate of %d bytes", csr.Name, csr.Status.Conditions, len(csr.Status.Certificate))
	}

	agentSecret, err := member.CoreV1().Secrets("fed-system").Get(ctx, "fed-agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(agentSecret.Data["cluster"]); got != name {
		t.Fatalf("the member's agent Secret names cluster %q", got)
	}
	agentCfg, err := clientcmd.RESTConfigFromKubeConfig(agentSecret.Data["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	if agentCfg.Host != server {
		t.Fatalf("the agent's kubeconfig reaches %s, want %s", agentCfg.Host, server)
	}
	asAgent := kubernetes.NewForConfigOrDie(agentCfg)
	review, err := asAgent.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the agent's certificate does not authenticate at the host: %v", err)
	}
	if u := review.Status.UserInfo; u.Username != clusterv1alpha1.AgentUser(name) || !slices.Contains(u.Groups, clusterv1alpha1.AgentGroup) {
		t.Fatalf("the agent is %s in %v at the host", u.Username, u.Groups)
	}
	// Its Lease, which it alone may get and update.
	lease, err := asAgent.CoordinationV1().Leases("fed-system").Get(ctx, clusterv1alpha1.AgentLease(name), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the agent cannot read its Lease: %v", err)
	}
	holder := clusterv1alpha1.AgentUser(name)
	lease.Spec.HolderIdentity = &holder
	if _, err := asAgent.CoordinationV1().Leases("fed-system").Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("the agent cannot renew its Lease: %v", err)
	}
	if _, err := asAgent.CoordinationV1().Leases("fed-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the agent lists the host's Leases: %v", err)
	}
	for _, label := range []string{"role", "rolebinding"} {
		var err error
		if label == "role" {
			_, err = host.RbacV1().Roles("fed-system").Get(ctx, clusterv1alpha1.AgentLease(name), metav1.GetOptions{})
		} else {
			_, err = host.RbacV1().RoleBindings("fed-system").Get(ctx, clusterv1alpha1.AgentLease(name), metav1.GetOptions{})
		}
		if err != nil {
			t.Fatalf("the agent's %s in the host: %v", label, err)
		}
	}
	// fed puts back what someone deletes.
	if err := host.RbacV1().RoleBindings("fed-system").Delete(ctx, clusterv1alpha1.AgentLease(name), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() error {
		_, err := host.RbacV1().RoleBindings("fed-system").Get(ctx, clusterv1alpha1.AgentLease(name), metav1.GetOptions{})
		return err
	})
	if _, err := member.AppsV1().Deployments("fed-system").Get(ctx, "fed-agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the agent's Deployment with --install-agent=false: %v", err)
	}
	if crb, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed-agent", metav1.GetOptions{}); err != nil || crb.RoleRef.Name != "cluster-admin" {
		t.Fatalf("the agent's ClusterRoleBinding in the member: %v %+v", err, crb)
	}

	// Registering again converges: fed approves a re-registration, asked with the key of
	// the agent's certificate in the member's Secret, and the Cluster keeps its registration.
	registration := c.Annotations[clusterv1alpha1.AnnotationRegistration]
	if _, got, key := secretAgent(t, member); registration == "" || got != registration || c.Annotations[clusterv1alpha1.AnnotationAgentKey] != key {
		t.Fatalf("cluster %s records registration %q and key %q; the agent's certificate is of %q with key %s",
			name, registration, c.Annotations[clusterv1alpha1.AnnotationAgentKey], got, key)
	}
	ok(m3.Kubeconfig, args...)
	if cond := csrCondition(agentCSR(t, host, name, denied.Name, csr.Name), certificatesv1.CertificateApproved); cond == nil || cond.Reason != "FedAgentReregistration" {
		t.Fatalf("the second registration's CSR: %+v", cond)
	}
	if c, err = clusters.Get(ctx, name, metav1.GetOptions{}); err != nil || c.Annotations[clusterv1alpha1.AnnotationRegistration] != registration {
		t.Fatalf("cluster %s registered again: %v, registration %q, want %q", name, err, c.Annotations[clusterv1alpha1.AnnotationRegistration], registration)
	}
	agentKey := c.Annotations[clusterv1alpha1.AnnotationAgentKey]

	// A bootstrap token holder cannot take pullreg over: a request for its agent's name,
	// with its member's id and its registration copied from the Cluster, but another key,
	// is denied, and nothing is issued.
	c, err = clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	takeover := bootstrapCSR(t, server, hostCA, token, name, c.Annotations[clusterv1alpha1.AnnotationRegistration], c.Spec.ID)
	if cond := csrCondition(takeover, certificatesv1.CertificateDenied); cond == nil || cond.Reason != "FedAgentNotItsAgent" ||
		!strings.Contains(cond.Message, "only that agent's key") || len(takeover.Status.Certificate) != 0 {
		t.Fatalf("a takeover of %s with the token: conditions %+v, certificate of %d bytes; want Denied, FedAgentNotItsAgent", name, takeover.Status.Conditions, len(takeover.Status.Certificate))
	}
	if c, err = clusters.Get(ctx, name, metav1.GetOptions{}); err != nil || c.Annotations[clusterv1alpha1.AnnotationAgentKey] != agentKey {
		t.Fatalf("cluster %s after a takeover denied: %v, agent key %q, want %q kept", name, err, c.Annotations[clusterv1alpha1.AnnotationAgentKey], agentKey)
	}

	// The agent may record events about nothing but its own objects.
	tenantNS := testNamespace(t, theLab.Host.Kubeconfig)
	fleetAsAgent := rest.CopyConfig(agentCfg)
	fleetAsAgent.Host = strings.TrimSuffix(fleetAsAgent.Host, "/") + federationv1alpha1.FleetPath
	_, err = kubernetes.NewForConfigOrDie(fleetAsAgent).CoreV1().Events(tenantNS).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: "fake-"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: tenantNS, Name: "ledger"},
		Reason:         "Compromised", Message: "fake", Type: corev1.EventTypeWarning,
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "may record events only about its own objects") {
		t.Fatalf("the agent recording an event about another tenant's Deployment: %v, want Forbidden", err)
	}
	// About its own Cluster: in default, as client-go's recorder puts it, and not among a
	// tenant's events.
	aboutItself := func(namespace string) error {
		_, err := kubernetes.NewForConfigOrDie(fleetAsAgent).CoreV1().Events(namespace).Create(ctx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: name + "-"},
			InvolvedObject: corev1.ObjectReference{APIVersion: clusterv1alpha1.SchemeGroupVersion.String(), Kind: "Cluster", Name: name, UID: c.UID},
			Reason:         "Probed", Message: "e2e", Type: corev1.EventTypeNormal,
		}, metav1.CreateOptions{})
		return err
	}
	if err := aboutItself(tenantNS); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "belongs in namespace default") {
		t.Fatalf("the agent recording an event about its Cluster in a tenant's namespace: %v, want Forbidden", err)
	}
	if err := aboutItself(metav1.NamespaceDefault); err != nil {
		t.Fatalf("the agent recording an event about its own Cluster: %v", err)
	}

	// A cluster joined in push mode cannot be taken over: fed denies the request (member1's
	// kubeconfig, since register refuses member3, registered as pullreg, under another name).
	errOut := fails("cluster member1 is joined in push mode; unjoin it first", theLab.Member("member1").Kubeconfig,
		register("member1", "--discovery-token-ca-cert-hash", wantHash)...)
	if !strings.Contains(errOut, "denied") {
		t.Fatalf("register as member1: %q, want the denial", errOut)
	}
	if c, err := clusters.Get(ctx, "member1", metav1.GetOptions{}); err != nil || c.Spec.SyncMode != clusterv1alpha1.Push {
		t.Fatalf("member1 after a refused register: %v %+v", err, c)
	}

	// token list shows the token; after token delete, it registers no more.
	if out := ok(theLab.Host.Kubeconfig, "token", "list"); !strings.Contains(out, id) || !strings.Contains(out, "e2e register") {
		t.Fatalf("token list:\n%s", out)
	}
	if out := ok(theLab.Host.Kubeconfig, "token", "delete", token); out != fmt.Sprintf("bootstrap token %q deleted\n", id) {
		t.Fatalf("token delete printed %q", out)
	}
	if out := ok(theLab.Host.Kubeconfig, "token", "list"); strings.Contains(out, id) {
		t.Fatalf("token list after delete:\n%s", out)
	}
	_, errOut, err = run(theLab.Member("member2").Kubeconfig, register(other, "--discovery-token-ca-cert-hash", wantHash, "--discovery-timeout", "5s")...)
	if err == nil || !(strings.Contains(errOut, "carries no signature for token ID "+id) || strings.Contains(errOut, "the host refused the bootstrap token")) {
		t.Fatalf("register with a deleted token: %v, %q", err, errOut)
	}

	// unregister refuses a push cluster, and removes a pull cluster from both sides.
	fails("use 'kubectl fed unjoin member1'", theLab.Host.Kubeconfig, "unregister", "member1")
	_, joinedPush := member.CoreV1().ServiceAccounts("fed-system").Get(ctx, "fed", metav1.GetOptions{})
	out, errOut, err := run(theLab.Host.Kubeconfig, "unregister", name, "--cluster-kubeconfig", m3.Kubeconfig)
	if err != nil || out != "cluster.cluster.fedhq.io/"+name+" unregistered\n" {
		t.Fatalf("unregister: %v, %q\n%s", err, out, errOut)
	}
	if _, err := clusters.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster %s after unregister: %v", name, err)
	}
	waitFor(t, 20*time.Second, func() error {
		lease := clusterv1alpha1.AgentLease(name)
		if _, err := host.CoordinationV1().Leases("fed-system").Get(ctx, lease, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("lease %s: %v", lease, err)
		}
		if _, err := host.RbacV1().Roles("fed-system").Get(ctx, lease, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("role %s: %v", lease, err)
		}
		if _, err := host.RbacV1().RoleBindings("fed-system").Get(ctx, lease, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("rolebinding %s: %v", lease, err)
		}
		return nil
	})
	if _, err := member.CoreV1().Secrets("fed-system").Get(ctx, "fed-agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the member's agent Secret after unregister: %v", err)
	}
	if _, err := member.CoreV1().ServiceAccounts("fed-system").Get(ctx, "fed-agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the member's agent service account after unregister: %v", err)
	}
	if _, err := member.RbacV1().ClusterRoleBindings().Get(ctx, "fed-agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the member's agent ClusterRoleBinding after unregister: %v", err)
	}
	if joinedPush == nil && !strings.Contains(errOut, "namespace fed-system stays (serviceaccount fed") {
		t.Fatalf("unregister in a member joined in push mode too: %q, want fed-system kept for join's service account", errOut)
	}
	// The fleet's execution namespace of pullreg goes with it.
	waitFor(t, 30*time.Second, func() error {
		if _, err := runKubectl(theLab.FleetKubeconfig(), "get", "namespace", federationv1alpha1.ExecutionNamespace(name)); err == nil || !strings.Contains(err.Error(), "NotFound") {
			return fmt.Errorf("namespace %s after unregister: %v", federationv1alpha1.ExecutionNamespace(name), err)
		}
		return nil
	})

	// Registered anew, pullreg is another registration: the earlier agent's certificate,
	// still valid, may do nothing with it.
	token = strings.Fields(ok(theLab.Host.Kubeconfig, "token", "create", "--print-register-command", "--ttl", "10m"))[5]
	id, _, _ = strings.Cut(token, ".")
	tokenIDs = append(tokenIDs, id)
	ok(m3.Kubeconfig, "register", server, "--token", token, "--cluster-name", name, "--install-agent=false", "--discovery-token-ca-cert-hash", wantHash)
	fedAsEarlierAgent, err := versioned.NewForConfig(agentCfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fedAsEarlierAgent.ClusterV1alpha1().Clusters().Get(ctx, name, metav1.GetOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "not of its current registration") {
		t.Fatalf("the earlier registration's agent reading the new %s: %v, want Forbidden", name, err)
	}

	// Unregistered with the member's Secret kept, and registered again from it: the Cluster
	// is new, and so is its registration (fed denies continuing the kept one, and register
	// makes another); the kept Secret's certificate, still valid, may do nothing.
	keptCfg, kept, _ := secretAgent(t, member)
	ok(theLab.Host.Kubeconfig, "unregister", name)
	csrsBefore, err := host.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, err = run(m3.Kubeconfig, "register", server, "--token", token, "--cluster-name", name, "--install-agent=false", "--discovery-token-ca-cert-hash", wantHash)
	if err != nil || !strings.Contains(errOut, "is not in the fleet any more") {
		t.Fatalf("register with the Secret of an unregistered %s: %v\n%s", name, err, errOut)
	}
	if c, err = clusters.Get(ctx, name, metav1.GetOptions{}); err != nil || c.Annotations[clusterv1alpha1.AnnotationRegistration] == kept {
		t.Fatalf("cluster %s registered anew from a kept Secret: %v, registration %q, the kept one %q", name, err, c.Annotations[clusterv1alpha1.AnnotationRegistration], kept)
	}
	notInFleet := 0
	if csrs, err := host.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{}); err == nil {
		for i := range csrs.Items {
			if cond := csrCondition(&csrs.Items[i], certificatesv1.CertificateDenied); cond != nil && cond.Reason == clusterv1alpha1.ReasonNotInFleet &&
				!slices.ContainsFunc(csrsBefore.Items, func(b certificatesv1.CertificateSigningRequest) bool { return b.Name == csrs.Items[i].Name }) {
				notInFleet++
			}
		}
	}
	if notInFleet != 1 {
		t.Fatalf("%d CSRs denied %s, want the one continuing the kept registration", notInFleet, clusterv1alpha1.ReasonNotInFleet)
	}
	_, err = versioned.NewForConfigOrDie(keptCfg).ClusterV1alpha1().Clusters().Get(ctx, name, metav1.GetOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "not of its current registration") {
		t.Fatalf("the kept Secret's agent reading the new %s: %v, want Forbidden", name, err)
	}
	ok(theLab.Host.Kubeconfig, "unregister", name, "--cluster-kubeconfig", m3.Kubeconfig)
}

// secretAgent reads the agent's Secret in a member: a configuration with its certificate,
// the registration the certificate is of, and its key as a Cluster records it.
func secretAgent(t *testing.T, member kubernetes.Interface) (*rest.Config, string, string) {
	t.Helper()
	s, err := member.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Get(context.Background(), clusterv1alpha1.AgentSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	certs, err := certutil.ParseCertsPEM(cfg.CertData)
	if err != nil {
		t.Fatal(err)
	}
	registration := ""
	for _, o := range certs[0].Subject.Organization {
		if id, ok := strings.CutPrefix(o, clusterv1alpha1.RegistrationGroupPrefix); ok {
			registration = id
		}
	}
	sum := sha256.Sum256(certs[0].RawSubjectPublicKeyInfo)
	return cfg, registration, "sha256:" + hex.EncodeToString(sum[:])
}

// bootstrapCSR asks the host, as a bootstrap token, for an agent's certificate of cluster
// with a key of its own, registration and member id as given, and returns the CSR once fed
// answered it.
func bootstrapCSR(t *testing.T, server string, ca []byte, token, cluster, registration, memberID string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	ctx := context.Background()
	client := kubernetes.NewForConfigOrDie(&rest.Config{Host: server, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	request, err := certutil.MakeCSR(key, &pkix.Name{CommonName: clusterv1alpha1.AgentUser(cluster),
		Organization: []string{clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroup(registration)}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	created, err := client.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: clusterv1alpha1.AgentLease(cluster) + "-", Annotations: map[string]string{clusterv1alpha1.AnnotationClusterID: memberID}},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: request, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a CSR with the bootstrap token: %v", err)
	}
	var got *certificatesv1.CertificateSigningRequest
	waitFor(t, 20*time.Second, func() error {
		got, err = client.CertificatesV1().CertificateSigningRequests().Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(got.Status.Conditions) == 0 {
			return fmt.Errorf("CSR %s not answered", created.Name)
		}
		return nil
	})
	return got
}

// agentCSR returns the CSR register made for cluster that is not among before.
func agentCSR(t *testing.T, host kubernetes.Interface, cluster string, before ...string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	list, err := host.CertificatesV1().CertificateSigningRequests().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found []*certificatesv1.CertificateSigningRequest
	for i := range list.Items {
		c := &list.Items[i]
		if strings.HasPrefix(c.Name, clusterv1alpha1.AgentLease(cluster)+"-") && !slices.Contains(before, c.Name) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d new CSRs of cluster %s in the host, want 1", len(found), cluster)
	}
	return found[0]
}

func csrCondition(c *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) *certificatesv1.CertificateSigningRequestCondition {
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == t {
			return &c.Status.Conditions[i]
		}
	}
	return nil
}
