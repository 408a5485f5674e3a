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

package policy

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// fleet is the seeds' kind of fleet: members with providers, regions and labels.
func fleet() []*clusterv1alpha1.Cluster {
	mk := func(name, provider, region, zone string, labels map[string]string) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: clusterv1alpha1.ClusterSpec{Provider: provider, Region: region, Zone: zone}}
	}
	return []*clusterv1alpha1.Cluster{
		mk("member1", "huaweicloud", "cn-south-1", "cn-south-1a", map[string]string{"location": "us"}),
		mk("member2", "huaweicloud", "cn-north-1", "cn-north-1a", map[string]string{"location": "eu"}),
		mk("member3", "aws", "us-east-1", "us-east-1a", map[string]string{"location": "us"}),
	}
}

func selected(t *testing.T, a *federationv1alpha1.ClusterAffinity) string {
	t.Helper()
	var names []string
	for _, c := range fleet() {
		ok, err := MatchesAffinity(c, a)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ",")
}

// The cases are the seeds' clusterAffinity examples (004).
func TestMatchesAffinity(t *testing.T) {
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	notIn := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: values}
	}
	for _, c := range []struct {
		name     string
		affinity *federationv1alpha1.ClusterAffinity
		want     string
	}{
		{"no affinity: every cluster", nil, "member1,member2,member3"},
		{"labelSelector matchLabels location=us", &federationv1alpha1.ClusterAffinity{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"location": "us"}}}, "member1,member3"},
		{"labelSelector matchExpressions location In [us]", &federationv1alpha1.ClusterAffinity{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "location", Operator: metav1.LabelSelectorOpIn, Values: []string{"us"}}}}},
			"member1,member3"},
		{"fieldSelector provider In [huaweicloud] and region NotIn [cn-south-1]", &federationv1alpha1.ClusterAffinity{
			FieldSelector: &federationv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{in(FieldProvider, "huaweicloud"), notIn(FieldRegion, "cn-south-1")}}},
			"member2"},
		{"fieldSelector zone", &federationv1alpha1.ClusterAffinity{
			FieldSelector: &federationv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{in(FieldZone, "us-east-1a")}}}, "member3"},
		{"clusterNames member1, member2", &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}}, "member1,member2"},
		{"exclude member1, member3", &federationv1alpha1.ClusterAffinity{ExcludeClusters: []string{"member1", "member3"}}, "member2"},
		{"clusterNames and exclude", &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}, ExcludeClusters: []string{"member1"}}, "member2"},
		{"every rule must hold", &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"},
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"location": "us"}}}, "member1"},
	} {
		if got := selected(t, c.affinity); got != c.want {
			t.Errorf("%s: selected %q, want %q", c.name, got, c.want)
		}
	}

	bad := &federationv1alpha1.ClusterAffinity{FieldSelector: &federationv1alpha1.FieldSelector{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}}}}
	if _, err := MatchesAffinity(fleet()[0], bad); err == nil || !strings.Contains(err.Error(), `key "os" is not one of provider, region, zone`) {
		t.Errorf("an unknown field key: %v", err)
	}
	exists := &federationv1alpha1.ClusterAffinity{FieldSelector: &federationv1alpha1.FieldSelector{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: FieldRegion, Operator: corev1.NodeSelectorOpExists}}}}
	if _, err := MatchesAffinity(fleet()[0], exists); err == nil || !strings.Contains(err.Error(), "is not In or NotIn") {
		t.Errorf("an operator other than In/NotIn: %v", err)
	}
}

func TestTolerates(t *testing.T) {
	noSchedule := []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	noExecute := []corev1.Taint{{Key: "cluster.fedhq.io/not-ready", Effect: corev1.TaintEffectNoExecute}}
	for _, c := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		effects     []corev1.TaintEffect
		want        bool
	}{
		{"no taints", nil, nil, []corev1.TaintEffect{corev1.TaintEffectNoSchedule}, true},
		{"a NoSchedule taint keeps new placements off", noSchedule, nil, []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}, false},
		{"Exists with the key tolerates it", noSchedule, []corev1.Toleration{{Key: clusterv1alpha1.TaintClusterUnschedulable, Operator: corev1.TolerationOpExists}},
			[]corev1.TaintEffect{corev1.TaintEffectNoSchedule}, true},
		{"Equal needs the value", []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "team", Operator: corev1.TolerationOpEqual, Value: "b"}}, []corev1.TaintEffect{corev1.TaintEffectNoSchedule}, false},
		{"an empty key with Exists tolerates everything", noExecute, []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			[]corev1.TaintEffect{corev1.TaintEffectNoExecute}, true},
		{"a toleration for another effect does not", noExecute, []corev1.Toleration{{Key: "cluster.fedhq.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.TaintEffect{corev1.TaintEffectNoExecute}, false},
		{"only the effects asked for count: NoSchedule does not evict", noSchedule, nil, []corev1.TaintEffect{corev1.TaintEffectNoExecute}, true},
	} {
		if got := Tolerates(c.taints, c.tolerations, c.effects...); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNoExecute(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	taint := func(key string, ago time.Duration) corev1.Taint {
		return corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-ago)}}
	}
	tolerate := func(key string, seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	for _, c := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		evicted     bool
		next        time.Duration // from now; 0 for none
	}{
		{name: "no taint"},
		{name: "NoSchedule only", taints: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}}},
		{name: "untolerated", taints: []corev1.Taint{taint("a", 0)}, evicted: true},
		{name: "tolerated forever", taints: []corev1.Taint{taint("a", time.Hour)}, tolerations: []corev1.Toleration{tolerate("a", nil)}},
		{name: "tolerated for a while", taints: []corev1.Taint{taint("a", 10*time.Second)},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](30))}, next: 20 * time.Second},
		{name: "toleration ran out", taints: []corev1.Taint{taint("a", 30*time.Second)},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](30))}, evicted: true},
		{name: "the longest matching toleration counts", taints: []corev1.Taint{taint("a", 40*time.Second)},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](30)), tolerate("", ptr.To[int64](60))}, next: 20 * time.Second},
		{name: "the earliest taint counts", taints: []corev1.Taint{taint("a", 0), taint("b", 50*time.Second)},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](30)), tolerate("b", ptr.To[int64](60))}, next: 10 * time.Second},
		{name: "one untolerated of two", taints: []corev1.Taint{taint("a", 0), taint("b", 0)},
			tolerations: []corev1.Toleration{tolerate("a", nil)}, evicted: true},
		{name: "a toleration too long to count is forever", taints: []corev1.Taint{taint("a", time.Hour)},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](9_999_999_999))}},
		{name: "no TimeAdded counts from now", taints: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}},
			tolerations: []corev1.Toleration{tolerate("a", ptr.To[int64](5))}, next: 5 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			evicted, next, _ := NoExecute(c.taints, c.tolerations, now)
			want := time.Time{}
			if c.next > 0 {
				want = now.Add(c.next)
			}
			if evicted != c.evicted || !next.Equal(want) {
				t.Fatalf("NoExecute = %v, %v; want %v, %v", evicted, next, c.evicted, want)
			}
		})
	}
}

func TestDividedByRoom(t *testing.T) {
	divided := func(pref federationv1alpha1.ReplicaDivisionPreference, w *federationv1alpha1.ClusterPreferences) *federationv1alpha1.Placement {
		return &federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: pref, WeightPreference: w}}
	}
	for name, c := range map[string]struct {
		p    *federationv1alpha1.Placement
		want bool
	}{
		"no placement": {nil, false},
		"Duplicated": {&federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDuplicated}}, false},
		"static weights": {divided(federationv1alpha1.ReplicaDivisionPreferenceWeighted, &federationv1alpha1.ClusterPreferences{
			StaticWeightList: []federationv1alpha1.StaticClusterWeight{{Weight: 1}}}), false},
		"dynamic weights": {divided(federationv1alpha1.ReplicaDivisionPreferenceWeighted, &federationv1alpha1.ClusterPreferences{
			DynamicWeight: federationv1alpha1.DynamicWeightByAvailableReplicas}), true},
		"Aggregated": {divided(federationv1alpha1.ReplicaDivisionPreferenceAggregated, nil), true},
	} {
		if got := DividedByRoom(c.p); got != c.want {
			t.Errorf("%s: DividedByRoom = %v, want %v", name, got, c.want)
		}
	}
}
