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

package validation

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/cluster"
)

func TestValidateRemedy(t *testing.T) {
	good := cluster.RemedySpec{
		ClusterAffinity: &cluster.RemedyClusterAffinity{ClusterNames: []string{"member1"}},
		DecisionMatches: []cluster.DecisionMatch{{ClusterConditionMatch: &cluster.ClusterConditionRequirement{
			ConditionType: "ServiceDomainNameResolutionReady", Operator: cluster.ClusterConditionEqual, ConditionStatus: "False"}}},
		Actions: []cluster.RemedyAction{cluster.TrafficControl},
	}
	r := &cluster.Remedy{ObjectMeta: metav1.ObjectMeta{Name: "dns"}, Spec: good}
	if errs := ValidateRemedy(r); len(errs) > 0 {
		t.Fatalf("the issue's Remedy: %v", errs.ToAggregate())
	}
	bad := r.DeepCopy()
	bad.Spec.ClusterAffinity.ClusterNames = []string{"Member_1"}
	bad.Spec.DecisionMatches = append(bad.Spec.DecisionMatches, cluster.DecisionMatch{},
		cluster.DecisionMatch{ClusterConditionMatch: &cluster.ClusterConditionRequirement{ConditionType: "Ready", Operator: "In", ConditionStatus: "false"}})
	bad.Spec.Actions = []cluster.RemedyAction{cluster.TrafficControl, cluster.TrafficControl, "Restart"}
	got := ValidateRemedy(bad).ToAggregate().Error()
	for _, want := range []string{
		"spec.clusterAffinity.clusterNames[0]",
		"spec.decisionMatches[1].clusterConditionMatch: Required value",
		`spec.decisionMatches[2].clusterConditionMatch.operator: Unsupported value: "In"`,
		`spec.decisionMatches[2].clusterConditionMatch.conditionStatus: Unsupported value: "false"`,
		`spec.actions[1]: Duplicate value: "TrafficControl"`,
		`spec.actions[2]: Unsupported value: "Restart"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q lack %q", got, want)
		}
	}
}
