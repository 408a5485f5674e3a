package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// nodeRetry is how long a placement that depends on a member's nodes may take: fed reads
// the nodes at each probe (every 5 s), and a binding that did not fit on an older picture
// is scheduled again after a minute.
const nodeRetry = 90 * time.Second

// scheduledJSONPath prints a binding's placement and its Scheduled condition's reason and
// message, as "member3=3 | Success: the binding is scheduled".
const scheduledJSONPath = `jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}| {.status.conditions[?(@.type=="Scheduled")].reason}: {.status.conditions[?(@.type=="Scheduled")].message}`

// nodeFreeCPU is the CPU (millicores) left on each Ready node of a member: its allocatable
// less the requests of the containers of the pods bound to it that have not terminated.
func nodeFreeCPU(t *testing.T, member string) (map[string]int64, error) {
	t.Helper()
	cfg, err := clientConfigFor(theLab.Member(member).Kubeconfig)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	free := map[string]int64{}
	for _, n := range nodes.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && !n.Spec.Unschedulable {
				free[n.Name] = n.Status.Allocatable.Cpu().MilliValue()
			}
		}
	}
	for _, p := range pods.Items {
		if _, ok := free[p.Spec.NodeName]; !ok || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, c := range p.Spec.Containers {
			free[p.Spec.NodeName] -= c.Resources.Requests.Cpu().MilliValue()
		}
	}
	return free, nil
}

// waitNodesFree waits until each Ready node of member has between lo and hi millicores
// free (pods of earlier tests may still be going), and that it has nodes.
func waitNodesFree(t *testing.T, member string, lo, hi int64) {
	t.Helper()
	waitFor(t, time.Minute, func() error {
		free, err := nodeFreeCPU(t, member)
		if err != nil {
			return err
		}
		if len(free) == 0 {
			return fmt.Errorf("%s has no Ready node", member)
		}
		for n, m := range free {
			if m < lo || m >= hi {
				return fmt.Errorf("%s: node %s has %dm CPU free, this test needs [%dm, %dm) on each (free: %v)", member, n, m, lo, hi, free)
			}
		}
		return nil
	})
}

// waitFedSeesFree waits until fed's last probe of member saw the CPU free that its nodes
// have now (nodeFreeCPU): its picture of the nodes comes from the same probe as the
// Cluster's resource summary, every few seconds, and pods of an earlier test, gone from
// the member, may still be in it.
func waitFedSeesFree(t *testing.T, member string, free map[string]int64) {
	t.Helper()
	var want int64
	for _, m := range free {
		want += m
	}
	_, fed := hostClients(t)
	waitFor(t, time.Minute, func() error {
		c, err := fed.ClusterV1alpha1().Clusters().Get(context.Background(), member, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s := c.Status.ResourceSummary
		if s == nil {
			return fmt.Errorf("%s has no resource summary yet", member)
		}
		cpu := s.Allocatable.Cpu().DeepCopy()
		cpu.Sub(*s.Allocated.Cpu())
		if got := cpu.MilliValue(); got != want {
			return fmt.Errorf("fed's last probe of %s saw %dm CPU free, its nodes have %dm", member, got, want)
		}
		return nil
	})
}

// deleteOnFailure deletes Deployment name from the fleet when the test ends, so that a
// failed test does not hold the members' room until its namespace goes.
func deleteOnFailure(t *testing.T, ns, name string) {
	t.Cleanup(func() {
		if t.Failed() {
			_, _ = runKubectl(theLab.FleetKubeconfig(), "delete", "deploy", name, "-n", ns, "--ignore-not-found")
		}
	})
}

// expectMemberReady waits until fed's copy of Deployment name in member has ready replicas: the
// member's own scheduler found room for every pod fed sent.
func expectMemberReady(t *testing.T, member, ns, name string, ready int) {
	t.Helper()
	expectOutput(t, 2*time.Minute, memberKubeconfig(member), fmt.Sprint(ready), "get", "deploy", name, "-n", ns,
		"-o", "jsonpath={.status.readyReplicas}")
}

// TestSchedulerNodeRoom: the scheduler counts a member's room node by node. member3 has
// three nodes of 16 CPU: replicas of 10 CPU fit three times (one per node), not 48/10 = 4
// as its cluster-wide summary would say; replicas of 6 CPU fit twice per node, 6 in all
// (not 8), so that Aggregated puts the rest on member2 (two nodes of 8 CPU, one each).
// Each member's own scheduler then runs every pod fed sent it.
func TestSchedulerNodeRoom(t *testing.T) {
	waitNodesFree(t, "member3", 12000, 16001)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	aggregated := "{replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}"

	t.Run("four of 10 CPU do not fit, three do", func(t *testing.T) {
		// member1 (4 CPU) and member2 (8 CPU per node) have no node for one: only member3
		// can hold any, and it holds three.
		propagate(t, ns, "ten", 4, "{cpu: 10}", aggregated)
		deleteOnFailure(t, ns, "ten")
		expectOutput(t, nodeRetry, theLab.FleetKubeconfig(), "| NoClusterFit: 4 replica(s) do not fit: member3 can hold 3 more",
			"get", "rb", "ten-deployment", "-n", ns, "-o", scheduledJSONPath)
		expectMemberReplicas(t, ns, "ten", nil)

		propagate(t, ns, "ten", 3, "{cpu: 10}", aggregated)
		expectPlacement(t, ns, "ten", "member3=3")
		expectMemberReplicas(t, ns, "ten", map[string]int64{"member3": 3})
		expectMemberReady(t, "member3", ns, "ten", 3)
		removeWorkload(t, ns, "ten")
	})

	t.Run("eight of 6 CPU: six on member3, two on member2", func(t *testing.T) {
		waitNodesFree(t, "member3", 12000, 16001)
		waitNodesFree(t, "member2", 6000, 8001)
		propagate(t, ns, "six", 8, "{cpu: 6}", aggregated)
		deleteOnFailure(t, ns, "six")
		expectOutput(t, nodeRetry, theLab.FleetKubeconfig(), "member2=2 member3=6 | Success: the binding is scheduled",
			"get", "rb", "six-deployment", "-n", ns, "-o", scheduledJSONPath)
		expectMemberReplicas(t, ns, "six", map[string]int64{"member2": 2, "member3": 6})
		expectMemberReady(t, "member3", ns, "six", 6)
		expectMemberReady(t, "member2", ns, "six", 2)
		removeWorkload(t, ns, "six")
	})
}

// TestSchedulerNodeSelector: a Deployment whose nodeSelector matches no node of member2
// (its nodes are gcp's, the selector asks for aws) is divided between member1 and member3
// only; its binding carries the selector in spec.replicaRequirements.nodeClaim.
func TestSchedulerNodeSelector(t *testing.T) {
	t.Parallel()
	const selector = "node.kubernetes.io/provider=aws"
	var matching []string
	for _, m := range labMembers {
		if kubectl(t, memberKubeconfig(m), "get", "nodes", "-l", selector, "-o", "name") != "" {
			matching = append(matching, m)
		}
	}
	if !slices.Equal(matching, []string{"member1", "member3"}) {
		t.Fatalf("members with nodes labelled %s: %v, want member1 and member3", selector, matching)
	}
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, theLab.FleetKubeconfig(), `apiVersion: apps/v1
kind: Deployment
metadata:
  name: aws-only
spec:
  replicas: 4
  selector:
    matchLabels: {app: aws-only}
  template:
    metadata:
      labels: {app: aws-only}
    spec:
      nodeSelector: {node.kubernetes.io/provider: aws}
      containers:
      - name: app
        image: nginx
        resources: {requests: {cpu: 100m, memory: 64Mi}}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: aws-only
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: aws-only}
  placement:
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
`, "apply", "-n", ns, "-f", "-")
	deleteOnFailure(t, ns, "aws-only")
	expectOutput(t, 30*time.Second, theLab.FleetKubeconfig(), "aws", "get", "rb", "aws-only-deployment", "-n", ns,
		"-o", `jsonpath={.spec.replicaRequirements.nodeClaim.nodeSelector.node\.kubernetes\.io/provider}`)
	// Equal weights over the three members would give member2 one; it has no node for any.
	expectPlacement(t, ns, "aws-only", "member1=2 member3=2")
	expectMemberReplicas(t, ns, "aws-only", map[string]int64{"member1": 2, "member3": 2})
	expectMemberReady(t, "member1", ns, "aws-only", 2)
	expectMemberReady(t, "member3", ns, "aws-only", 2)
	removeWorkload(t, ns, "aws-only")
}

// TestSchedulerBurst: fifty Deployments of one 5-CPU replica, created in one apply, that only
// member3 may run. member3's nodes hold as many as fit on each (nine on three empty nodes
// of 16 CPU). The scheduler takes the room it places replicas in as used until member3's
// probe shows their pods, so that many are placed and the rest wait with NoClusterFit:
// before, every binding scheduled between two probes saw the same room, and all fifty
// went to member3.
func TestSchedulerBurst(t *testing.T) {
	waitNodesFree(t, "member3", 12000, 16001)
	free, err := nodeFreeCPU(t, "member3")
	if err != nil {
		t.Fatal(err)
	}
	var room int
	for _, m := range free {
		room += int(m / 5000)
	}
	waitFedSeesFree(t, "member3", free)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	const n = 50
	var docs strings.Builder
	for i := range n {
		fmt.Fprintf(&docs, `apiVersion: apps/v1
kind: Deployment
metadata: {name: burst-%[1]d, labels: {burst: "true"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: burst-%[1]d}}
  template:
    metadata: {labels: {app: burst-%[1]d}}
    spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: "5"}}}]}
---
`, i)
	}
	docs.WriteString(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: burst}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {burst: "true"}}}
  placement:
    clusterAffinity: {clusterNames: [member3]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
`)
	kubectlStdin(t, theLab.FleetKubeconfig(), docs.String(), "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(theLab.FleetKubeconfig(), "delete", "deploy", "-l", "burst=true", "-n", ns, "--wait=false")
	})

	// Every binding is scheduled or says why not; count where they went.
	var placed, unfit int
	waitFor(t, 2*time.Minute, func() error {
		out, err := runKubectl(theLab.FleetKubeconfig(), "get", "rb", "-n", ns, "-o",
			`jsonpath={range .items[*]}{.spec.clusters[*].name}={.status.conditions[?(@.type=="Scheduled")].reason}{"\n"}{end}`)
		if err != nil {
			return err
		}
		lines := strings.Fields(out)
		placed, unfit = 0, 0
		for _, l := range lines {
			switch l {
			case "member3=Success":
				placed++
			case "=NoClusterFit":
				unfit++
			}
		}
		if len(lines) != n || placed+unfit != n {
			return fmt.Errorf("%d bindings, %d placed and %d that do not fit, want %d in all:\n%s", len(lines), placed, unfit, n, out)
		}
		return nil
	})
	if placed != room {
		msg, _ := runKubectl(theLab.FleetKubeconfig(), "get", "rb", "burst-0-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Scheduled")].message}`)
		t.Fatalf("%d of %d placed on member3, whose nodes have room for %d (CPU free: %v); burst-0: %s", placed, n, room, free, msg)
	}
	// member3 runs each one placed there.
	waitFor(t, 2*time.Minute, func() error {
		out, err := runKubectl(memberKubeconfig("member3"), "get", "deploy", "-n", ns, "-o",
			`jsonpath={range .items[*]}{.status.readyReplicas}{"\n"}{end}`)
		if err != nil {
			return err
		}
		if ready := len(strings.Fields(out)); ready != placed {
			return fmt.Errorf("%d Deployments ready in member3, want %d", ready, placed)
		}
		return nil
	})
	kubectl(t, theLab.FleetKubeconfig(), "delete", "deploy", "-l", "burst=true", "-n", ns)
	expectOutput(t, time.Minute, memberKubeconfig("member3"), "", "get", "deploy", "-n", ns, "-o", "name")
}

// TestMultiComponentWorkload: a TieredGuestbook (artifacts/examples: a CRD of two pod
// templates, taught to fed by a customization's GetComponents) of two 1-CPU frontends and a
// 10-CPU store, Divided over the three members, goes whole to member3, the only one with a
// node for the store; its binding carries both components and its namespace's quota counts
// both. Another whose store needs more than any node has is placed nowhere, and says why.
func TestMultiComponentWorkload(t *testing.T) {
	waitNodesFree(t, "member3", 12000, 16001)
	if free, err := nodeFreeCPU(t, "member3"); err != nil {
		t.Fatal(err)
	} else {
		waitFedSeesFree(t, "member3", free)
	}
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectl(t, fleet, "apply", "-f", filepath.Join(examples, "tieredguestbook-interpreter.yaml"))
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "ric", "tieredguestbook-interpreter", "--ignore-not-found") })
	crd := "tieredguestbooks.webapp.my.domain"
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "crd", crd, "--ignore-not-found")
		_, _ = runKubectl(fleet, "delete", "cpp", "tieredguestbooks-crd", "--ignore-not-found")
	})
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: tieredguestbooks-crd}
spec:
  resourceSelectors:
  - {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: `+crd+`}
`, "apply", "-f", "-")
	kubectl(t, fleet, "apply", "-f", filepath.Join(examples, "tieredguestbooks-crd.yaml"))
	for _, m := range labMembers {
		expectOutput(t, time.Minute, memberKubeconfig(m), "customresourcedefinition.apiextensions.k8s.io/"+crd, "get", "crd", crd, "--ignore-not-found", "-o", "name")
	}
	waitFor(t, time.Minute, func() error {
		_, err := runKubectl(fleet, "get", "tieredguestbooks", "-n", ns)
		return err
	})
	kubectlStdin(t, fleet, "apiVersion: federation.fedhq.io/v1alpha1\nkind: FederatedResourceQuota\nmetadata: {name: team}\nspec:\n  overall: {cpu: \"40\"}\n",
		"apply", "-n", ns, "-f", "-")
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "tieredguestbook.yaml"))

	expectOutput(t, time.Minute, fleet, "frontend=2 store=1 | member3 | Success", "get", "rb", "shop-tieredguestbook", "-n", ns, "-o",
		`jsonpath={range .spec.components[*]}{.name}={.replicas} {end}| {.spec.clusters[*].name} | {.status.conditions[?(@.type=="Scheduled")].reason}`)
	expectOutput(t, time.Minute, memberKubeconfig("member3"), "2 1", "get", "tieredguestbook", "shop", "-n", ns, "--ignore-not-found",
		"-o", "jsonpath={.spec.frontend.replicas} {.spec.store.replicas}")
	for _, m := range []string{"member1", "member2"} {
		expectOutput(t, 5*time.Second, memberKubeconfig(m), "", "get", "tieredguestbook", "shop", "-n", ns, "--ignore-not-found", "-o", "name")
	}
	expectOutput(t, 30*time.Second, fleet, "12", "get", "frq", "team", "-n", ns, "-o", "jsonpath={.status.overallUsed.cpu}")

	// A second one whose store needs a node of 17 CPU fits nowhere, and says so.
	kubectlStdin(t, fleet, `apiVersion: webapp.my.domain/v1
kind: TieredGuestbook
metadata: {name: big}
spec:
  frontend: {replicas: 1}
  store:
    replicas: 1
    template: {spec: {containers: [{name: redis, image: redis, resources: {requests: {cpu: "17"}}}]}}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: big}
spec:
  resourceSelectors:
  - {apiVersion: webapp.my.domain/v1, kind: TieredGuestbook, name: big}
  placement:
    replicaScheduling: {replicaSchedulingType: Divided}
`, "apply", "-n", ns, "-f", "-")
	expectOutput(t, time.Minute, fleet, "| NoClusterFit: no cluster fits the placement: member1, member2, member3 have no room for the workload's components together",
		"get", "rb", "big-tieredguestbook", "-n", ns, "-o",
		`jsonpath={.spec.clusters[*].name}| {.status.conditions[?(@.type=="Scheduled")].reason}: {.status.conditions[?(@.type=="Scheduled")].message}`)
	kubectl(t, fleet, "delete", "tieredguestbook", "shop", "-n", ns)
	expectOutput(t, time.Minute, memberKubeconfig("member3"), "", "get", "tieredguestbook", "shop", "-n", ns, "--ignore-not-found", "-o", "name")
}
