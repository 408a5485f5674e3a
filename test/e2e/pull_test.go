package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

// TestPullMode takes member3 out of push mode and registers it in pull mode, as a user
// would (kubectl fed token create on the host, kubectl fed register in the member), runs
// its agent as a local process, and checks that the host holds no credentials for it,
// that it receives a propagated workload and reports its status, that kubectl fed get,
// logs and exec reach it through the agent's tunnel, that the agent may touch
// nothing of another cluster, that stopping the agent marks member3 not Ready within the
// grace period, and that a restarted agent resumes without applying anything again. It is
// not parallel: no other test runs while member3 is out of push mode; at the end member3
// is joined in push mode again.
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

	// A workload for member3 alone.
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, fmt.Sprintf(pullWorkload, ns), "apply", "-f", "-")
	ready := []string{"get", "deploy", "pull-web", "-n", ns, "--ignore-not-found", "-o",
		"jsonpath={.spec.replicas} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	expectOutput(t, time.Minute, m3.Kubeconfig, "2 true", ready...)
	// Its status comes back to the template through the agent.
	expectOutput(t, time.Minute, fleet, "2/2", "get", "deploy", "pull-web", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}")

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

	// The agent stops: member3 is not Ready within its Lease's duration (the lab's agent
	// writes 12 s) and a probe.
	applies := func() float64 {
		counts, err := countRequests(ctx, member)
		if err != nil {
			t.Fatal(err)
		}
		return counts["APPLY deployments"] + counts["APPLY namespaces"] + counts["POST namespaces"]
	}
	if err := theLab.StopAgent(name); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	waitFor(t, 40*time.Second, func() error { return clusterReady(ctx, clusters, name, metav1.ConditionUnknown) })
	t.Logf("agent stopped to not Ready: %.1fs", time.Since(stopped).Seconds())
	before := applies()

	// Restarted, it resumes: Ready again, and nothing is applied again.
	if err := theLab.StartAgent(ctx, name); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, func() error { return clusterReady(ctx, clusters, name, metav1.ConditionTrue) })
	time.Sleep(5 * time.Second) // the agent's Works are listed and looked at by now
	if after := applies(); after != before {
		t.Fatalf("the restarted agent applied %v times in member3, want none (nothing changed)", after-before)
	}
	// And it still works: a change of the template arrives.
	kubectl(t, fleet, "scale", "deploy", "pull-web", "-n", ns, "--replicas=3")
	expectOutput(t, time.Minute, m3.Kubeconfig, "3 true", ready...)
	kubectl(t, fleet, "delete", "deploy", "pull-web", "-n", ns)
	expectOutput(t, time.Minute, m3.Kubeconfig, "", ready...)
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
	s, err := member.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Get(ctx, clusterv1alpha1.AgentSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	cs, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// lastLine is the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
