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
	"strings"
	"testing"
	"time"
)

// groupDeployment is a Deployment of one replica with labels.
func groupDeployment(name, labels string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, labels: {%[2]s}}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec: {containers: [{name: app, image: nginx}]}
---
`, name, labels)
}

// placedOn is the one cluster a Deployment's binding places it on, "" while it is placed
// on none.
func placedOn(t *testing.T, ns, name string) string {
	t.Helper()
	out, err := runKubectl(theLab.FleetKubeconfig(), "get", "rb", name+"-deployment", "-n", ns, "-o", "jsonpath={.spec.clusters[*].name}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Anti-affinity (the example): three templates of one group, each Duplicated to
// one member, land on three different members; a fourth stays unscheduled and says why;
// one of the three deleted, the fourth takes its member.
func TestWorkloadAntiAffinity(t *testing.T) {
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	var docs strings.Builder
	for i := 1; i <= 3; i++ {
		docs.WriteString(groupDeployment(fmt.Sprintf("web-%d", i), "ha.example.com/group: web"))
	}
	docs.WriteString(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: ha}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {replicaSchedulingType: Duplicated}
    spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]
    workloadAffinity: {antiAffinity: {groupByLabelKey: ha.example.com/group}}
`)
	kubectlStdin(t, fleet, docs.String(), "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "deploy", "--all", "-n", ns, "--wait=false") })
	placed := map[string]string{}
	waitFor(t, time.Minute, func() error {
		seen := map[string]bool{}
		for i := 1; i <= 3; i++ {
			name := fmt.Sprintf("web-%d", i)
			on := placedOn(t, ns, name)
			if on == "" || strings.Contains(on, " ") {
				return fmt.Errorf("%s is placed on %q, want one member", name, on)
			}
			placed[name] = on
			seen[on] = true
		}
		if len(seen) != 3 {
			return fmt.Errorf("the three share members: %v", placed)
		}
		return nil
	})
	t.Logf("placed: %v", placed)

	// The fourth: every member runs one of its group.
	kubectlStdin(t, fleet, groupDeployment("web-4", "ha.example.com/group: web"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, fleet, "False NoClusterFit", "get", "rb", "web-4-deployment", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="Scheduled")].status} {.status.conditions[?(@.type=="Scheduled")].reason}`)
	msg := kubectl(t, fleet, "get", "rb", "web-4-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Scheduled")].message}`)
	if !strings.Contains(msg, "run a workload of its anti-affinity group ha.example.com/group=web") {
		t.Errorf("web-4's Scheduled message: %q, want it to name the anti-affinity group", msg)
	}
	expectOutput(t, 30*time.Second, fleet, "ScheduleFailed", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=web-4,reason=ScheduleFailed", "-o", "jsonpath={.items[0].reason}")

	// A template without the label is in no group: placed as the policy says.
	kubectlStdin(t, fleet, groupDeployment("solo", "team: a"), "apply", "-n", ns, "-f", "-")
	waitFor(t, 30*time.Second, func() error {
		if on := placedOn(t, ns, "solo"); on == "" {
			return fmt.Errorf("solo is not placed")
		}
		return nil
	})

	// One of the three goes: the fourth takes its member, within seconds.
	kubectl(t, fleet, "delete", "deploy", "web-2", "-n", ns)
	waitFor(t, 30*time.Second, func() error {
		if on := placedOn(t, ns, "web-4"); on != placed["web-2"] {
			return fmt.Errorf("web-4 is placed on %q, want %s, which web-2 left", on, placed["web-2"])
		}
		return nil
	})
	expectMemberReplicas(t, ns, "web-4", map[string]int64{placed["web-2"]: 1})
}

// Affinity: a template follows the others of its group to their member, also when they
// move because a NoExecute taint took their member.
func TestWorkloadAffinity(t *testing.T) {
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	bin := buildKubectlFed(t)
	kubectlStdin(t, fleet, groupDeployment("db", "app.group: shop")+`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: together}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {replicaSchedulingType: Duplicated}
    spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]
    workloadAffinity: {affinity: {groupByLabelKey: app.group}}
  failover: {cluster: {purgeMode: Directly}}
`, "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "deploy", "--all", "-n", ns, "--wait=false") })
	var first string
	waitFor(t, time.Minute, func() error {
		if first = placedOn(t, ns, "db"); first == "" {
			return fmt.Errorf("db is not placed")
		}
		return nil
	})
	// The spread alone would put web on the member with the most room, or the first by
	// name; the affinity puts it with db, twice over for each later one.
	kubectlStdin(t, fleet, groupDeployment("web", "app.group: shop")+groupDeployment("cache", "app.group: shop"), "apply", "-n", ns, "-f", "-")
	for _, name := range []string{"web", "cache"} {
		waitFor(t, 30*time.Second, func() error {
			if on := placedOn(t, ns, name); on != first {
				return fmt.Errorf("%s is placed on %q, want %s with db", name, on, first)
			}
			return nil
		})
	}
	expectMemberReplicas(t, ns, "web", map[string]int64{first: 1})

	// A NoExecute taint on their member moves the group, together.
	const key = "e2e.fedhq.io/affinity"
	if _, stderr, err := runFed(bin, "taint", "clusters", first, key+"="+ns+":NoExecute"); err != nil {
		t.Fatalf("kubectl fed taint: %v: %s", err, stderr)
	}
	t.Cleanup(func() { _, _, _ = runFed(bin, "taint", "clusters", first, key+":NoExecute-") })
	var moved string
	waitFor(t, time.Minute, func() error {
		var at []string
		for _, name := range []string{"db", "web", "cache"} {
			at = append(at, placedOn(t, ns, name))
		}
		if at[0] == "" || at[0] == first || slices.ContainsFunc(at, func(on string) bool { return on != at[0] }) {
			return fmt.Errorf("db, web and cache are on %q, want them together off %s", at, first)
		}
		moved = at[0]
		return nil
	})
	t.Logf("the group moved from %s to %s", first, moved)
	expectMemberReplicas(t, ns, "web", map[string]int64{moved: 1})
	if _, stderr, err := runFed(bin, "taint", "clusters", first, key+":NoExecute-"); err != nil {
		t.Fatalf("kubectl fed taint %s-: %v: %s", key, err, stderr)
	}
}

// Overflow groups (the example): member1, the primary group, has room for 4
// replicas; member2 and member3 are the overflow group. 6 replicas: 4 on member1 and 2 on
// the overflow group; scaled to 3, all on member1.
func TestOverflowAffinities(t *testing.T) {
	waitFedSeesFree(t, "member1", mustFreeCPU(t, "member1"))
	free := mustFreeCPU(t, "member1")
	var total int64
	for _, m := range free {
		total += m
	}
	if len(free) != 1 {
		t.Fatalf("member1 has %d Ready nodes, the test sizes replicas for its one: %v", len(free), free)
	}
	// Each replica requests a quarter of member1's free CPU: it has room for 4.
	request := total / 4
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: burst}
spec:
  replicas: 6
  selector: {matchLabels: {app: burst}}
  template:
    metadata: {labels: {app: burst}}
    spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: %dm}}}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: overflow}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: burst}]
  placement:
    replicaScheduling: {replicaSchedulingType: Divided}
    clusterAffinities:
    - affinityName: local
      clusterNames: [member1]
      overflowAffinities:
      - affinityName: cloud
        clusterNames: [member2, member3]
`, request), "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() { removeWorkload(t, ns, "burst") })
	spread := func() map[string]int {
		out, _ := runKubectl(fleet, "get", "rb", "burst-deployment", "-n", ns, "-o", `jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}`)
		got := map[string]int{}
		for _, f := range strings.Fields(out) {
			name, n, _ := strings.Cut(f, "=")
			var v int
			fmt.Sscan(n, &v)
			got[name] = v
		}
		return got
	}
	waitFor(t, time.Minute, func() error {
		got := spread()
		if got["member1"] != 4 || got["member2"]+got["member3"] != 2 {
			return fmt.Errorf("placed %v, want 4 on member1 and 2 on member2 and member3 (each replica requests %dm, member1 has %dm free)", got, request, total)
		}
		return nil
	})
	expectOutput(t, 10*time.Second, fleet, "local", "get", "rb", "burst-deployment", "-n", ns, "-o", "jsonpath={.status.schedulerObservingAffinityName}")
	kubectl(t, fleet, "scale", "deploy", "burst", "-n", ns, "--replicas=3")
	expectPlacement(t, ns, "burst", "member1=3")
	expectMemberReplicas(t, ns, "burst", map[string]int64{"member1": 3})
}

func mustFreeCPU(t *testing.T, member string) map[string]int64 {
	t.Helper()
	free, err := nodeFreeCPU(t, member)
	if err != nil {
		t.Fatal(err)
	}
	return free
}
