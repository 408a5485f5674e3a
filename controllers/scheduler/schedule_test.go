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

package scheduler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func targets(ts []federationv1alpha1.TargetCluster) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%s=%d", t.Name, t.Replicas))
	}
	return strings.Join(parts, " ")
}

// parseTargets reads "member1=2 member2=3".
func parseTargets(s string) []federationv1alpha1.TargetCluster {
	var out []federationv1alpha1.TargetCluster
	for _, f := range strings.Fields(s) {
		var t federationv1alpha1.TargetCluster
		name, n, _ := strings.Cut(f, "=")
		t.Name = name
		fmt.Sscan(n, &t.Replicas)
		out = append(out, t)
	}
	return out
}

// cluster makes a member cluster; options set its room (how many 1-CPU replicas it can
// still hold), taints and labels.
func cluster(name, provider, region, zone string, opts ...func(*clusterv1alpha1.Cluster)) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1alpha1.ClusterSpec{Provider: provider, Region: region, Zone: zone}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func room(n int) func(*clusterv1alpha1.Cluster) {
	return func(c *clusterv1alpha1.Cluster) {
		c.Status.ResourceSummary = &clusterv1alpha1.ResourceSummary{Allocatable: resources("cpu", fmt.Sprint(n))}
	}
}

func tainted(key, value string, effect corev1.TaintEffect) func(*clusterv1alpha1.Cluster) {
	return func(c *clusterv1alpha1.Cluster) {
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func labelled(key, value string) func(*clusterv1alpha1.Cluster) {
	return func(c *clusterv1alpha1.Cluster) {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[key] = value
	}
}

// rooms is member1, member2, member3... with the given room each.
func rooms(n ...int) []*clusterv1alpha1.Cluster {
	out := make([]*clusterv1alpha1.Cluster, len(n))
	for i, r := range n {
		out[i] = cluster(fmt.Sprintf("member%d", i+1), "", "", "", room(r))
	}
	return out
}

var oneCPU = resources("cpu", "1")

func names(n ...string) *federationv1alpha1.ClusterAffinity {
	return &federationv1alpha1.ClusterAffinity{ClusterNames: n}
}

func weight(cluster string, w int64) federationv1alpha1.StaticClusterWeight {
	return federationv1alpha1.StaticClusterWeight{TargetCluster: *names(cluster), Weight: w}
}

func duplicated() *federationv1alpha1.ReplicaSchedulingStrategy {
	return &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDuplicated}
}

func divided(list ...federationv1alpha1.StaticClusterWeight) *federationv1alpha1.ReplicaSchedulingStrategy {
	s := &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided,
		ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceWeighted}
	if len(list) > 0 {
		s.WeightPreference = &federationv1alpha1.ClusterPreferences{StaticWeightList: list}
	}
	return s
}

func dynamic() *federationv1alpha1.ReplicaSchedulingStrategy {
	s := divided()
	s.WeightPreference = &federationv1alpha1.ClusterPreferences{DynamicWeight: federationv1alpha1.DynamicWeightByAvailableReplicas}
	return s
}

func aggregated() *federationv1alpha1.ReplicaSchedulingStrategy {
	return &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided,
		ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceAggregated}
}

func spread(field federationv1alpha1.SpreadFieldValue, minGroups, maxGroups int32) federationv1alpha1.SpreadConstraint {
	return federationv1alpha1.SpreadConstraint{SpreadByField: field, MinGroups: minGroups, MaxGroups: maxGroups}
}

const (
	region  = federationv1alpha1.SpreadByFieldRegion
	zone    = federationv1alpha1.SpreadByFieldZone
	byClstr = federationv1alpha1.SpreadByFieldCluster
)

type scheduleCase struct {
	name      string
	clusters  []*clusterv1alpha1.Cluster
	placement *federationv1alpha1.Placement
	replicas  int32
	request   corev1.ResourceList
	previous  string
	// previousAffinity is the group the previous result came from.
	previousAffinity string
	want             string // targets, or "error: REASON"
	affinity         string // the affinity group recorded
	message          string // part of the Unschedulable's message
	// together and apart are where the other workloads of its affinity group (nil: none
	// placed) and of its anti-affinity group are.
	together, apart []string
}

func (c *scheduleCase) run(t *testing.T) {
	t.Helper()
	in := Input{Placement: c.placement, Replicas: c.replicas, ResourceRequest: c.request, Previous: parseTargets(c.previous),
		PreviousAffinity: c.previousAffinity, Together: c.together, Apart: c.apart}
	if c.together != nil || c.apart != nil {
		in.Groups = &federationv1alpha1.WorkloadAffinityGroups{AffinityGroup: "app.group=shop", AntiAffinityGroup: "ha=web"}
	}
	got, err := Schedule(c.clusters, in)
	var u *Unschedulable
	switch {
	case errors.As(err, &u):
		if want := "error: " + u.Reason; want != c.want {
			t.Errorf("%s (%s), want %s", want, u.Message, c.want)
		}
		if !strings.Contains(u.Message, c.message) {
			t.Errorf("message %q does not say %q", u.Message, c.message)
		}
		return
	case err != nil:
		t.Fatal(err)
	case targets(got.Clusters) != c.want:
		t.Errorf("got %s, want %s", targets(got.Clusters), c.want)
	}
	if got.AffinityName != c.affinity {
		t.Errorf("affinity group %q, want %q", got.AffinityName, c.affinity)
	}
	// The same input in another order gives the same result.
	reversed := slices.Clone(c.clusters)
	slices.Reverse(reversed)
	again, err := Schedule(reversed, in)
	if err != nil || targets(again.Clusters) != targets(got.Clusters) || again.AffinityName != got.AffinityName {
		t.Errorf("with the clusters reversed: %s %q %v", targets(again.Clusters), again.AffinityName, err)
	}
}

// seedFleet is the seeds' fleet: members with providers, regions and labels.
func seedFleet() []*clusterv1alpha1.Cluster {
	return []*clusterv1alpha1.Cluster{
		cluster("member1", "huaweicloud", "cn-south-1", "cn-south-1a", labelled("location", "us")),
		cluster("member2", "huaweicloud", "cn-north-1", "cn-north-1a", labelled("location", "eu")),
		cluster("member3", "aws", "us-east-1", "us-east-1a", labelled("location", "us")),
	}
}

// regions is two clusters in each of regions r1 and r2, and one in r3, with rooms.
func regions(r ...int) []*clusterv1alpha1.Cluster {
	return []*clusterv1alpha1.Cluster{
		cluster("a1", "p", "r1", "r1a", room(r[0])), cluster("a2", "p", "r1", "r1b", room(r[1])),
		cluster("b1", "p", "r2", "r2a", room(r[2])), cluster("b2", "p", "r2", "r2b", room(r[3])),
		cluster("c1", "q", "r3", "r3a", room(r[4])),
	}
}

// The examples of the seeds, each named after its seed.
func TestScheduleSeeds(t *testing.T) {
	place := func(a *federationv1alpha1.ClusterAffinity, rs *federationv1alpha1.ReplicaSchedulingStrategy) *federationv1alpha1.Placement {
		return &federationv1alpha1.Placement{ClusterAffinity: a, ReplicaScheduling: rs}
	}
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	notIn := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: values}
	}
	terms := func(t ...federationv1alpha1.ClusterAffinityTerm) *federationv1alpha1.Placement {
		return &federationv1alpha1.Placement{ClusterAffinities: t}
	}
	term := func(name string, clusters ...string) federationv1alpha1.ClusterAffinityTerm {
		return federationv1alpha1.ClusterAffinityTerm{AffinityName: name, ClusterAffinity: *names(clusters...)}
	}
	localCloud := []*clusterv1alpha1.Cluster{
		cluster("local-member1", "", "", "", room(2)), cluster("local-member2", "", "", "", room(2)),
		cluster("public-cloud-member1", "", "", "", room(10)), cluster("public-cloud-member2", "", "", "", room(10)),
	}
	notReady := seedFleet()
	notReady[0].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}}
	foo := append(seedFleet(), cluster("foo", "", "", "", tainted("dedicated", "special-user", corev1.TaintEffectNoSchedule)))
	notReadyNoSchedule := seedFleet()
	notReadyNoSchedule[1].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoSchedule}}
	zones := []*clusterv1alpha1.Cluster{
		cluster("z1", "", "", "", labelled("topology.kubernetes.io/zone", "a")), cluster("z2", "", "", "", labelled("topology.kubernetes.io/zone", "b")),
		cluster("z3", "", "", "", labelled("topology.kubernetes.io/zone", "c")), cluster("z4", "", "", "", labelled("topology.kubernetes.io/zone", "c")),
		cluster("z5", "", "", "", labelled("topology.kubernetes.io/zone", "d")), cluster("z6", "", "", ""),
	}
	abc := []*clusterv1alpha1.Cluster{cluster("cluster-a", "", "", "", room(6)), cluster("cluster-b", "", "", "", room(12)), cluster("cluster-c", "", "", "", room(18))}

	for _, c := range []scheduleCase{
		// 004: the simplest multi-cluster Deployment, the policy update and the scaling.
		{name: "seed 004: clusterNames member1 puts nginx on member1", clusters: seedFleet(), placement: place(names("member1"), nil),
			replicas: 1, want: "member1=1"},
		{name: "seed 004: the policy updated to member2 moves nginx to member2", clusters: seedFleet(), placement: place(names("member2"), nil),
			replicas: 1, previous: "member1=1", want: "member2=1"},
		{name: "seed 004: the Deployment scaled to 2 runs 2 on member2", clusters: seedFleet(), placement: place(names("member2"), nil),
			replicas: 2, previous: "member2=1", want: "member2=2"},
		// 004: clusterAffinity.
		{name: "seed 004: without clusterAffinity every cluster is a candidate", clusters: seedFleet(), placement: &federationv1alpha1.Placement{},
			replicas: 1, want: "member1=1 member2=1 member3=1"},
		{name: "seed 004: labelSelector matchLabels location=us", clusters: seedFleet(), placement: place(&federationv1alpha1.ClusterAffinity{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"location": "us"}}}, nil), replicas: 1, want: "member1=1 member3=1"},
		{name: "seed 004: labelSelector matchExpressions location In [us]", clusters: seedFleet(), placement: place(&federationv1alpha1.ClusterAffinity{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "location", Operator: metav1.LabelSelectorOpIn, Values: []string{"us"}}}}}, nil),
			replicas: 1, want: "member1=1 member3=1"},
		{name: "seed 004: fieldSelector provider In [huaweicloud], region NotIn [cn-south-1]", clusters: seedFleet(), placement: place(&federationv1alpha1.ClusterAffinity{
			FieldSelector: &federationv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{in(policy.FieldProvider, "huaweicloud"), notIn(policy.FieldRegion, "cn-south-1")}}}, nil),
			replicas: 1, want: "member2=1"},
		{name: "seed 004: clusterNames member1 and member2", clusters: seedFleet(), placement: place(names("member1", "member2"), nil),
			replicas: 1, want: "member1=1 member2=1"},
		{name: "seed 004: exclude member1 and member3", clusters: seedFleet(), placement: place(&federationv1alpha1.ClusterAffinity{ExcludeClusters: []string{"member1", "member3"}}, nil),
			replicas: 1, want: "member2=1"},
		// 004: clusterAffinities.
		{name: "seed 004: clusterAffinities prefer local-clusters while they can hold the workload", clusters: localCloud,
			placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated(), ClusterAffinities: terms(term("local-clusters", "local-member1", "local-member2"),
				term("cloud-clusters", "public-cloud-member1", "public-cloud-member2")).ClusterAffinities},
			replicas: 3, request: oneCPU, want: "local-member1=2 local-member2=1", affinity: "local-clusters"},
		{name: "seed 004: clusterAffinities go to cloud-clusters when local-clusters lack resources", clusters: localCloud,
			placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated(), ClusterAffinities: terms(term("local-clusters", "local-member1", "local-member2"),
				term("cloud-clusters", "public-cloud-member1", "public-cloud-member2")).ClusterAffinities},
			replicas: 6, request: oneCPU, want: "public-cloud-member1=6", affinity: "cloud-clusters"},
		{name: "seed 004: primary-clusters member1 while it is healthy", clusters: seedFleet(),
			placement: terms(term("primary-clusters", "member1"), term("backup-clusters", "member1", "member2")), replicas: 2,
			want: "member1=2", affinity: "primary-clusters"},
		{name: "seed 004: primary member1 fails (NoExecute): backup-clusters, member1 left even though it is in that group too", clusters: notReady,
			placement: terms(term("primary-clusters", "member1"), term("backup-clusters", "member1", "member2")), replicas: 2, previous: "member1=2",
			previousAffinity: "primary-clusters", want: "member2=2", affinity: "backup-clusters"},
		{name: "seed 004: after failing over to backup-clusters, member1 healthy again: the binding stays in backup-clusters", clusters: seedFleet(),
			placement: terms(term("primary-clusters", "member1"), term("backup-clusters", "member2")), replicas: 2,
			previous: "member2=2", previousAffinity: "backup-clusters", want: "member2=2", affinity: "backup-clusters"},
		{name: "seed 004: a group no longer in the policy: from the first group again", clusters: seedFleet(),
			placement: terms(term("primary-clusters", "member1"), term("backup-clusters", "member2")), replicas: 2,
			previous: "member2=2", previousAffinity: "old-group", want: "member1=2", affinity: "primary-clusters"},
		{name: "seed 004: no group of clusterAffinities fits: scheduling fails", clusters: notReady,
			placement: terms(term("primary-clusters", "member1"), term("backup-clusters", "member9")), replicas: 2,
			want: "error: NoClusterFit", message: "primary-clusters: no cluster fits the placement: member1 have taints"},
		{name: "seed 004: clusterAffinity and clusterAffinities may not both be set", clusters: seedFleet(),
			placement: &federationv1alpha1.Placement{ClusterAffinity: names("member1"), ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{term("a", "member2")}},
			replicas:  1, want: "error: InvalidPlacement"},
		// 004: taints and tolerations.
		{name: "seed 004: a dedicated=special-user:NoSchedule taint keeps the workload off foo", clusters: foo, placement: place(names("foo", "member1"), nil),
			replicas: 1, want: "member1=1"},
		{name: "seed 004: tolerating dedicated=special-user:NoSchedule places it on foo", clusters: foo,
			placement: &federationv1alpha1.Placement{ClusterAffinity: names("foo", "member1"),
				ClusterTolerations: []corev1.Toleration{{Key: "dedicated", Value: "special-user", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}}},
			replicas: 1, want: "foo=1 member1=1"},
		{name: "seed 004: NoSchedule only keeps new workloads off: foo keeps what it runs", clusters: foo, placement: place(names("foo", "member1"), nil),
			replicas: 1, previous: "foo=1 member1=1", want: "foo=1 member1=1"},
		{name: "seed 004: NoExecute also removes running workloads", clusters: notReady, placement: place(names("member1", "member2"), nil),
			replicas: 1, previous: "member1=1 member2=1", want: "member2=1"},
		// 004: spread by region.
		{name: "seed 004: spread by region 2/2 with cluster 1/1: one cluster in each of two regions", clusters: regions(1, 1, 1, 1, 1),
			placement: &federationv1alpha1.Placement{ReplicaScheduling: duplicated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{
				spread(region, 2, 2), spread(byClstr, 1, 1)}}, replicas: 2, want: "a1=2 b1=2"},
		{name: "seed 004: spreading by region needs a constraint by cluster too", clusters: regions(1, 1, 1, 1, 1),
			placement: &federationv1alpha1.Placement{ReplicaScheduling: duplicated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 2, 2)}},
			replicas:  2, want: "error: InvalidPlacement", message: "needs a constraint with spreadByField cluster"},
		{name: "seed 004: spread by region 2/2 when the clusters are in one region", clusters: seedFleet()[:1],
			placement: &federationv1alpha1.Placement{ReplicaScheduling: duplicated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{
				spread(region, 2, 2), spread(byClstr, 1, 1)}}, replicas: 2, want: "error: NoClusterFit", message: "only 1 has: cn-south-1"},
		{name: "seed 004: a static weight list ignores spread constraints", clusters: seedFleet(),
			placement: &federationv1alpha1.Placement{ReplicaScheduling: divided(weight("member1", 1), weight("member2", 1)),
				SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 3, 3)}}, replicas: 2, want: "member1=1 member2=1"},
		// 004: replica scheduling.
		{name: "seed 004: Duplicated copies 2 replicas to each of 3 clusters", clusters: seedFleet(), placement: place(nil, duplicated()),
			replicas: 2, want: "member1=2 member2=2 member3=2"},
		{name: "seed 004: Divided shares 6 replicas among 3 clusters", clusters: seedFleet(), placement: place(nil, divided()),
			replicas: 6, want: "member1=2 member2=2 member3=2"},
		{name: "seed 004: staticWeightList 1:1 shares evenly between member1 and member2", clusters: seedFleet(),
			placement: place(nil, divided(weight("member1", 1), weight("member2", 1))), replicas: 4, want: "member1=2 member2=2"},
		{name: "seed 004: dynamic weight 6/12/18 of 12 gives 2/4/6", clusters: abc, placement: place(nil, dynamic()),
			replicas: 12, request: oneCPU, want: "cluster-a=2 cluster-b=4 cluster-c=6"},
		{name: "seed 004: dynamic weight ignores the static weight list", clusters: abc, placement: place(nil, func() *federationv1alpha1.ReplicaSchedulingStrategy {
			s := dynamic()
			s.WeightPreference.StaticWeightList = []federationv1alpha1.StaticClusterWeight{weight("cluster-a", 1)}
			return s
		}()), replicas: 12, request: oneCPU, want: "cluster-a=2 cluster-b=4 cluster-c=6"},
		{name: "seed 004: Weighted without weightPreference weighs every cluster the same", clusters: abc, placement: place(nil, divided()),
			replicas: 12, request: oneCPU, want: "cluster-a=4 cluster-b=4 cluster-c=4"},
		{name: "seed 004: Aggregated uses as few clusters as their resources allow", clusters: abc, placement: place(nil, aggregated()),
			replicas: 20, request: oneCPU, want: "cluster-b=2 cluster-c=18"},
		// 000.
		{name: "seed 000: staticWeightList 2:1 over member-cluster-1 and member-cluster-2, its region spread ignored",
			clusters: []*clusterv1alpha1.Cluster{cluster("member-cluster-1", "", "r1", ""), cluster("member-cluster-2", "", "r2", "")},
			placement: &federationv1alpha1.Placement{ClusterAffinity: names("member-cluster-1", "member-cluster-2"),
				ReplicaScheduling: divided(weight("member-cluster-1", 2), weight("member-cluster-2", 1)),
				SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 1, 2)}},
			replicas: 3, want: "member-cluster-1=2 member-cluster-2=1"},
		{name: "seed 000: weights 3:2:1 of 6 give cluster-a 3, cluster-b 2, cluster-c 1", clusters: abc,
			placement: place(nil, divided(weight("cluster-a", 3), weight("cluster-b", 2), weight("cluster-c", 1))), replicas: 6,
			want: "cluster-a=3 cluster-b=2 cluster-c=1"},
		{name: "seed 000: replicaDivisionPreference Dynamic with dynamicWeight AvailableReplicas, not yet defaulted", clusters: abc,
			placement: place(nil, &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided,
				ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceDynamic, DynamicWeight: federationv1alpha1.DynamicWeightByAvailableReplicas}),
			replicas: 6, request: oneCPU, want: "cluster-a=1 cluster-b=2 cluster-c=3"},
		{name: "seed 000: region-spread 2..3 regions with Aggregated, defaulted with a cluster constraint: the fewest clusters in 2 regions",
			clusters: regions(4, 1, 3, 2, 10), placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated(),
				SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 2, 3), spread(byClstr, 1, 0)}},
			replicas: 5, request: oneCPU, want: "a1=1 c1=4"},
		{name: "seed 000: region-spread as written, without a constraint by cluster, is refused", clusters: regions(4, 1, 3, 2, 10),
			placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(region, 2, 3)}},
			replicas:  5, request: oneCPU, want: "error: InvalidPlacement"},
		{name: "seed 000: custom-spread by label topology.kubernetes.io/zone over 2..3 zones", clusters: zones,
			placement: &federationv1alpha1.Placement{SpreadConstraints: []federationv1alpha1.SpreadConstraint{
				{SpreadByLabel: "topology.kubernetes.io/zone", MinGroups: 2, MaxGroups: 3}}}, replicas: 1, want: "z1=1 z2=1 z3=1 z4=1"},
		{name: "seed 000: tolerating cluster not-ready NoSchedule", clusters: notReadyNoSchedule,
			placement: &federationv1alpha1.Placement{ClusterAffinity: names("member1", "member2"),
				ClusterTolerations: []corev1.Toleration{{Key: clusterv1alpha1.TaintClusterNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
			replicas: 1, want: "member1=1 member2=1"},
		// 002.
		{name: "seed 002: nginx Divided 1:1 over member1 and member2", clusters: seedFleet(),
			placement: place(names("member1", "member2"), divided(weight("member1", 1), weight("member2", 1))), replicas: 2, want: "member1=1 member2=1"},
		{name: "seed 002: a group of clusterAffinities that fails is skipped", clusters: seedFleet(),
			placement: terms(term("local-clusters", "local-member1"), term("cloud-clusters", "member3")), replicas: 1,
			want: "member3=1", affinity: "cloud-clusters"},
	} {
		t.Run(c.name, c.run)
	}
}

// The rules of issue #8 the seeds do not spell out.
func TestScheduleRules(t *testing.T) {
	place := func(rs *federationv1alpha1.ReplicaSchedulingStrategy, sc ...federationv1alpha1.SpreadConstraint) *federationv1alpha1.Placement {
		return &federationv1alpha1.Placement{ReplicaScheduling: rs, SpreadConstraints: sc}
	}
	cordoned := rooms(0, 10, 10)
	cordoned[0].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	evicted := rooms(10, 10, 10)
	evicted[0].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}}
	noSummary := append(rooms(3), cluster("member2", "", "", ""))

	for _, c := range []scheduleCase{
		// Capacity.
		{name: "a cluster without room for one replica is skipped (Aggregated)", clusters: rooms(0, 3, 3), placement: place(aggregated()),
			replicas: 4, request: oneCPU, want: "member2=3 member3=1"},
		{name: "a cluster without room for one replica is skipped (dynamic weights)", clusters: rooms(0, 3, 3), placement: place(dynamic()),
			replicas: 4, request: oneCPU, want: "member2=2 member3=2"},
		{name: "a cluster that has not reported its resources holds none of a workload with requests", clusters: noSummary, placement: place(divided()),
			replicas: 2, request: oneCPU, want: "member1=2"},
		{name: "no request: every cluster holds any number", clusters: rooms(0, 0), placement: place(dynamic()), replicas: 4, want: "member1=2 member2=2"},
		{name: "dynamic weights: not enough room in all clusters", clusters: rooms(1, 1, 1), placement: place(dynamic()),
			replicas: 5, request: oneCPU, want: "error: NoClusterFit", message: "5 replica(s) do not fit: member1, member2, member3 can hold 3 more"},
		{name: "Aggregated: not enough room in all clusters", clusters: rooms(1, 1), placement: place(aggregated()),
			replicas: 3, request: oneCPU, want: "error: NoClusterFit"},
		{name: "no cluster has room", clusters: rooms(0, 0), placement: place(aggregated()),
			replicas: 3, request: oneCPU, want: "error: NoClusterFit", message: "member1, member2 have no room for one more replica"},
		{name: "static weights: no cluster gets more than it can hold, the rest goes by weight to the others", clusters: rooms(1, 10, 10),
			placement: place(divided(weight("member1", 2), weight("member2", 1), weight("member3", 1))), replicas: 8, request: oneCPU,
			want: "member1=1 member2=4 member3=3"},
		{name: "Duplicated ignores capacity", clusters: rooms(0, 1), placement: place(duplicated()), replicas: 3, request: oneCPU,
			want: "member1=3 member2=3"},
		{name: "Divided with no replicas (a kind without them) goes everywhere", clusters: rooms(0, 1), placement: place(aggregated()),
			replicas: 0, request: oneCPU, want: "member1=0 member2=0"},
		// Aggregated.
		{name: "Aggregated: the cluster with the most room first", clusters: rooms(3, 9, 5), placement: place(aggregated()),
			replicas: 8, request: oneCPU, want: "member2=8"},
		{name: "Aggregated: equal room, by name", clusters: rooms(5, 5, 5), placement: place(aggregated()),
			replicas: 7, request: oneCPU, want: "member1=5 member2=2"},
		// Scaling with a previous result.
		{name: "dynamic: scaling up adds only to clusters below their share", clusters: rooms(0, 12, 12), placement: place(dynamic()),
			replicas: 18, request: oneCPU, previous: "member1=6 member3=6", want: "member1=6 member2=4 member3=8"},
		{name: "dynamic: scaling down takes only from clusters above their share", clusters: rooms(0, 0, 0), placement: place(dynamic()),
			replicas: 12, request: oneCPU, previous: "member1=6 member2=4 member3=8", want: "member1=4 member2=3 member3=5"},
		{name: "dynamic: the same count keeps the previous result though the rooms changed", clusters: rooms(6, 12, 18), placement: place(dynamic()),
			replicas: 12, request: oneCPU, previous: "member1=3 member2=3 member3=6", want: "member1=3 member2=3 member3=6"},
		{name: "dynamic: replicas of a cluster that left go to the others", clusters: rooms(6, 6), placement: place(dynamic()),
			replicas: 12, request: oneCPU, previous: "member1=4 member2=4 member9=4", want: "member1=6 member2=6"},
		{name: "Aggregated: scaling up fills the clusters already used first", clusters: rooms(10, 2), placement: place(aggregated()),
			replicas: 6, request: oneCPU, previous: "member2=3", want: "member1=1 member2=5"},
		{name: "Aggregated: scaling down empties the cluster with the fewest first", clusters: rooms(10, 2, 0), placement: place(aggregated()),
			replicas: 6, request: oneCPU, previous: "member1=5 member2=2 member3=1", want: "member1=5 member2=1"},
		{name: "Aggregated: the same count keeps the previous result", clusters: rooms(10, 10), placement: place(aggregated()),
			replicas: 6, request: oneCPU, previous: "member1=3 member2=3", want: "member1=3 member2=3"},
		{name: "static weights: scaling 4 to 6 at 1:1 adds one to each", clusters: rooms(10, 10), placement: place(divided(weight("member1", 1), weight("member2", 1))),
			replicas: 6, request: oneCPU, previous: "member1=2 member2=2", want: "member1=3 member2=3"},
		// Taints with a previous result.
		{name: "NoSchedule: a cluster of the previous result keeps its replicas but gets no more", clusters: cordoned, placement: place(divided()),
			replicas: 9, request: oneCPU, previous: "member1=2 member2=2 member3=2", want: "member1=2 member2=4 member3=3"},
		{name: "NoSchedule: a cluster not in the previous result gets none", clusters: cordoned, placement: place(divided()),
			replicas: 4, request: oneCPU, previous: "member2=2 member3=2", want: "member2=2 member3=2"},
		{name: "NoExecute: a cluster of the previous result is left, its replicas go elsewhere", clusters: evicted, placement: place(aggregated()),
			replicas: 6, request: oneCPU, previous: "member1=6", want: "member2=6"},
		{name: "weight 0: a backup gets none while the others can hold all", clusters: rooms(10, 10), placement: place(divided(weight("member1", 10), weight("member2", 0))),
			replicas: 6, request: oneCPU, want: "member1=6"},
		{name: "weight 0: a backup takes what the others cannot hold", clusters: rooms(2, 10), placement: place(divided(weight("member1", 10), weight("member2", 0))),
			replicas: 6, request: oneCPU, want: "member1=2 member2=4"},
		{name: "weight 0: the weighted cluster is filled before a backup gets any", clusters: rooms(5, 10), placement: place(divided(weight("member1", 1), weight("member2", 0))),
			replicas: 6, request: oneCPU, want: "member1=5 member2=1"},
		{name: "weight 0: weighted clusters filled to their room, the backup takes the rest", clusters: rooms(4, 5, 10),
			placement: place(divided(weight("member1", 1), weight("member2", 1), weight("member3", 0))), replicas: 10, request: oneCPU, want: "member1=4 member2=5 member3=1"},
		{name: "weight 0: a backup takes all when the others failed (seed 000)", clusters: evicted[:2], placement: place(divided(weight("member1", 10), weight("member2", 0))),
			replicas: 6, request: oneCPU, previous: "member1=6", want: "member2=6"},
		{name: "NoExecute tolerated: the cluster stays", clusters: evicted, placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated(),
			ClusterTolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}, replicas: 6, request: oneCPU, previous: "member1=6", want: "member1=6"},
		// Spread constraints.
		{name: "spread by cluster alone: at most 2 clusters", clusters: rooms(1, 1, 1), placement: place(duplicated(), spread(byClstr, 1, 2)),
			replicas: 1, want: "member1=1 member2=1"},
		{name: "spread by cluster alone: at least 4 clusters of 3", clusters: rooms(1, 1, 1), placement: place(duplicated(), spread(byClstr, 4, 0)),
			replicas: 1, want: "error: NoClusterFit", message: "at least 4 cluster(s) are required, only 3 fit"},
		{name: "spread: Divided puts a replica in each group though weights would not", clusters: regions(1, 1, 1, 1, 100), placement: place(dynamic(),
			spread(region, 3, 3), spread(byClstr, 1, 1)), replicas: 5, request: oneCPU, want: "a1=1 b1=1 c1=3"},
		{name: "spread: fewer replicas than the groups required", clusters: regions(1, 1, 1, 1, 1), placement: place(divided(),
			spread(region, 3, 3), spread(byClstr, 1, 1)), replicas: 2, request: oneCPU, want: "error: NoClusterFit", message: "the workload has 2 replica(s)"},
		{name: "spread: regions with too few clusters do not count", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(),
			spread(region, 3, 3), spread(byClstr, 2, 2)), replicas: 1, want: "error: NoClusterFit", message: "only 2 has: r1, r2"},
		{name: "spread: a cluster constraint bounds the clusters of each region", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(),
			spread(region, 1, 0), spread(byClstr, 1, 2)), replicas: 1, want: "a1=1 a2=1 b1=1 b2=1 c1=1"},
		{name: "spread: regions already used are kept", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(),
			spread(region, 2, 2), spread(byClstr, 1, 1)), replicas: 1, previous: "b2=1 c1=1", want: "b2=1 c1=1"},
		{name: "spread: a cluster without the field is in no group", clusters: append(regions(1, 1, 1, 1, 1), cluster("x", "", "", "")), placement: place(duplicated(),
			spread(region, 1, 0), spread(byClstr, 1, 0)), replicas: 1, want: "a1=1 a2=1 b1=1 b2=1 c1=1"},
		{name: "spread by two fields besides cluster is not supported", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(),
			spread(region, 1, 0), spread(zone, 1, 0), spread(byClstr, 1, 0)), replicas: 1, want: "error: Unsupported"},
		{name: "spread: minGroups above maxGroups", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(), spread(byClstr, 3, 2)),
			replicas: 1, want: "error: InvalidPlacement"},
		{name: "spread: an unknown field", clusters: regions(1, 1, 1, 1, 1), placement: place(duplicated(), spread("datacenter", 1, 0), spread(byClstr, 1, 0)),
			replicas: 1, want: "error: InvalidPlacement"},
		// Strategies.
		{name: "an unknown division preference", clusters: rooms(1), placement: place(&federationv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: "Spread"}),
			replicas: 1, want: "error: InvalidPlacement"},
		{name: "weight 0 everywhere", clusters: seedFleet(), placement: place(divided(weight("member1", 0))), replicas: 2,
			want: "error: NoClusterFit", message: "weight 0"},
		{name: "Divided leaves out the clusters that get none", clusters: seedFleet(), placement: place(divided()), replicas: 2, want: "member1=1 member2=1"},
		{name: "no placement: Duplicated to every cluster", clusters: seedFleet(), replicas: 3, want: "member1=3 member2=3 member3=3"},
	} {
		t.Run(c.name, c.run)
	}
}

// Scaling random fleets: a divided result always sums to the replicas, no cluster gets more
// than it can hold, and with dynamic weights or Aggregated scaling only adds (up) or only
// removes (down), whatever order the clusters come in.
func TestScaleInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	strategies := map[string]func() *federationv1alpha1.ReplicaSchedulingStrategy{
		"dynamic": dynamic, "aggregated": aggregated, "equal": func() *federationv1alpha1.ReplicaSchedulingStrategy { return divided() },
	}
	for round := range 300 {
		fleet := rooms(rng.IntN(8), rng.IntN(8), rng.IntN(8), rng.IntN(8), rng.IntN(8), rng.IntN(8))
		fleet[rng.IntN(6)].Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		for name, strategy := range strategies {
			p := &federationv1alpha1.Placement{ReplicaScheduling: strategy()}
			r1, r2 := int32(1+rng.IntN(20)), int32(1+rng.IntN(20))
			first, err := Schedule(fleet, Input{Placement: p, Replicas: r1, ResourceRequest: oneCPU})
			if err != nil {
				continue
			}
			shuffled := slices.Clone(fleet)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			second, err := Schedule(shuffled, Input{Placement: p, Replicas: r2, ResourceRequest: oneCPU, Previous: first.Clusters})
			if err != nil {
				continue
			}
			before := map[string]int32{}
			for _, tc := range first.Clusters {
				before[tc.Name] = tc.Replicas
			}
			var sum int32
			for _, tc := range second.Clusters {
				sum += tc.Replicas
				var c *clusterv1alpha1.Cluster
				for _, f := range fleet {
					if f.Name == tc.Name {
						c = f
					}
				}
				if limit := AvailableReplicas(c, oneCPU) + int64(before[tc.Name]); int64(tc.Replicas) > limit {
					t.Errorf("round %d %s: %s got %d, holds %d", round, name, tc.Name, tc.Replicas, limit)
				}
				if len(c.Spec.Taints) > 0 && tc.Replicas > before[tc.Name] {
					t.Errorf("round %d %s: cordoned %s grew from %d to %d", round, name, tc.Name, before[tc.Name], tc.Replicas)
				}
				if name != "equal" && (r2 >= r1 && tc.Replicas < before[tc.Name] || r2 <= r1 && tc.Replicas > before[tc.Name]) {
					t.Errorf("round %d %s: scaling %d to %d moved %s from %d to %d (%s -> %s)", round, name, r1, r2, tc.Name,
						before[tc.Name], tc.Replicas, targets(first.Clusters), targets(second.Clusters))
				}
			}
			if sum != r2 {
				t.Errorf("round %d %s: %s sums to %d, want %d", round, name, targets(second.Clusters), sum, r2)
			}
			if name != "equal" && r2 >= r1 {
				for _, tc := range first.Clusters {
					if !slices.ContainsFunc(second.Clusters, func(s federationv1alpha1.TargetCluster) bool { return s.Name == tc.Name }) {
						t.Errorf("round %d %s: scaling up %d to %d left %s", round, name, r1, r2, tc.Name)
					}
				}
			}
		}
	}
}

// A NoExecute taint tolerated for a while keeps a cluster until its time is up, and says
// when that is; a cluster the workload is leaving is no candidate.
func TestScheduleNoExecuteTime(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	fleet := rooms(10, 10, 10)
	added := metav1.NewTime(now.Add(-10 * time.Second))
	fleet[0].Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}
	placement := &federationv1alpha1.Placement{ReplicaScheduling: aggregated(), ClusterTolerations: []corev1.Toleration{{
		Key: clusterv1alpha1.TaintClusterUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}}}
	in := Input{Placement: placement, Replicas: 6, ResourceRequest: oneCPU, Previous: parseTargets("member1=6"), Now: now}
	got, err := Schedule(fleet, in)
	if err != nil || targets(got.Clusters) != "member1=6" || !got.Recheck.Equal(now.Add(20*time.Second)) || len(got.Evicted) != 0 {
		t.Fatalf("tolerated: %s, recheck %v, evicted %v, %v", targets(got.Clusters), got.Recheck, got.Evicted, err)
	}
	in.Now = now.Add(20 * time.Second)
	got, err = Schedule(fleet, in)
	if err != nil || targets(got.Clusters) != "member2=6" || !got.Recheck.IsZero() ||
		len(got.Evicted) != 1 || got.Evicted[0].Cluster != "member1" || got.Evicted[0].Taint.Key != clusterv1alpha1.TaintClusterUnreachable {
		t.Fatalf("time up: %s, recheck %v, evicted %v, %v", targets(got.Clusters), got.Recheck, got.Evicted, err)
	}
	in = Input{Placement: &federationv1alpha1.Placement{ReplicaScheduling: aggregated()}, Replicas: 6, ResourceRequest: oneCPU,
		Previous: parseTargets("member2=6"), Leaving: []string{"member2"}, Now: now}
	got, err = Schedule(rooms(10, 10, 10), in)
	if err != nil || targets(got.Clusters) != "member1=6" || len(got.Evicted) != 0 {
		t.Fatalf("leaving: %s, evicted %v, %v", targets(got.Clusters), got.Evicted, err)
	}
	// The only cluster of the affinity being left: no fit, and the reason says so (not a taint).
	in.Placement.ClusterAffinity = &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}
	_, err = Schedule(rooms(10, 10, 10), in)
	var u *Unschedulable
	if !errors.As(err, &u) || u.Reason != ReasonNoClusterFit || !strings.Contains(u.Message, "being evicted from member2") || strings.Contains(u.Message, "taint") {
		t.Fatalf("leaving the only cluster: %v", err)
	}
}

// Overflow groups (a ClusterAffinityTerm's overflowAffinities): the term's own group is
// filled first, then each overflow group in turn; a scale-down empties the last first.
func TestScheduleOverflow(t *testing.T) {
	overflow := func(rs *federationv1alpha1.ReplicaSchedulingStrategy, groups ...*federationv1alpha1.ClusterAffinity) *federationv1alpha1.Placement {
		term := federationv1alpha1.ClusterAffinityTerm{AffinityName: "primary", ClusterAffinity: *groups[0]}
		for i, g := range groups[1:] {
			term.OverflowAffinities = append(term.OverflowAffinities, federationv1alpha1.OverflowClusterAffinity{AffinityName: fmt.Sprintf("overflow%d", i+1), ClusterAffinity: *g})
		}
		return &federationv1alpha1.Placement{ReplicaScheduling: rs, ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{term}}
	}
	issue := overflow(divided(), names("member1"), names("member2", "member3"))
	for _, c := range []scheduleCase{
		{name: "the primary group holds them all", clusters: rooms(10, 10, 10), placement: issue, replicas: 4, request: oneCPU,
			want: "member1=4", affinity: "primary"},
		{name: "what the primary cannot hold goes to the overflow group, divided there", clusters: rooms(4, 10, 10), placement: issue, replicas: 6, request: oneCPU,
			want: "member1=4 member2=1 member3=1", affinity: "primary"},
		{name: "scaled up: the primary keeps its replicas, the overflow takes the rest", clusters: rooms(0, 9, 9), placement: issue, replicas: 8, request: oneCPU,
			previous: "member1=4 member2=1 member3=1", previousAffinity: "primary", want: "member1=4 member2=2 member3=2", affinity: "primary"},
		{name: "scaled down: the overflow group gives its replicas back first", clusters: rooms(0, 9, 9), placement: issue, replicas: 3, request: oneCPU,
			previous: "member1=4 member2=1 member3=1", previousAffinity: "primary", want: "member1=3", affinity: "primary"},
		{name: "scaled down a little: the overflow keeps what the primary cannot hold", clusters: rooms(0, 9, 9), placement: issue, replicas: 5, request: oneCPU,
			previous: "member1=4 member2=1 member3=1", previousAffinity: "primary", want: "member1=4 member2=1", affinity: "primary"},
		{name: "no request: the primary holds any number", clusters: rooms(0, 0, 0), placement: issue, replicas: 6, want: "member1=6", affinity: "primary"},
		{name: "the primary has no room: all to the overflow", clusters: rooms(0, 3, 3), placement: issue, replicas: 4, request: oneCPU,
			want: "member2=2 member3=2", affinity: "primary"},
		{name: "the primary tainted: all to the overflow", clusters: []*clusterv1alpha1.Cluster{
			cluster("member1", "", "", "", room(9), tainted(clusterv1alpha1.TaintClusterNotReady, "", corev1.TaintEffectNoExecute)),
			cluster("member2", "", "", "", room(9)), cluster("member3", "", "", "", room(9))},
			placement: issue, replicas: 4, request: oneCPU, previous: "member1=4", previousAffinity: "primary", want: "member2=2 member3=2", affinity: "primary"},
		{name: "overflow groups in order", clusters: rooms(2, 2, 10), placement: overflow(aggregated(), names("member1"), names("member2"), names("member3")),
			replicas: 5, request: oneCPU, want: "member1=2 member2=2 member3=1", affinity: "primary"},
		{name: "a cluster in two groups belongs to the first", clusters: rooms(2, 2, 10), placement: overflow(divided(), names("member1"), names("member1", "member2"), names("member3")),
			replicas: 5, request: oneCPU, want: "member1=2 member2=2 member3=1", affinity: "primary"},
		{name: "all groups together too small", clusters: rooms(2, 1, 1), placement: issue, replicas: 6, request: oneCPU,
			want: "error: NoClusterFit", message: "6 replica(s) do not fit in the groups together (primary: 2; overflow1: 2)"},
		{name: "a workload without replicas goes to the first group", clusters: rooms(0, 0, 0), placement: issue, want: "member1=0", affinity: "primary"},
	} {
		t.Run(c.name, c.run)
	}
}

// Workload affinity: a workload goes only where the others of its affinity group are
// placed, and never where one of its anti-affinity group is.
func TestScheduleWorkloadAffinity(t *testing.T) {
	one := &federationv1alpha1.Placement{ReplicaScheduling: duplicated(), SpreadConstraints: []federationv1alpha1.SpreadConstraint{spread(byClstr, 1, 1)}}
	for _, c := range []scheduleCase{
		{name: "anti-affinity: the first takes any cluster", clusters: rooms(10, 10, 10), placement: one, replicas: 1, apart: []string{},
			want: "member1=1"},
		{name: "anti-affinity: the next takes another", clusters: rooms(10, 10, 10), placement: one, replicas: 1, apart: []string{"member1"},
			want: "member2=1"},
		{name: "anti-affinity: every cluster taken", clusters: rooms(10, 10, 10), placement: one, replicas: 1, apart: []string{"member1", "member2", "member3"},
			want: "error: NoClusterFit", message: "member1, member2, member3 run a workload of its anti-affinity group ha=web"},
		{name: "anti-affinity: a placed workload moves off a cluster another of its group runs on", clusters: rooms(10, 10, 10), placement: one, replicas: 1,
			previous: "member2=1", apart: []string{"member2"}, want: "member1=1"},
		{name: "affinity: the first of a group goes where the placement says", clusters: rooms(10, 10, 10), placement: one, replicas: 1,
			apart: []string{}, want: "member1=1"},
		{name: "affinity: the next follows it", clusters: rooms(10, 10, 10), placement: one, replicas: 1, together: []string{"member3"},
			want: "member3=1"},
		{name: "affinity: it follows when the others move", clusters: rooms(10, 10, 10), placement: one, replicas: 1, previous: "member3=1",
			together: []string{"member2"}, want: "member2=1"},
		{name: "affinity: divided over the clusters of the group", clusters: rooms(10, 10, 10), placement: &federationv1alpha1.Placement{ReplicaScheduling: divided()},
			replicas: 4, request: oneCPU, together: []string{"member1", "member3"}, want: "member1=2 member3=2"},
		{name: "affinity: the group's cluster is tainted", clusters: []*clusterv1alpha1.Cluster{
			cluster("member1", "", "", "", room(9), tainted(clusterv1alpha1.TaintClusterNotReady, "", corev1.TaintEffectNoExecute)),
			cluster("member2", "", "", "", room(9))},
			placement: one, replicas: 1, together: []string{"member1"}, want: "error: NoClusterFit",
			message: "member1 have taints the placement does not tolerate; member2 run no workload of its affinity group app.group=shop"},
		{name: "both", clusters: rooms(10, 10, 10), placement: &federationv1alpha1.Placement{ReplicaScheduling: divided()}, replicas: 2,
			together: []string{"member1", "member2"}, apart: []string{"member1"}, want: "member2=2"},
	} {
		t.Run(c.name, c.run)
	}
}

// A WorkloadRebalancer's request (spec.rescheduleTriggeredAt) is answered once: while it is
// later than the binding's lastScheduledTime.
func TestAfresh(t *testing.T) {
	at := func(s int64) *metav1.Time { v := metav1.Unix(s, 0); return &v }
	for _, c := range []struct {
		name      string
		triggered *metav1.Time
		last      *metav1.Time
		want      bool
	}{
		{name: "never asked", last: at(100)},
		{name: "asked, never placed", triggered: at(100), want: true},
		{name: "asked after the last placement", triggered: at(101), last: at(100), want: true},
		{name: "answered: placed at the time asked", triggered: at(101), last: at(101)},
		{name: "answered later", triggered: at(101), last: at(105)},
	} {
		spec := &federationv1alpha1.ResourceBindingSpec{RescheduleTriggeredAt: c.triggered}
		if got := afresh(spec, &federationv1alpha1.ResourceBindingStatus{LastScheduledTime: c.last}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Placed afresh, a workload that failed over to the backup group goes back to the first.
	groups := &federationv1alpha1.Placement{ReplicaScheduling: duplicated(), ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{
		{AffinityName: "primary", ClusterAffinity: *names("member1")}, {AffinityName: "backup", ClusterAffinity: *names("member2")}}}
	stays := scheduleCase{clusters: rooms(9, 9), placement: groups, replicas: 1, previous: "member2=1", previousAffinity: "backup",
		want: "member2=1", affinity: "backup"}
	stays.run(t)
	fresh := scheduleCase{clusters: rooms(9, 9), placement: groups, replicas: 1, want: "member1=1", affinity: "primary"}
	fresh.run(t)
}
