package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/test/lab"
)

// toleratesDown tolerates a member that stopped answering (or is not ready) for seconds.
func toleratesDown(seconds int) string {
	return fmt.Sprintf("clusterTolerations: [{key: cluster.fedhq.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: %[1]d},"+
		" {key: cluster.fedhq.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: %[1]d}]", seconds)
}

// staticWeights is a Divided placement over clusters with the given static weights.
func staticWeights(weights map[string]int) string {
	var names, list []string
	for _, m := range labMembers {
		if w, ok := weights[m]; ok {
			names = append(names, m)
			list = append(list, fmt.Sprintf("{targetCluster: {clusterNames: [%s]}, weight: %d}", m, w))
		}
	}
	return fmt.Sprintf("clusterAffinity: {clusterNames: [%s]}, replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted,"+
		" weightPreference: {staticWeightList: [%s]}}", strings.Join(names, ", "), strings.Join(list, ", "))
}

// memberDeployment reads fed's copy of a Deployment in a member: its UID and ready
// replicas; uid is empty when there is none.
func memberDeployment(ctx context.Context, cs kubernetes.Interface, ns, name string) (uid string, ready int32, err error) {
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if strings.Contains(err.Error(), "not found") {
			return "", 0, nil
		}
		return "", 0, err
	}
	return string(d.UID), d.Status.ReadyReplicas, nil
}

func memberClient(t testing.TB, name string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientConfigFor(memberKubeconfig(name))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 5 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// expectReady waits until a member runs fed's copy of a Deployment with ready replicas.
func expectReady(t *testing.T, timeout time.Duration, cs kubernetes.Interface, member, ns, name string, replicas int32) {
	t.Helper()
	waitFor(t, timeout, func() error {
		uid, ready, err := memberDeployment(context.Background(), cs, ns, name)
		if err != nil || uid == "" || ready != replicas {
			return fmt.Errorf("%s in %s: %d ready (copy %q, %v), want %d", name, member, ready, uid, err, replicas)
		}
		return nil
	})
}

// TestFailoverMemberDown stops member2's kube-apiserver with three workloads on it: one
// Divided by static weights over member1 and member2, seed 000's primary with a weight-0
// backup (member3), and seed 004's primary and backup groups. Once member2 is tainted
// NoExecute and the placements' tolerationSeconds are over, each moves: the first to
// member1, the others to member3, while member1 never runs fewer ready replicas than its
// share. The copies on member2 are kept while the replacements start, and deleted once
// member2 answers again.
func TestFailoverMemberDown(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	const tolerationSeconds = 5
	tolerate := toleratesDown(tolerationSeconds)
	propagate(t, ns, "divided", 4, "{cpu: 10m}", "{"+staticWeights(map[string]int{"member1": 1, "member2": 1})+", "+tolerate+"}")
	propagate(t, ns, "backup", 2, "", "{"+staticWeights(map[string]int{"member2": 10, "member3": 0})+", "+tolerate+"}")
	propagate(t, ns, "groups", 1, "", "{clusterAffinities: [{affinityName: primary, clusterNames: [member2]},"+
		" {affinityName: backup, clusterNames: [member3]}], "+tolerate+"}")
	expectPlacement(t, ns, "divided", "member1=2 member2=2")
	expectPlacement(t, ns, "backup", "member2=2")
	expectPlacement(t, ns, "groups", "member2=1")
	m1, m2, m3 := memberClient(t, "member1"), memberClient(t, "member2"), memberClient(t, "member3")
	expectReady(t, time.Minute, m1, "member1", ns, "divided", 2)
	expectReady(t, time.Minute, m2, "member2", ns, "divided", 2)
	expectReady(t, time.Minute, m2, "member2", ns, "backup", 2)
	expectReady(t, time.Minute, m2, "member2", ns, "groups", 1)
	stale := map[string]string{}
	for _, name := range []string{"divided", "backup", "groups"} {
		uid, _, err := memberDeployment(ctx, m2, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		stale[name] = uid
	}

	// member1 keeps its share ready throughout.
	var mu sync.Mutex
	least, samples := int32(2), 0
	watching, stopWatching := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for watching.Err() == nil {
			if _, ready, err := memberDeployment(watching, m1, ns, "divided"); err == nil {
				mu.Lock()
				least, samples = min(least, ready), samples+1
				mu.Unlock()
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()

	down := true
	t.Cleanup(func() {
		if down {
			restartControlPlane(t, "member2")
		}
	})
	start := time.Now()
	if err := theLab.StopProcess("member2-apiserver"); err != nil {
		t.Fatal(err)
	}
	// Not Ready after two failed probes, NoExecute after the lab's eviction timeout, moved
	// after the placements' tolerationSeconds; then the replacements start.
	within := lab.EvictionTimeout + tolerationSeconds*time.Second + 30*time.Second
	expectPlacement(t, ns, "divided", "member1=4")
	expectReady(t, within-time.Since(start), m1, "member1", ns, "divided", 4)
	t.Logf("divided: 4 ready in member1 %s after member2 stopped", time.Since(start).Round(100*time.Millisecond))
	expectPlacement(t, ns, "backup", "member3=2")
	expectReady(t, within-time.Since(start), m3, "member3", ns, "backup", 2)
	expectPlacement(t, ns, "groups", "member3=1")
	expectReady(t, within-time.Since(start), m3, "member3", ns, "groups", 1)
	t.Logf("backup and groups: ready in member3 %s after member2 stopped", time.Since(start).Round(100*time.Millisecond))

	// The binding said why; once the replacement was healthy its task ended, and member2's
	// Work waits, being deleted, for member2 to answer.
	fleet := theLab.FleetKubeconfig()
	expectOutput(t, 30*time.Second, fleet, "Evicted", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=divided,reason=Evicted", "-o", "jsonpath={.items[0].reason}")
	expectOutput(t, 30*time.Second, fleet, "", "get", "rb", "divided-deployment", "-n", ns, "-o", "jsonpath={.spec.gracefulEvictionTasks}")
	_, fed := hostClients(t)
	waitFor(t, 30*time.Second, func() error {
		w, err := fed.FederationV1alpha1().Works(federationv1alpha1.ExecutionNamespace("member2")).Get(ctx,
			federationv1alpha1.WorkName(ns, "divided-deployment"), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if w.DeletionTimestamp == nil {
			return fmt.Errorf("member2's Work of divided is not being deleted")
		}
		return nil
	})

	restartControlPlane(t, "member2")
	down = false
	start = time.Now()
	// The stale copies go; divided, by static weights, comes back to member2 as a new copy.
	for name, old := range stale {
		waitFor(t, 2*time.Minute, func() error {
			uid, _, err := memberDeployment(ctx, m2, ns, name)
			if err != nil || uid == old {
				return fmt.Errorf("member2 still runs the copy of %s from before it stopped (%v)", name, err)
			}
			return nil
		})
	}
	t.Logf("stale copies gone from member2 %s after it was back", time.Since(start).Round(100*time.Millisecond))
	expectPlacement(t, ns, "divided", "member1=2 member2=2")
	expectPlacement(t, ns, "backup", "member2=2") // static weights: back to the primary
	stopWatching()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if samples == 0 || least < 2 {
		t.Errorf("member1 ran %d ready replicas of divided at the least (%d samples), want at least its share, 2", least, samples)
	}
	for _, name := range []string{"divided", "backup", "groups"} {
		removeWorkload(t, ns, name)
	}
}

// TestFailoverApplication makes a workload unhealthy in member1, its primary group (an
// override gives its pods there a nodeSelector no node has): after the policy's
// tolerationSeconds it moves to member3, its backup group, keeping member1's copy
// (purgeMode Never), and member3's new copy gets the replicas member1's had as a label
// (statePreservation) while the eviction task is on the binding. Removing the task by hand
// deletes member1's copy and the label.
func TestFailoverApplication(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata:
  name: nowhere-in-member1
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: app}
  overrideRules:
  - targetCluster: {clusterNames: [member1]}
    overriders:
      plaintext:
      - {path: /spec/template/spec/nodeSelector, operator: add, value: {e2e.fedhq.io/no-such-node: "true"}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 2
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
      - {name: app, image: nginx}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: app
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: app}
  placement:
    clusterAffinities:
    - {affinityName: primary, clusterNames: [member1]}
    - {affinityName: backup, clusterNames: [member3]}
  failover:
    application:
      decisionConditions: {tolerationSeconds: 10}
      purgeMode: Never
      statePreservation:
        rules:
        - {aliasLabelName: e2e.fedhq.io/replicas, jsonPath: "{ .replicas }"}
`, "apply", "-n", ns, "-f", "-")
	start := time.Now()
	expectPlacement(t, ns, "app", "member1=2")
	expectPlacement(t, ns, "app", "member3=2")
	t.Logf("moved off member1 %s after the apply", time.Since(start).Round(100*time.Millisecond))
	m1, m3 := memberClient(t, "member1"), memberClient(t, "member3")
	expectReady(t, time.Minute, m3, "member3", ns, "app", 2)
	expectOutput(t, 30*time.Second, memberKubeconfig("member3"), "2", "get", "deploy", "app", "-n", ns,
		"-o", `jsonpath={.metadata.labels.e2e\.fedhq\.io/replicas}`)
	expectOutput(t, 30*time.Second, fleet, "member1 Never ApplicationFailure", "get", "rb", "app-deployment", "-n", ns, "-o",
		"jsonpath={.spec.gracefulEvictionTasks[0].fromCluster} {.spec.gracefulEvictionTasks[0].purgeMode} {.spec.gracefulEvictionTasks[0].reason}")
	expectOutput(t, 30*time.Second, fleet, "ApplicationFailover", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=app,reason=ApplicationFailover", "-o", "jsonpath={.items[0].reason}")
	// Never: member1's copy stays.
	holds(t, 3*time.Second, func() error {
		uid, _, err := memberDeployment(ctx, m1, ns, "app")
		if err != nil || uid == "" {
			return fmt.Errorf("member1's copy is gone (%v); purgeMode Never keeps it", err)
		}
		return nil
	})

	// The task removed by hand: member1's copy goes, and the label with the task. The
	// workload stays in the backup group it moved to, as placements with clusterAffinities do.
	kubectl(t, fleet, "patch", "rb", "app-deployment", "-n", ns, "--type=json", "-p", `[{"op": "remove", "path": "/spec/gracefulEvictionTasks"}]`)
	waitFor(t, 30*time.Second, func() error {
		uid, _, err := memberDeployment(ctx, m1, ns, "app")
		if err != nil || uid != "" {
			return fmt.Errorf("member1 still runs its copy (%v)", err)
		}
		return nil
	})
	expectOutput(t, 30*time.Second, memberKubeconfig("member3"), "", "get", "deploy", "app", "-n", ns,
		"-o", `jsonpath={.metadata.labels.e2e\.fedhq\.io/replicas}`)
	holds(t, 3*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "app-deployment", "-n", ns, "-o", "jsonpath={.spec.clusters[*].name}")
		if err != nil || out != "member3" {
			return fmt.Errorf("placed on %q (%v), want member3 alone", out, err)
		}
		return nil
	})
	removeWorkload(t, ns, "app")
}

// TestFailoverTaintByHand taints member3 NoExecute with kubectl fed taint, as a drill: a
// workload that does not tolerate it leaves member3 for member1; with the default purge
// mode (Gracefully) member3's copy stays, the binding saying so in its eviction task,
// until member1's copy is ready, and with purgeMode Directly it goes at once.
func TestFailoverTaintByHand(t *testing.T) {
	ctx := context.Background()
	bin := buildKubectlFed(t)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	placement := "{" + staticWeights(map[string]int{"member1": 1, "member3": 1}) + "}"
	propagate(t, ns, "graceful", 2, "", placement)
	propagate(t, ns, "direct", 2, "", placement)
	kubectl(t, fleet, "patch", "pp", "direct", "-n", ns, "--type=merge", "-p", `{"spec": {"failover": {"cluster": {"purgeMode": "Directly"}}}}`)
	m3 := memberClient(t, "member3")
	for _, name := range []string{"graceful", "direct"} {
		expectPlacement(t, ns, name, "member1=1 member3=1")
		expectReady(t, time.Minute, m3, "member3", ns, name, 1)
	}

	const key = "e2e.fedhq.io/drill"
	untaint := func() (string, string, error) { return runFed(bin, "taint", "clusters", "member3", key+":NoExecute-") }
	if _, stderr, err := runFed(bin, "taint", "clusters", "member3", key+"="+ns+":NoExecute"); err != nil {
		t.Fatalf("kubectl fed taint: %v: %s", err, stderr)
	}
	t.Cleanup(func() { _, _, _ = untaint() })
	for _, name := range []string{"graceful", "direct"} {
		expectPlacement(t, ns, name, "member1=2")
	}
	// Gracefully: the task is on the binding and member3's copy is there while member1's
	// replicas start (kwok makes them ready within seconds, so this is read at once).
	graceful, _, err := memberDeployment(ctx, m3, ns, "graceful")
	tasks, _ := runKubectl(fleet, "get", "rb", "graceful-deployment", "-n", ns, "-o", "jsonpath={.spec.gracefulEvictionTasks[*].fromCluster}")
	t.Logf("right after the move: graceful's copy on member3 %q (%v), eviction tasks from %q", graceful, err, tasks)
	expectReady(t, time.Minute, memberClient(t, "member1"), "member1", ns, "graceful", 2)
	for _, name := range []string{"graceful", "direct"} {
		waitFor(t, 30*time.Second, func() error {
			uid, _, err := memberDeployment(ctx, m3, ns, name)
			if err != nil || uid != "" {
				return fmt.Errorf("member3 still runs %s (%v)", name, err)
			}
			return nil
		})
		expectOutput(t, 30*time.Second, fleet, "", "get", "rb", name+"-deployment", "-n", ns, "-o", "jsonpath={.spec.gracefulEvictionTasks}")
	}
	expectOutput(t, 30*time.Second, fleet, "EvictionDone", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=graceful,reason=EvictionDone", "-o", "jsonpath={.items[0].reason}")
	// Directly made no task, so no task ended.
	expectOutput(t, 5*time.Second, fleet, "", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=direct,reason=EvictionDone", "-o", "jsonpath={.items[*].reason}")
	if _, stderr, err := untaint(); err != nil {
		t.Fatalf("kubectl fed taint %s-: %v: %s", key, err, stderr)
	}
	expectPlacement(t, ns, "graceful", "member1=1 member3=1") // static weights divide afresh
	removeWorkload(t, ns, "graceful")
	removeWorkload(t, ns, "direct")
}
