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

package rebalancer

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// cluster has cpu CPUs and 100Gi of memory, of which its pods request usedCPU.
func cluster(name string, cpu, usedCPU string) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Status.ResourceSummary = &clusterv1alpha1.ResourceSummary{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("100Gi")},
		Allocated:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(usedCPU), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}
	return c
}

// bigMemory has 1000 CPUs, none requested, and mem of memory, used of it requested.
func bigMemory(name, mem, used string) *clusterv1alpha1.Cluster {
	c := cluster(name, "1000", "0")
	c.Status.ResourceSummary.Allocatable[corev1.ResourceMemory] = resource.MustParse(mem)
	c.Status.ResourceSummary.Allocated[corev1.ResourceMemory] = resource.MustParse(used)
	return c
}

func loads(clusters ...*clusterv1alpha1.Cluster) map[string]*load {
	out := map[string]*load{}
	for _, c := range clusters {
		if l := loadOf(c); l != nil {
			out[c.Name] = l
		}
	}
	return out
}

func targetsOf(s string) []federationv1alpha1.TargetCluster {
	var out []federationv1alpha1.TargetCluster
	for _, f := range strings.Fields(s) {
		var n int32
		name, count, _ := strings.Cut(f, "=")
		fmt.Sscan(count, &n)
		out = append(out, federationv1alpha1.TargetCluster{Name: name, Replicas: n})
	}
	return out
}

func show(ts []federationv1alpha1.TargetCluster) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s=%d", t.Name, t.Replicas)
	}
	return strings.Join(parts, " ")
}

func TestPlan(t *testing.T) {
	half := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
	all := func(string) bool { return true }
	th := Threshold{CPU: 40}
	for _, c := range []struct {
		name      string
		clusters  []*clusterv1alpha1.Cluster
		targets   string
		request   corev1.ResourceList
		allowed   func(string) bool
		threshold Threshold
		want      string
		moves     int
	}{
		{name: "a hot cluster gives what brings it to the threshold", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "2"), cluster("member3", "48", "1")},
			targets: "member1=4", request: half, allowed: all, want: "member1=3 member3=1", moves: 1},
		{name: "nothing hot", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "1500m"), cluster("member3", "48", "1")},
			targets: "member1=3", request: half, allowed: all, want: "member1=3"},
		{name: "hot, but the placement allows no other cluster", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "2"), cluster("member3", "48", "1")},
			targets: "member1=4", request: half, allowed: func(n string) bool { return n == "member1" }, want: "member1=4"},
		{name: "a cluster within the margin below the threshold takes none", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "2"), cluster("member3", "10", "3500m")},
			targets: "member1=4", request: half, allowed: all, want: "member1=4"},
		{name: "no more than the workload has there", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "3900m"), cluster("member3", "48", "0")},
			targets: "member1=2 member3=1", request: half, allowed: all, want: "member3=3", moves: 1},
		{name: "the coolest cluster first, then the next", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "10", "10"), cluster("member2", "4", "0"), cluster("member3", "4", "500m")},
			targets: "member1=20", request: half, allowed: all, want: "member1=17 member2=2 member3=1", moves: 2},
		{name: "a member of hundreds of terabytes", clusters: []*clusterv1alpha1.Cluster{bigMemory("member1", "120Ti", "100Ti"), bigMemory("member3", "120Ti", "1Ti")},
			targets: "member1=4", request: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("10Ti")}, allowed: all, threshold: Threshold{Memory: 80},
			want: "member1=3 member3=1", moves: 1},
		{name: "a workload that requests no CPU does not move", clusters: []*clusterv1alpha1.Cluster{cluster("member1", "4", "4"), cluster("member3", "48", "0")},
			targets: "member1=4", request: nil, allowed: all, want: "member1=4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t0 := th
			if c.threshold != (Threshold{}) {
				t0 = c.threshold
			}
			got, moves := plan(targetsOf(c.targets), c.request, loads(c.clusters...), c.allowed, t0)
			if show(got) != c.want || len(moves) != c.moves {
				t.Fatalf("plan = %s, %v; want %s, %d moves", show(got), moves, c.want, c.moves)
			}
		})
	}
}
