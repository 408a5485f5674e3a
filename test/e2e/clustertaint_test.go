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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clusterCondition sets (or, with status "", removes) a condition of member's Cluster
// status, as a detector of the user's own would, with a JSON patch of the status
// subresource that leaves fed's conditions alone.
func clusterCondition(t *testing.T, member, condType string, status metav1.ConditionStatus) {
	t.Helper()
	_, fed := hostClients(t)
	c, err := fed.ClusterV1alpha1().Clusters().Get(context.Background(), member, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(c.Status.Conditions, func(c metav1.Condition) bool { return c.Type == condType })
	var op []map[string]any
	cond := map[string]any{"type": condType, "status": string(status), "reason": "E2E", "message": "set by the test",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	switch {
	case status == "" && i < 0:
		return
	case status == "":
		op = []map[string]any{{"op": "remove", "path": fmt.Sprintf("/status/conditions/%d", i)}}
	case i < 0:
		op = []map[string]any{{"op": "add", "path": "/status/conditions/-", "value": cond}}
	default:
		op = []map[string]any{{"op": "replace", "path": fmt.Sprintf("/status/conditions/%d", i), "value": cond}}
	}
	patch, _ := json.Marshal(op)
	kubectl(t, theLab.FleetKubeconfig(), "patch", "cluster", member, "--subresource=status", "--type=json", "-p", string(patch))
}

// The example: a ClusterTaintPolicy taints member3 NoExecute when a condition the
// test writes on its Cluster turns False, which moves a workload off it as a failover
// does, and untaints it when the condition turns True, which brings it back. A policy
// written by someone who may not update Clusters taints nothing and says why.
func TestClusterTaintPolicy(t *testing.T) {
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	const condType, taintKey = "e2e.fedhq.io/DetectorReady", "e2e.fedhq.io/detector-down"
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: e2e-detector}
spec:
  targetClusters: {clusterNames: [member3]}
  addOnConditions: [{conditionType: `+condType+`, operator: In, statusValues: ["False", Unknown]}]
  removeOnConditions: [{conditionType: `+condType+`, operator: In, statusValues: ["True"]}]
  taints: [{key: `+taintKey+`, effect: NoExecute}]
`, "apply", "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "ctp", "e2e-detector", "--ignore-not-found")
		clusterCondition(t, "member3", condType, "")
		_, fed := hostClients(t)
		if c, err := fed.ClusterV1alpha1().Clusters().Get(context.Background(), "member3", metav1.GetOptions{}); err == nil {
			c.Spec.Taints = slices.DeleteFunc(c.Spec.Taints, func(tn corev1.Taint) bool { return tn.Key == taintKey })
			_, _ = fed.ClusterV1alpha1().Clusters().Update(context.Background(), c, metav1.UpdateOptions{})
		}
	})
	taints := func() string {
		out, _ := runKubectl(fleet, "get", "cluster", "member3", "-o", `jsonpath={range .spec.taints[*]}{.key}:{.effect} {end}`)
		return out
	}
	tainted := func(want bool) {
		t.Helper()
		waitFor(t, 30*time.Second, func() error {
			if got := slices.Contains(strings.Fields(taints()), taintKey+":NoExecute"); got != want {
				return fmt.Errorf("member3's taints %q: want %s there: %v", taints(), taintKey, want)
			}
			return nil
		})
	}
	propagate(t, ns, "app", 1, "", `{clusterAffinity: {clusterNames: [member1, member3]}, replicaScheduling: {replicaSchedulingType: Duplicated}}`)
	expectPlacement(t, ns, "app", "member1=1 member3=1")

	// No condition yet: the policy does nothing.
	time.Sleep(2 * time.Second)
	tainted(false)
	clusterCondition(t, "member3", condType, metav1.ConditionFalse)
	tainted(true)
	expectPlacement(t, ns, "app", "member1=1")
	expectOutput(t, 30*time.Second, fleet, "TaintClusterSucceed", "get", "events", "-A", "--field-selector",
		"involvedObject.kind=Cluster,involvedObject.name=member3,reason=TaintClusterSucceed", "-o", "jsonpath={.items[0].reason}")
	// fed's API server stamps a NoExecute taint with the time it was added.
	if added := kubectl(t, fleet, "get", "cluster", "member3", "-o", `jsonpath={.spec.taints[?(@.key=="`+taintKey+`")].timeAdded}`); added == "" {
		t.Errorf("the policy's NoExecute taint has no timeAdded")
	}

	// The condition True again: the taint goes, the workload comes back.
	clusterCondition(t, "member3", condType, metav1.ConditionTrue)
	tainted(false)
	expectPlacement(t, ns, "app", "member1=1 member3=1")

	// The policy deleted, the condition False: no taint (and none is removed for it).
	kubectl(t, fleet, "delete", "ctp", "e2e-detector")
	clusterCondition(t, "member3", condType, metav1.ConditionFalse)
	time.Sleep(2 * time.Second)
	tainted(false)

	// Written by someone the host lets write ClusterTaintPolicies but not update Clusters.
	const author = "e2e-ctp-author"
	kubectlStdin(t, theLab.Host.Kubeconfig, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: e2e-ctp-author}
rules:
- {apiGroups: [federation.fedhq.io], resources: [clustertaintpolicies], verbs: [get, list, create, update, patch, delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: e2e-ctp-author}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-ctp-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: `+author+`}]
`, "apply", "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "clusterrolebinding,clusterrole", "e2e-ctp-author", "--ignore-not-found")
	})
	kubectlStdin(t, theLab.Host.Kubeconfig, `apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: e2e-detector}
spec:
  targetClusters: {clusterNames: [member3]}
  addOnConditions: [{conditionType: `+condType+`, operator: In, statusValues: ["False"]}]
  taints: [{key: `+taintKey+`, effect: NoExecute}]
`, "apply", "--as", author, "-f", "-")
	expectOutput(t, 30*time.Second, fleet, "AuthorRefused", "get", "events", "-A", "--field-selector",
		"involvedObject.kind=ClusterTaintPolicy,involvedObject.name=e2e-detector,reason=AuthorRefused", "-o", "jsonpath={.items[0].reason}")
	tainted(false)
}

// A WorkloadRebalancer (the example, with Karmada's own use of it): two
// Deployments whose primary group of clusterAffinities (member1) was tainted went to the
// backup group (member2), and stay there once member1 is back, as Karmada's do. A
// rebalancer naming them, and a third the fleet does not propagate, places the two afresh
// on member1, reports each result, and with ttlSecondsAfterFinished deletes itself.
func TestWorkloadRebalancer(t *testing.T) {
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	bin := buildKubectlFed(t)
	placement := `{replicaScheduling: {replicaSchedulingType: Duplicated}, clusterAffinities: [{affinityName: primary, clusterNames: [member1]}, {affinityName: backup, clusterNames: [member2]}]}`
	for _, name := range []string{"web", "api"} {
		propagate(t, ns, name, 1, "", placement)
		kubectl(t, fleet, "patch", "pp", name, "-n", ns, "--type=merge", "-p", `{"spec": {"failover": {"cluster": {"purgeMode": "Directly"}}}}`)
		expectPlacement(t, ns, name, "member1=1")
	}
	const key = "e2e.fedhq.io/rebalance"
	if _, stderr, err := runFed(bin, "taint", "clusters", "member1", key+"="+ns+":NoExecute"); err != nil {
		t.Fatalf("kubectl fed taint: %v: %s", err, stderr)
	}
	untaint := func() (string, string, error) { return runFed(bin, "taint", "clusters", "member1", key+":NoExecute-") }
	t.Cleanup(func() { _, _, _ = untaint() })
	for _, name := range []string{"web", "api"} {
		expectPlacement(t, ns, name, "member2=1")
	}
	if _, stderr, err := untaint(); err != nil {
		t.Fatalf("kubectl fed taint %s-: %v: %s", key, err, stderr)
	}
	// member1 is back: they stay in the backup group.
	time.Sleep(3 * time.Second)
	for _, name := range []string{"web", "api"} {
		expectPlacement(t, ns, name, "member2=1")
	}

	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: WorkloadRebalancer
metadata: {name: %[1]s}
spec:
  workloads:
  - {apiVersion: apps/v1, kind: Deployment, namespace: %[1]s, name: web}
  - {apiVersion: apps/v1, kind: Deployment, namespace: %[1]s, name: api}
  - {apiVersion: apps/v1, kind: Deployment, namespace: %[1]s, name: none-such}
  ttlSecondsAfterFinished: 20
`, ns), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "workloadrebalancer", ns, "--ignore-not-found") })
	for _, name := range []string{"web", "api"} {
		expectPlacement(t, ns, name, "member1=1")
	}
	expectMemberReplicas(t, ns, "web", map[string]int64{"member1": 1})
	expectOutput(t, 30*time.Second, fleet, "web=Successful/ api=Successful/ none-such=Failed/ReferencedBindingNotFound", "get", "workloadrebalancer", ns, "-o",
		`jsonpath={range .status.observedWorkloads[*]}{.workload.name}={.result}/{.reason}{" "}{end}`)
	if out := kubectl(t, fleet, "get", "workloadrebalancer", ns); !strings.Contains(out, "2 Successful, 1 Failed") {
		t.Errorf("kubectl get workloadrebalancer:\n%s\nwant RESULTS 2 Successful, 1 Failed", out)
	}
	if finished := kubectl(t, fleet, "get", "workloadrebalancer", ns, "-o", "jsonpath={.status.finishTime}"); finished == "" {
		t.Errorf("no finishTime once every workload has its result")
	}
	expectOutput(t, time.Minute, fleet, "", "get", "workloadrebalancer", ns, "--ignore-not-found", "-o", "name")
}
