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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFederatedResourceQuota runs the quota of the walkthrough: a namespace with an
// overall quota of 4 CPU; a template of 3 × 1 CPU divided over member1 and member2 is
// placed; a second of 2 × 1 CPU is held with a condition and an event naming the quota and
// what is left; the first deleted, the second is placed within seconds; scaled to 5 it is
// held, its 2 replicas kept, and reported; the quota raised, the scale-up goes through; its
// requests raised where it runs, over the quota, the update is refused. The quota's status
// counts what is placed throughout.
func TestFederatedResourceQuota(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedResourceQuota
metadata:
  name: compute
spec:
  overall: {cpu: "4", pods: "20"}
`, "apply", "-n", ns, "-f", "-")
	divided := "{" + staticWeights(map[string]int{"member1": 1, "member2": 1}) + "}"
	used := []string{"get", "frq", "compute", "-n", ns, "-o", "jsonpath={.status.overallUsed.cpu}/{.status.overallUsed.pods}"}
	// expectScheduled waits for a binding's Scheduled status/reason and its replicas placed in all.
	expectScheduled := func(name, want string, replicas int) {
		t.Helper()
		waitFor(t, time.Minute, func() error {
			out, err := runKubectl(fleet, "get", "rb", name+"-deployment", "-n", ns, "-o",
				`jsonpath={.status.conditions[?(@.type=="Scheduled")].status}/{.status.conditions[?(@.type=="Scheduled")].reason} {.spec.clusters[*].replicas}`)
			if err != nil {
				return err
			}
			fields := strings.Fields(out)
			sum := 0
			for _, f := range fields[min(1, len(fields)):] {
				n, _ := strconv.Atoi(f)
				sum += n
			}
			if len(fields) == 0 || fields[0] != want || sum != replicas {
				return fmt.Errorf("binding %s: %q, want %s with %d replicas placed", name, out, want, replicas)
			}
			return nil
		})
	}

	propagate(t, ns, "first", 3, "{cpu: 1}", divided)
	expectScheduled("first", "True/Success", 3)
	expectOutput(t, 30*time.Second, fleet, "3/3", used...)
	// kubectl get prints it as it prints a ResourceQuota: used/hard of each resource.
	if out := kubectl(t, fleet, "get", "frq", "-n", ns, "--no-headers"); !strings.HasPrefix(out, "compute   cpu: 3/4, pods: 3/20   ") {
		t.Errorf("kubectl get frq printed %q, want compute's REQUEST cpu: 3/4, pods: 3/20", out)
	}

	// 2 more CPU than the 1 left: held, not placed, and said so on the binding and the template.
	propagate(t, ns, "second", 2, "{cpu: 1}", divided)
	expectScheduled("second", "False/QuotaExceeded", 0)
	want := "FederatedResourceQuota " + ns + "/compute exceeded for cpu: the workload needs 2, 1 of 4 is left (3 used by the namespace's other workloads)"
	expectOutput(t, 10*time.Second, fleet, want+"; the workload is not placed until the quota has room", "get", "rb", "second-deployment", "-n", ns,
		"-o", `jsonpath={.status.conditions[?(@.type=="Scheduled")].message}`)
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=second", "-o", "jsonpath={range .items[*]}{.reason}:{.message}{\"\\n\"}{end}")
		if err != nil || !strings.Contains(out, "ScheduleFailed:"+want) {
			return fmt.Errorf("events of the template:\n%s (%v)\nwant ScheduleFailed: %s", out, err, want)
		}
		return nil
	})
	expectOutput(t, 5*time.Second, memberKubeconfig("member1"), "", "get", "deploy", "second", "-n", ns, "--ignore-not-found", "-o", "name")

	// The first deleted: the second is placed within seconds.
	kubectl(t, fleet, "delete", "deploy", "first", "-n", ns)
	start := time.Now()
	expectScheduled("second", "True/Success", 2)
	t.Logf("the second placed %s after the first was deleted", time.Since(start).Round(100*time.Millisecond))
	expectOutput(t, 30*time.Second, fleet, "2/2", used...)

	// Scaled to 5: held at its 2 replicas, and said so.
	kubectl(t, fleet, "scale", "deploy", "second", "-n", ns, "--replicas=5")
	expectScheduled("second", "False/QuotaExceeded", 2)
	expectOutput(t, 10*time.Second, fleet, "FederatedResourceQuota "+ns+"/compute exceeded for cpu: the workload needs 5, 4 of 4 is left (0 used by the namespace's other workloads); the workload stays on member1 (1), member2 (1) until the quota has room",
		"get", "rb", "second-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Scheduled")].message}`)
	expectOutput(t, 30*time.Second, memberKubeconfig("member1"), "1", "get", "deploy", "second", "-n", ns, "-o", "jsonpath={.spec.replicas}")

	// The quota raised: the scale-up goes through.
	kubectl(t, fleet, "patch", "frq", "compute", "-n", ns, "--type=merge", "-p", `{"spec":{"overall":{"cpu":"6"}}}`)
	expectScheduled("second", "True/Success", 5)
	expectOutput(t, 30*time.Second, fleet, "5/5", used...)
	expectOutput(t, 10*time.Second, fleet, "6", "get", "frq", "compute", "-n", ns, "-o", "jsonpath={.status.overall.cpu}")

	// Each replica asking for more where they run: refused at the fleet API, the template
	// unchanged. Fewer replicas each asking for more, within the quota: stored and applied.
	out, err := runKubectl(fleet, "set", "resources", "deploy", "second", "-n", ns, "-c", "app", "--requests=cpu=2")
	want = "is forbidden: FederatedResourceQuota " + ns + "/compute exceeded for cpu: the workload needs 10, 6 of 6 is left (0 used by the namespace's other workloads); " +
		"its replicas already run on member1, member2 and would each request more: lower the requests, or raise the quota"
	if err == nil || !strings.Contains(out+err.Error(), want) {
		t.Errorf("kubectl set resources --requests=cpu=2 printed %q (%v), want it refused: %s", out, err, want)
	}
	requests := []string{"get", "deploy", "second", "-n", ns, "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].resources.requests.cpu}"}
	expectOutput(t, 5*time.Second, fleet, "5 1", requests...)
	kubectl(t, fleet, "patch", "deploy", "second", "-n", ns, "-p", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"2"}}}]}}}}`)
	expectScheduled("second", "True/Success", 3)
	expectOutput(t, 30*time.Second, fleet, "6/3", used...)
	expectOutput(t, 30*time.Second, memberKubeconfig("member1"), "2", "get", "deploy", "second", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].resources.requests.cpu}")
}

// TestFederatedResourceQuotaStaticAssignments: each member a quota assigns a part to gets a
// ResourceQuota of the quota's name with that hard, changed with the quota, its use reported
// back in the quota's status; the assignment or the quota removed, it is gone.
func TestFederatedResourceQuotaStaticAssignments(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2, m3 := memberKubeconfig("member1"), memberKubeconfig("member2"), memberKubeconfig("member3")
	quota := func(cpu1, cpu2 string) string {
		return fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedResourceQuota
metadata:
  name: team
spec:
  overall: {cpu: "8", memory: 8Gi}
  staticAssignments:
  - {clusterName: member1, hard: {cpu: "%s", memory: 2Gi}}
  - {clusterName: member2, hard: {cpu: "%s"}}
`, cpu1, cpu2)
	}
	kubectlStdin(t, fleet, quota("2", "3"), "apply", "-n", ns, "-f", "-")
	hard := []string{"get", "resourcequota", "team", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.hard.cpu}"}
	expectOutput(t, time.Minute, m1, "2", hard...)
	expectOutput(t, time.Minute, m2, "3", hard...)
	expectOutput(t, 5*time.Second, m3, "", hard...)
	// The members' ResourceQuotas' hard and use, in the quota's status.
	expectOutput(t, time.Minute, fleet, "member1=2/0 member2=3/0 True", "get", "frq", "team", "-n", ns, "-o",
		`jsonpath={range .status.aggregatedStatus[*]}{.clusterName}={.hard.cpu}/{.used.cpu} {end}{.status.conditions[?(@.type=="Ready")].status}`)
	// One row per member, as kubectl get quota prints a ResourceQuota.
	out, stderr, err := runFed(buildKubectlFed(t), "get", "quota", "-n", ns, "--all-clusters", "--cache=false", "--no-headers")
	if err != nil {
		t.Fatalf("kubectl fed get quota: %v\n%s", err, stderr)
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		rows = append(rows, strings.Join(f[:2], " ")+" "+strings.Join(f[3:], " "))
	}
	if want := []string{"team member1 cpu: 0/2, memory: 0/2Gi Y", "team member2 cpu: 0/3 Y"}; !slices.Equal(rows, want) {
		t.Errorf("kubectl fed get quota --all-clusters printed\n%s\nwant the rows (NAME CLUSTER, then REQUEST and ADOPTION after AGE) %q", out, want)
	}

	// Changed: the members follow; member2's assignment removed, its ResourceQuota goes.
	kubectlStdin(t, fleet, quota("4", "3"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, time.Minute, m1, "4", hard...)
	kubectl(t, fleet, "patch", "frq", "team", "-n", ns, "--type=json", "-p", `[{"op":"remove","path":"/spec/staticAssignments/1"}]`)
	expectOutput(t, time.Minute, m2, "", hard...)
	expectOutput(t, 5*time.Second, m1, "4", hard...)

	// The quota deleted: its ResourceQuotas go.
	kubectl(t, fleet, "delete", "frq", "team", "-n", ns)
	expectOutput(t, time.Minute, m1, "", hard...)
}

// TestFederatedResourceQuotaRefused: bad quotas are refused with what is wrong, and nothing
// is stored.
func TestFederatedResourceQuotaRefused(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	for _, tc := range []struct{ spec, want string }{
		{`{overall: {cpu: "-1"}}`, "spec.overall[cpu]"},
		{`{overall: {cpu: "lots"}}`, "quantities must match the regular expression"},
		{`{overall: {cpu: "2"}, staticAssignments: [{clusterName: member1, hard: {cpu: "2"}}, {clusterName: member2, hard: {cpu: "1"}}]}`, "spec.staticAssignments"},
		{`{overall: {"limits.cpu": "2"}}`, "limits.cpu"},
	} {
		_, err := runKubectlWith(fleet, "apiVersion: federation.fedhq.io/v1alpha1\nkind: FederatedResourceQuota\nmetadata: {name: bad}\nspec: "+tc.spec+"\n", nil, "apply", "-n", ns, "-f", "-")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("spec %s: %v, want an error naming %q", tc.spec, err, tc.want)
		}
	}
	expectOutput(t, 5*time.Second, fleet, "", "get", "frq", "-n", ns, "-o", "name")
}

// TestTenancyQuota: a namespace admin, who may not write ResourceQuotas in the host, does
// not get one into a member through a FederatedResourceQuota's static assignment: the
// quota says why, and the member has none.
func TestTenancyQuota(t *testing.T) {
	t.Parallel()
	tn := newTenant(t, "e2e-quota")
	kubectl(t, theLab.Host.Kubeconfig, "-n", tn.ns, "create", "role", "fed-quotas", "--verb=*", "--resource=federatedresourcequotas.federation.fedhq.io")
	kubectl(t, theLab.Host.Kubeconfig, "-n", tn.ns, "create", "rolebinding", "team-fed-quotas", "--role=fed-quotas", "--serviceaccount="+tn.ns+":team")
	quota := "apiVersion: federation.fedhq.io/v1alpha1\nkind: FederatedResourceQuota\nmetadata: {name: mine, namespace: " + tn.ns + "}\n" +
		"spec:\n  overall: {cpu: \"100\"}\n  staticAssignments:\n  - {clusterName: member1, hard: {cpu: \"100\"}}\n"
	waitFor(t, 15*time.Second, func() error { _, err := tn.apply(quota); return err })
	expectOutput(t, time.Minute, theLab.FleetKubeconfig(), "False Refused", "get", "frq", "mine", "-n", tn.ns,
		"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason}`)
	msg := kubectl(t, theLab.FleetKubeconfig(), "get", "frq", "mine", "-n", tn.ns, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].message}`)
	if !strings.Contains(msg, "written by "+tn.user) || !strings.Contains(msg, "resourcequotas") {
		t.Errorf("Ready's message %q, want it to name the author %s and what the host refused", msg, tn.user)
	}
	expectOutput(t, 5*time.Second, memberKubeconfig("member1"), "", "get", "resourcequota", "mine", "-n", tn.ns, "--ignore-not-found", "-o", "name")
}
