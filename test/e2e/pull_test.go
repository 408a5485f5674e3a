package e2e

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

// TestPullMode takes member3 out of push mode and registers it in pull mode, as a user
// would (kubectl fed token create on the host, kubectl fed register in the member), runs
// its agent as a local process, and checks: the host holds no credentials for it; it
// receives a propagated workload, in a namespace made from the fleet's, and reports its
// status and events; the scheduler sees its nodes, and kubectl fed get, logs and exec
// reach it, through the agent's tunnel; the agent may touch nothing of another cluster;
// with fed-apiserver stopped and started again, the agent keeps member3 as it was and
// writes there only the one change made afterwards; stopping the agent marks member3 not Ready within the grace
// period, and a restarted agent resumes without applying anything again; the agent renews
// its certificate; the fleet's namespace deleted, member3's goes. It is not parallel: no
// other test runs while member3 is out of push mode; at the end member3 is joined in push
// mode again.
func TestPullMode(t *testing.T) {
	ctx := context.Background()
	const name = "member3"
	m3 := theLab.Member(name)
	fed := buildKubectlFed(t)
	_, fedClient := hostClients(t)
	clusters := fedClient.ClusterV1alpha1().Clusters()
	member, err := m3.Client()
	if err != nil {
		t.Fatal(err)
	}
	took := registerPull(t, fed, name)
	t.Logf("register to Ready: %.1fs", took.Seconds())
	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The host holds nothing of member3's credentials: no Secret in fed-system refers to
	// its API server.
	host, _ := hostClients(t)
	secrets, err := host.CoreV1().Secrets(clusterv1alpha1.FedNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		for key, v := range s.Data {
			if s.Name == name || strings.Contains(string(v), m3.URL()) {
				t.Fatalf("the host holds member3's credentials: Secret %s/%s (key %s)", s.Namespace, s.Name, key)
			}
		}
	}
	if c.Status.KubernetesVersion == "" || c.Status.NodeSummary == nil || c.Status.NodeSummary.TotalNum == 0 {
		t.Fatalf("cluster %s's status from its agent: version %q, nodes %+v; want both", name, c.Status.KubernetesVersion, c.Status.NodeSummary)
	}

	registered := agentCertificate(ctx, t, member)

	// A workload for member3 alone, in a namespace of the fleet with a label of its own,
	// which the agent gives the namespace it makes in member3, as fed does in a push member.
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, fleet, "label", "namespace", ns, "team=edge")
	kubectlStdin(t, fleet, fmt.Sprintf(pullWorkload, ns), "apply", "-f", "-")
	ready := []string{"get", "deploy", "pull-web", "-n", ns, "--ignore-not-found", "-o",
		"jsonpath={.spec.replicas} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	expectOutput(t, time.Minute, m3.Kubeconfig, "2 true", ready...)
	expectOutput(t, 10*time.Second, m3.Kubeconfig, "edge true", "get", "namespace", ns, "-o",
		"jsonpath={.metadata.labels.team} {.metadata.labels.federation\\.fedhq\\.io/managed}")
	// Its status comes back to the template through the agent.
	expectOutput(t, time.Minute, fleet, "2/2", "get", "deploy", "pull-web", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}")
	// And the agent's event on the template, as fed records one for a push member.
	expectOutput(t, 30*time.Second, fleet, "fed-agent/member3 Synced applied to cluster member3", "get", "events", "-n", ns,
		"--field-selector", "involvedObject.name=pull-web,reason=Synced", "-o", "jsonpath={range .items[*]}{.source.component}/{.source.host} {.reason} {.message}{end}")

	// fed reaches member3 through the agent's tunnel: kubectl fed get, logs and exec.
	fedr := fedRunner(fed)
	var pod string
	waitFor(t, time.Minute, func() error {
		out, err := runKubectl(m3.Kubeconfig, "-n", ns, "get", "pods", "-l", "app=pull-web", "--field-selector=status.phase=Running",
			"-o", "jsonpath={.items[*].metadata.name}")
		if pods := strings.Fields(out); err != nil || len(pods) != 2 {
			return fmt.Errorf("member3's pods: %q, %v", out, err)
		} else {
			pod = pods[0]
		}
		return nil
	})
	if out := fedr.ok(t, "get", "pods", "-n", ns, "-C", name, "--cache=false"); !strings.Contains(out, pod) || !strings.Contains(out, name) {
		t.Fatalf("kubectl fed get pods -C %s printed %q, want pod %s of %s", name, out, pod, name)
	}
	if out := fedr.ok(t, "logs", pod, "-n", ns, "-C", name); !strings.Contains(out, name+": log line 1") {
		t.Fatalf("kubectl fed logs through the tunnel printed %q", out)
	}
	if out := fedr.ok(t, "exec", pod, "-n", ns, "-C", name, "--", "echo", "through the tunnel"); strings.TrimSpace(out) != "through the tunnel" {
		t.Fatalf("kubectl fed exec through the tunnel printed %q", out)
	}

	// The scheduler sees member3's nodes through the tunnel, as it sees a push member's,
	// read at each of the host's looks at the agent's Lease (every 5 s) once the tunnel is
	// open (as it is now: exec came through): four replicas of 10 CPU do not fit on its
	// three nodes of 16 CPU, though the 48 CPU of its resource summary would hold them.
	// Over 13.33 CPU free on each node, so that the summary alone would hold four.
	waitNodesFree(t, name, 13334, 16001)
	time.Sleep(6 * time.Second)
	propagate(t, ns, "ten", 4, "{cpu: 10}",
		"{clusterAffinity: {clusterNames: [member3]}, replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}")
	expectOutput(t, nodeRetry, fleet, "| NoClusterFit: 4 replica(s) do not fit: member3 can hold 3 more", "get", "rb", "ten-deployment", "-n", ns,
		"-o", scheduledJSONPath)
	kubectl(t, fleet, "delete", "deploy", "ten", "-n", ns)

	// The agent's own credentials reach its cluster's Works and nothing of another's.
	agentFed := agentClient(ctx, t, member)
	if _, err := agentFed.FederationV1alpha1().Works("fed-es-"+name).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("the agent lists its own Works: %v", err)
	}
	if _, err := agentFed.FederationV1alpha1().Works("fed-es-member1").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the agent lists member1's Works: %v, want Forbidden", err)
	}
	if _, err := agentFed.ClusterV1alpha1().Clusters().Get(ctx, "member1", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the agent reads cluster member1: %v, want Forbidden", err)
	}
	if _, err := agentFed.FederationV1alpha1().ResourceBindings(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the agent lists bindings: %v, want Forbidden", err)
	}
	if _, err := agentFed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}); err != nil {
		t.Fatalf("the agent lists its own Cluster by name: %v", err)
	}

	applies := func() float64 {
		counts, err := countRequests(ctx, member)
		if err != nil {
			t.Fatal(err)
		}
		return counts["APPLY deployments"] + counts["APPLY namespaces"] + counts["POST namespaces"] +
			counts["DELETE deployments"] + counts["DELETE namespaces"]
	}

	// The host goes away (fed-apiserver stops): the agent keeps running and leaves member3
	// as it is. When fed-apiserver is back, so are the agent's watches and its tunnel, and
	// it applies nothing again but what changed.
	before := applies()
	if err := theLab.StopProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(15 * time.Second)
	if !theLab.AgentRunning(name) {
		t.Fatalf("the agent stopped while the host was away; its log: %s", theLab.AgentLog(name))
	}
	expectOutput(t, time.Second, m3.Kubeconfig, "2 true", ready...)
	if err := theLab.StartProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	waitFor(t, time.Minute, func() error {
		if out, errOut, err := fedr.run("get", "pods", "-n", ns, "-C", name, "--cache=false"); err != nil || !strings.Contains(out, pod) {
			return fmt.Errorf("kubectl fed get pods -C %s after the host came back: %v\n%s%s", name, err, out, errOut)
		}
		return nil
	})
	t.Logf("fed-apiserver started again to member3 reached through the tunnel: %.1fs", time.Since(back).Seconds())
	// A change made once the host is back arrives (the agent watches its Works again), and
	// it is the only write the agent made in member3 since the host went away.
	kubectl(t, fleet, "scale", "deploy", "pull-web", "-n", ns, "--replicas=3")
	expectOutput(t, time.Minute, m3.Kubeconfig, "3 true", ready...)
	if after := applies(); after != before+1 {
		t.Fatalf("the agent wrote %v times in member3 across the host's absence and one change, want one", after-before)
	}

	// The agent stops once its Works' status records what it applied, from which it
	// resumes: stopped before that, it would rightly apply again what it cannot know it did.
	waitFor(t, 30*time.Second, func() error { return worksRecorded(ctx, fedClient, name) })

	// The agent stops: member3 is not Ready within its Lease's duration (the lab's agent
	// writes 12 s) and a probe.
	if err := theLab.StopAgent(name); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	waitFor(t, 40*time.Second, func() error { return clusterReady(ctx, clusters, name, metav1.ConditionUnknown) })
	t.Logf("agent stopped to not Ready: %.1fs", time.Since(stopped).Seconds())
	before = applies()

	// Restarted, it resumes: Ready again, and nothing is applied again.
	if err := theLab.StartAgent(ctx, name); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, func() error { return clusterReady(ctx, clusters, name, metav1.ConditionTrue) })
	time.Sleep(5 * time.Second) // the agent's Works are listed and looked at by now
	if after := applies(); after != before {
		t.Fatalf("the restarted agent applied %v times in member3, want none (nothing changed)", after-before)
	}
	// The agent renews its certificate before it expires (the lab's host signs for 3
	// minutes): a CSR of its own, which fed approved, and the new certificate in its Secret.
	waitFor(t, 3*time.Minute, func() error {
		if now := agentCertificate(ctx, t, member); now.Equal(registered) {
			return fmt.Errorf("the agent's Secret still holds the certificate of its registration (serial %s, until %s)",
				now.SerialNumber, now.NotAfter.Format(time.TimeOnly))
		}
		return nil
	})
	if csr := approvedCSR(ctx, t, host, clusterv1alpha1.AgentUser(name), agentCertificate(ctx, t, member)); csr == "" {
		t.Fatalf("no CSR of %s approved that issued the certificate in its Secret", clusterv1alpha1.AgentUser(name))
	} else {
		t.Logf("the agent's renewal: CSR %s", csr)
	}

	// And it still works with it: a change of the template arrives.
	kubectl(t, fleet, "scale", "deploy", "pull-web", "-n", ns, "--replicas=1")
	expectOutput(t, time.Minute, m3.Kubeconfig, "1 true", ready...)
	kubectl(t, fleet, "delete", "deploy", "pull-web", "-n", ns)
	expectOutput(t, time.Minute, m3.Kubeconfig, "", ready...)

	// The fleet's namespace deleted, fed deletes member3's through the tunnel.
	kubectl(t, fleet, "delete", "namespace", ns)
	waitFor(t, time.Minute, func() error {
		got, err := member.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && got.DeletionTimestamp != nil) {
			return nil
		}
		return fmt.Errorf("member3's namespace %s after the fleet's was deleted: %v, deleting: %v", ns, err, err == nil && got.DeletionTimestamp != nil)
	})
}

// worksRecorded is nil when every Work of a cluster has its Applied condition true for its
// generation and the applied version of each of its manifests.
func worksRecorded(ctx context.Context, fedClient versioned.Interface, cluster string) error {
	works, err := fedClient.FederationV1alpha1().Works(federationv1alpha1.ExecutionNamespacePrefix+cluster).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, w := range works.Items {
		cond := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != w.Generation {
			return fmt.Errorf("work %s/%s of generation %d: applied %v", w.Namespace, w.Name, w.Generation, cond)
		}
		recorded := 0
		for _, ms := range w.Status.ManifestStatuses {
			if ms.AppliedVersion != "" {
				recorded++
			}
		}
		if recorded < len(w.Spec.Workload.Manifests) {
			return fmt.Errorf("work %s/%s: %d of %d manifests' applied versions recorded", w.Namespace, w.Name, recorded, len(w.Spec.Workload.Manifests))
		}
	}
	return nil
}

// agentCertificate is the certificate in the agent's Secret in its member.
func agentCertificate(ctx context.Context, t *testing.T, member kubernetes.Interface) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(agentConfig(ctx, t, member).CertData)
	if block == nil {
		t.Fatalf("the agent's Secret holds no certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// approvedCSR names the approved CSR that user asked for and that issued cert, "" when
// there is none.
func approvedCSR(ctx context.Context, t *testing.T, host kubernetes.Interface, user string, cert *x509.Certificate) string {
	t.Helper()
	csrs, err := host.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, csr := range csrs.Items {
		approved := false
		for _, c := range csr.Status.Conditions {
			approved = approved || (c.Type == certificatesv1.CertificateApproved && c.Status == corev1.ConditionTrue)
		}
		issued, _ := pem.Decode(csr.Status.Certificate)
		if csr.Spec.Username == user && approved && issued != nil && bytes.Equal(issued.Bytes, cert.Raw) {
			return csr.Name
		}
	}
	return ""
}

// registerPull takes a member of the lab out of push mode and registers it in pull mode as
// a user would (kubectl fed unjoin, token create on the host, register in the member with
// --install-agent=false), and starts its agent as a local process. It returns the time from
// register to the Cluster Ready. At the end of the test the agent stops, the cluster is
// unregistered and the lab joins it again in push mode.
func registerPull(tb testing.TB, fed, name string) time.Duration {
	tb.Helper()
	ctx := context.Background()
	m := theLab.Member(name)
	_, fedClient := hostClients(tb)
	clusters := fedClient.ClusterV1alpha1().Clusters()
	// runAs runs kubectl fed with a kubeconfig.
	runAs := func(kubeconfig string, args ...string) string {
		tb.Helper()
		out, err := exec.Command(fed, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			tb.Fatalf("kubectl fed %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	gone := func() error {
		if _, err := clusters.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("cluster %s is still there (%v)", name, err)
		}
		return nil
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("the agent's log: %s", theLab.AgentLog(name))
			if os.Getenv("SOAK_KEEP") != "" {
				tb.Logf("SOAK_KEEP: %s stays registered in pull mode, its agent running, to look at; "+
					"kubectl fed unregister %s --cluster-kubeconfig %s, then make up, joins it again in push mode", name, name, m.Kubeconfig)
				return
			}
		}
		_ = theLab.StopAgent(name)
		if c, err := clusters.Get(ctx, name, metav1.GetOptions{}); err == nil && c.Spec.SyncMode == clusterv1alpha1.Pull {
			if out, err := exec.Command(fed, "--kubeconfig", theLab.Host.Kubeconfig, "unregister", name,
				"--cluster-kubeconfig", m.Kubeconfig).CombinedOutput(); err != nil {
				tb.Errorf("unregister %s: %v\n%s", name, err, out)
			}
		}
		waitFor(tb, time.Minute, gone)
		if err := theLab.JoinMembers(ctx); err != nil {
			tb.Errorf("joining the lab's members again: %v", err)
		}
	})

	runAs(theLab.Host.Kubeconfig, "unjoin", name, "--cluster-kubeconfig", m.Kubeconfig)
	waitFor(tb, time.Minute, gone)
	register := strings.Fields(strings.TrimSpace(lastLine(runAs(theLab.Host.Kubeconfig, "token", "create", "--print-register-command", "--ttl", "10m"))))
	if len(register) < 3 || register[0] != "kubectl" || register[1] != "fed" || register[2] != "register" {
		tb.Fatalf("token create --print-register-command printed %q, want a kubectl fed register command", register)
	}
	start := time.Now()
	runAs(m.Kubeconfig, append(register[2:], "--cluster-name", name, "--install-agent=false")...)
	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		tb.Fatalf("cluster %s after register: %v", name, err)
	}
	if c.Spec.SyncMode != clusterv1alpha1.Pull || c.Spec.SecretRef != nil || c.Spec.APIEndpoint != "" {
		tb.Fatalf("cluster %s after register: syncMode %s, secretRef %v, apiEndpoint %q; want Pull with no credentials or endpoint",
			name, c.Spec.SyncMode, c.Spec.SecretRef, c.Spec.APIEndpoint)
	}
	if err := theLab.StartAgent(ctx, name); err != nil {
		tb.Fatal(err)
	}
	waitFor(tb, 2*time.Minute, func() error { return clusterReady(ctx, clusters, name, metav1.ConditionTrue) })
	return time.Since(start)
}

const pullWorkload = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: pull-web
  namespace: %[1]s
spec:
  replicas: 2
  selector:
    matchLabels: {app: pull-web}
  template:
    metadata:
      labels: {app: pull-web}
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: pull-web
  namespace: %[1]s
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: pull-web
  placement:
    clusterAffinity:
      clusterNames: [member3]
`

// clusterReady says whether a Cluster's Ready condition has a status.
func clusterReady(ctx context.Context, clusters interface {
	Get(context.Context, string, metav1.GetOptions) (*clusterv1alpha1.Cluster, error)
}, name string, want metav1.ConditionStatus) error {
	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	ready := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	if ready == nil || ready.Status != want {
		return fmt.Errorf("cluster %s: Ready %+v, want %s", name, ready, want)
	}
	return nil
}

// agentClient is fed's client with the agent's own credentials, from its Secret in the
// member.
func agentClient(ctx context.Context, t *testing.T, member kubernetes.Interface) versioned.Interface {
	t.Helper()
	cs, err := versioned.NewForConfig(agentConfig(ctx, t, member))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// agentConfig is the agent's configuration for the host, from its Secret in the member.
func agentConfig(ctx context.Context, t *testing.T, member kubernetes.Interface) *rest.Config {
	t.Helper()
	s, err := member.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Get(ctx, clusterv1alpha1.AgentSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// lastLine is the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// TestPullUnregisteredWithAgentDown: a Work deleted while its pull cluster's agent is down
// keeps the agent's finalizer; the cluster then unregistered, fed lets the Work, and the
// cluster's execution namespace, go (the member's copy stays, as with any member fed cannot
// reach when it leaves), so that the same cluster joins again and leaves again cleanly.
// The fault campaign found the namespace terminating for good (seed 31337).
func TestPullUnregisteredWithAgentDown(t *testing.T) {
	ctx := context.Background()
	const name = "member3"
	fed := buildKubectlFed(t)
	_, fedClient := hostClients(t)
	registerPull(t, fed, name)
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, `apiVersion: v1
kind: ConfigMap
metadata:
  name: left
data: {k: v}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: left
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: left}
  placement:
    clusterAffinity:
      clusterNames: [member3]
`, "apply", "-n", ns, "-f", "-")
	expectOutput(t, time.Minute, memberKubeconfig(name), "v", "get", "cm", "left", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.data.k}")

	if err := theLab.StopAgent(name); err != nil {
		t.Fatal(err)
	}
	kubectl(t, fleet, "delete", "cm", "left", "-n", ns, "--wait=false")
	work := federationv1alpha1.WorkName(ns, federationv1alpha1.BindingName("ConfigMap", "left"))
	execNS := federationv1alpha1.ExecutionNamespace(name)
	waitFor(t, 30*time.Second, func() error {
		w, err := fedClient.FederationV1alpha1().Works(execNS).Get(ctx, work, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if w.DeletionTimestamp == nil {
			return fmt.Errorf("Work %s/%s is not being deleted yet", execNS, work)
		}
		return nil
	})
	out, err := exec.Command(fed, "--kubeconfig", theLab.Host.Kubeconfig, "unregister", name, "--cluster-kubeconfig", theLab.Member(name).Kubeconfig).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl fed unregister %s: %v\n%s", name, err, out)
	}
	expectOutput(t, time.Minute, theLab.Host.Kubeconfig, "", "get", "cluster", name, "--ignore-not-found", "-o", "name")
	expectOutput(t, time.Minute, fleet, "", "get", "ns", execNS, "--ignore-not-found", "-o", "name")
}
