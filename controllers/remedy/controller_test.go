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

package remedy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

func TestMatches(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member2"},
		Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{Type: "DNSReady", Status: metav1.ConditionFalse}}}}
	match := func(op clusterv1alpha1.ClusterConditionOperator, condType, status string) []clusterv1alpha1.DecisionMatch {
		return []clusterv1alpha1.DecisionMatch{{ClusterConditionMatch: &clusterv1alpha1.ClusterConditionRequirement{
			ConditionType: condType, Operator: op, ConditionStatus: status}}}
	}
	for _, tc := range []struct {
		name string
		spec clusterv1alpha1.RemedySpec
		want bool
	}{
		{"no affinity, no match: every cluster at once", clusterv1alpha1.RemedySpec{}, true},
		{"another cluster named", clusterv1alpha1.RemedySpec{ClusterAffinity: &clusterv1alpha1.RemedyClusterAffinity{ClusterNames: []string{"member1"}}}, false},
		{"named", clusterv1alpha1.RemedySpec{ClusterAffinity: &clusterv1alpha1.RemedyClusterAffinity{ClusterNames: []string{"member2"}}}, true},
		{"Equal holds", clusterv1alpha1.RemedySpec{DecisionMatches: match(clusterv1alpha1.ClusterConditionEqual, "DNSReady", "False")}, true},
		{"Equal does not", clusterv1alpha1.RemedySpec{DecisionMatches: match(clusterv1alpha1.ClusterConditionEqual, "DNSReady", "True")}, false},
		{"NotEqual holds", clusterv1alpha1.RemedySpec{DecisionMatches: match(clusterv1alpha1.ClusterConditionNotEqual, "DNSReady", "True")}, true},
		{"a condition the cluster lacks matches NotEqual neither", clusterv1alpha1.RemedySpec{DecisionMatches: match(clusterv1alpha1.ClusterConditionNotEqual, "Other", "True")}, false},
		{"any one match", clusterv1alpha1.RemedySpec{DecisionMatches: append(match(clusterv1alpha1.ClusterConditionEqual, "Other", "True"),
			match(clusterv1alpha1.ClusterConditionEqual, "DNSReady", "False")...)}, true},
	} {
		if got := Matches(&tc.spec, cluster); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}
