package e2e

import (
	"fmt"
	"testing"
	"time"
)

// TestRebalanceByLoad runs seed 000's ReplicaSchedulingPolicy (its threshold at 40% of
// CPU): a Deployment of 4 replicas of 500m, divided by dynamic weights, first on member1
// alone (4 CPU: its pods then request 50%), then allowed on member3 too, which the
// scheduler leaves as it is (the same count keeps its place). The rebalancer moves one
// replica to member3, which brings member1 to 37.5%, and no more: member1 is no longer
// above the threshold, and the move stays.
func TestRebalanceByLoad(t *testing.T) {
	waitNodesFree(t, "member1", 3900, 4001)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	dynamicOn := func(clusters string) string {
		return "{clusterAffinity: {clusterNames: [" + clusters + "]}, replicaScheduling: {replicaSchedulingType: Divided," +
			" replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}}"
	}
	propagate(t, ns, "loaded", 4, "{cpu: 500m}", dynamicOn("member1"))
	expectPlacement(t, ns, "loaded", "member1=4")
	expectMemberReady(t, "member1", ns, "loaded", 4)
	propagate(t, ns, "loaded", 4, "{cpu: 500m}", dynamicOn("member1, member3"))
	holds(t, 2*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "loaded-deployment", "-n", ns, "-o", "jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}")
		if err != nil || out != "member1=4 " {
			return fmt.Errorf("placed on %q (%v) before any policy, want member1=4", out, err)
		}
		return nil
	})

	name := "e2e-rebalance-" + ns
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: ReplicaSchedulingPolicy
metadata:
  name: `+name+`
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, namespace: `+ns+`}
  reschedulePolicy:
    enabled: true
    interval: 10s
    threshold:
      cpuUtilization: 40
      memoryUtilization: 80
`, "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "rsp", name) })
	start := time.Now()
	expectPlacement(t, ns, "loaded", "member1=3 member3=1")
	t.Logf("rebalanced %s after the policy", time.Since(start).Round(100*time.Millisecond))
	expectOutput(t, 30*time.Second, fleet, "Rebalanced", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=loaded,reason=Rebalanced", "-o", "jsonpath={.items[0].reason}")
	expectOutput(t, 30*time.Second, fleet, "member1 member3 1 True", "get", "rsp", name, "-o",
		`jsonpath={.status.moves[0].fromCluster} {.status.moves[0].toCluster} {.status.moves[0].replicas} {.status.conditions[?(@.type=="Ready")].status}`)
	expectMemberReady(t, "member3", ns, "loaded", 1)
	// The rebalancer asked; the scheduler made the move and took the request away.
	expectOutput(t, 10*time.Second, fleet, "", "get", "rb", "loaded-deployment", "-n", ns, "-o", "jsonpath={.spec.replicaMoves}")
	// Another pass: member1 is at 37.5%, below the threshold, and nothing moves back.
	holds(t, 12*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "loaded-deployment", "-n", ns, "-o", "jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}")
		if err != nil || out != "member1=3 member3=1 " {
			return fmt.Errorf("placed on %q (%v), want member1=3 member3=1", out, err)
		}
		return nil
	})
	removeWorkload(t, ns, "loaded")
}
