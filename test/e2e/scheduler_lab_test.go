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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// labMembers are the lab's members, which the scheduler tests expect to be the only
// clusters fed knows.
var labMembers = []string{"member1", "member2", "member3"}

// propagate applies to the fleet a Deployment of one container with the given requests
// (a YAML flow mapping, or empty) and a PropagationPolicy with the given placement (a YAML
// flow mapping) that selects it.
func propagate(t *testing.T, ns, name string, replicas int64, requests, placement string) {
	t.Helper()
	resources := ""
	if requests != "" {
		resources = "\n        resources: {requests: " + requests + "}"
	}
	kubectlStdin(t, theLab.FleetKubeconfig(), fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - name: app
        image: nginx%[3]s
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: %[1]s
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: %[1]s}
  placement: %[4]s
`, name, replicas, resources, placement), "apply", "-n", ns, "-f", "-")
}

// expectPlacement waits until the binding of Deployment name says where it goes, as
// "member1=1 member2=1" in name order, and is Scheduled.
func expectPlacement(t *testing.T, ns, name, want string) {
	t.Helper()
	expectOutput(t, 30*time.Second, theLab.FleetKubeconfig(), want+" | True",
		"get", "rb", name+"-deployment", "-n", ns, "-o",
		`jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}| {.status.conditions[?(@.type=="Scheduled")].status}`)
}

// expectMemberReplicas waits until each lab member runs fed's copy of Deployment name with
// the replicas of want, and members not in want have none.
func expectMemberReplicas(t *testing.T, ns, name string, want map[string]int64) {
	t.Helper()
	for _, m := range labMembers {
		out := ""
		if n, ok := want[m]; ok {
			out = fmt.Sprintf("%d true", n)
		}
		expectOutput(t, time.Minute, memberKubeconfig(m), out, "get", "deploy", name, "-n", ns, "--ignore-not-found",
			"-o", `jsonpath={.spec.replicas} {.metadata.labels.federation\.fedhq\.io/managed}`)
	}
}

// removeWorkload deletes a Deployment from the fleet and waits until no member runs it,
// so that what it reserved is free again for the other tests on the lab.
func removeWorkload(t *testing.T, ns, name string) {
	t.Helper()
	kubectl(t, theLab.FleetKubeconfig(), "delete", "deploy", name, "-n", ns)
	expectMemberReplicas(t, ns, name, nil)
}

// free is what a cluster's resource summary says it can still hold of one resource.
func free(s *clusterv1alpha1.ResourceSummary, name corev1.ResourceName) int64 {
	q := s.Allocatable[name].DeepCopy()
	q.Sub(s.Allocated[name])
	q.Sub(s.Allocating[name])
	return q.MilliValue()
}

// room is how many replicas requesting cpu and memory (in milli-units) a cluster can still
// hold, with one pod each.
func room(c *clusterv1alpha1.Cluster, cpu, memory int64) int64 {
	s := c.Status.ResourceSummary
	if s == nil {
		return 0
	}
	return max(min(free(s, corev1.ResourceCPU)/cpu, free(s, corev1.ResourceMemory)/memory, free(s, corev1.ResourcePods)/1000), 0)
}

// labClusters reads fed's Clusters of the lab's members.
func labClusters(t *testing.T) []*clusterv1alpha1.Cluster {
	t.Helper()
	_, fed := hostClients(t)
	var out []*clusterv1alpha1.Cluster
	for _, name := range labMembers {
		c, err := fed.ClusterV1alpha1().Clusters().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestSchedulerAggregatedFewestMembers: a Divided/Aggregated Deployment lands on the fewest
// members that fit it given their different capacities. Its per-replica CPU is chosen from
// the members' resource summaries so that the largest member holds all replicas but one,
// the next largest the last one, and the smallest none.
func TestSchedulerAggregatedFewestMembers(t *testing.T) {
	const memory = 256 * 1024 * 1024 * 1000 // 256Mi per replica, in milli-units
	clusters := labClusters(t)
	// Half the second largest free CPU: the second largest member can take a replica, and
	// the largest cannot take them all.
	cpus := make([]int64, len(clusters))
	for i, c := range clusters {
		if c.Status.ResourceSummary == nil {
			t.Fatalf("cluster %s has no resource summary yet", c.Name)
		}
		cpus[i] = free(c.Status.ResourceSummary, corev1.ResourceCPU)
	}
	slices.Sort(cpus)
	cpu := cpus[len(cpus)-2] / 2 / 100 * 100 // whole hundreds of millicores
	if cpu < 100 {
		t.Fatalf("the members have too little free CPU for this test: %v millicores", cpus)
	}
	slices.SortStableFunc(clusters, func(a, b *clusterv1alpha1.Cluster) int {
		return cmp.Or(cmp.Compare(room(b, cpu, memory), room(a, cpu, memory)), strings.Compare(a.Name, b.Name))
	})
	first, second, third := clusters[0], clusters[1], clusters[2]
	replicas := room(first, cpu, memory) + 1
	if room(second, cpu, memory) < 1 {
		t.Fatalf("with %dm per replica %s holds %d, %s %d, %s %d: two members cannot hold one more than the largest",
			cpu, first.Name, room(first, cpu, memory), second.Name, room(second, cpu, memory), third.Name, room(third, cpu, memory))
	}
	t.Logf("%d replicas of %dm CPU: %s holds %d, %s %d, %s %d", replicas, cpu,
		first.Name, room(first, cpu, memory), second.Name, room(second, cpu, memory), third.Name, room(third, cpu, memory))

	ns := testNamespace(t, theLab.Host.Kubeconfig)
	propagate(t, ns, "packed", replicas, fmt.Sprintf("{cpu: %dm, memory: 256Mi}", cpu),
		"{replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}")
	want := map[string]int64{first.Name: replicas - 1, second.Name: 1}
	var placed []string
	for _, m := range labMembers {
		if n, ok := want[m]; ok {
			placed = append(placed, fmt.Sprintf("%s=%d", m, n))
		}
	}
	expectPlacement(t, ns, "packed", strings.Join(placed, " "))
	expectMemberReplicas(t, ns, "packed", want)
	removeWorkload(t, ns, "packed")
}

// clusterRegions reads each member's region from `kubectl get clusters -o wide` through the
// host, as a user would.
func clusterRegions(t *testing.T) map[string]string {
	t.Helper()
	out := kubectl(t, theLab.Host.Kubeconfig, "get", "clusters", "-o", "wide")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	column := slices.Index(strings.Fields(lines[0]), "REGION")
	if column < 0 {
		t.Fatalf("kubectl get clusters -o wide has no REGION column:\n%s", out)
	}
	regions := map[string]string{}
	for _, line := range lines[1:] {
		if f := strings.Fields(line); len(f) > column {
			regions[f[0]] = f[column]
		}
	}
	return regions
}

// TestSchedulerRegionSpread: a spread by region over exactly two regions with one cluster
// in each (the seeds' example, with the cluster constraint a spread by field needs) puts
// one replica in each of two members of different regions.
func TestSchedulerRegionSpread(t *testing.T) {
	t.Parallel()
	regions := clusterRegions(t)
	distinct := map[string]bool{}
	for _, m := range labMembers {
		distinct[regions[m]] = true
	}
	if len(distinct) < 2 {
		t.Skipf("the lab's members are all in one region: %v", regions)
	}
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	propagate(t, ns, "spread", 2, "", `{spreadConstraints: [{spreadByField: region, minGroups: 2, maxGroups: 2}, {spreadByField: cluster, minGroups: 1, maxGroups: 1}],
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}}`)

	var placed []string
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(theLab.FleetKubeconfig(), "get", "rb", "spread-deployment", "-n", ns, "-o",
			`jsonpath={range .spec.clusters[*]}{.name}={.replicas} {end}| {.status.conditions[?(@.type=="Scheduled")].status}`)
		if err != nil {
			return err
		}
		clusters, status, _ := strings.Cut(out, "| ")
		if placed = strings.Fields(clusters); len(placed) == 0 || status != "True" {
			return fmt.Errorf("binding says %q, want it Scheduled", out)
		}
		return nil
	})
	want := map[string]int64{}
	used := map[string]bool{}
	for _, p := range placed {
		name, replicas, _ := strings.Cut(p, "=")
		if replicas != "1" {
			t.Errorf("%s gets %s replicas, want 1", name, replicas)
		}
		want[name] = 1
		used[regions[name]] = true
	}
	if len(placed) != 2 || len(used) != 2 {
		t.Fatalf("placed on %v in regions %v, want two members in two regions (regions: %v)", placed, used, regions)
	}
	expectMemberReplicas(t, ns, "spread", want)
}

// TestSchedulerTaint: a NoSchedule taint on member1 keeps a new workload off it unless its
// policy tolerates the taint; once the taint is gone, the workload that did not tolerate it
// is placed there too. The taint has a key of this test's own and is removed as soon as the
// placements are checked, since other tests use member1.
func TestSchedulerTaint(t *testing.T) {
	bin := buildKubectlFed(t)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	const key = "e2e.fedhq.io/scheduler"
	untaint := func() (string, string, error) { return runFed(bin, "taint", "clusters", "member1", key+":NoSchedule-") }
	if _, stderr, err := runFed(bin, "taint", "clusters", "member1", key+"="+ns+":NoSchedule"); err != nil {
		t.Fatalf("kubectl fed taint: %v: %s", err, stderr)
	}
	t.Cleanup(func() { _, _, _ = untaint() })
	waitFor(t, 10*time.Second, func() error {
		for _, c := range labClusters(t) {
			if c.Name == "member1" && hasTaint(c.Spec.Taints, key) {
				return nil
			}
		}
		return fmt.Errorf("member1 does not have the taint %s yet", key)
	})

	both := "clusterAffinity: {clusterNames: [member1, member2]}"
	propagate(t, ns, "intolerant", 1, "", "{"+both+"}")
	propagate(t, ns, "tolerant", 1, "", "{"+both+", clusterTolerations: [{key: "+key+", operator: Exists, effect: NoSchedule}]}")
	expectPlacement(t, ns, "intolerant", "member2=1")
	expectPlacement(t, ns, "tolerant", "member1=1 member2=1")
	expectMemberReplicas(t, ns, "tolerant", map[string]int64{"member1": 1, "member2": 1})
	expectMemberReplicas(t, ns, "intolerant", map[string]int64{"member2": 1})

	if _, stderr, err := untaint(); err != nil {
		t.Fatalf("kubectl fed taint %s-: %v: %s", key, err, stderr)
	}
	expectPlacement(t, ns, "intolerant", "member1=1 member2=1")
	expectMemberReplicas(t, ns, "intolerant", map[string]int64{"member1": 1, "member2": 1})
}
