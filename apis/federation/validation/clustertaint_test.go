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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

func TestValidateClusterTaintPolicy(t *testing.T) {
	valid := func() *federation.ClusterTaintPolicy {
		return &federation.ClusterTaintPolicy{ObjectMeta: metav1.ObjectMeta{Name: "detector-down"},
			Spec: federation.ClusterTaintPolicySpec{
				TargetClusters:     &federation.ClusterAffinity{ClusterNames: []string{"member1"}},
				AddOnConditions:    []federation.MatchCondition{{ConditionType: "example.com/Detector", Operator: federation.MatchConditionOpIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}},
				RemoveOnConditions: []federation.MatchCondition{{ConditionType: "example.com/Detector", Operator: federation.MatchConditionOpIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}},
				Taints:             []federation.PolicyTaint{{Key: "example.com/detector", Effect: corev1.TaintEffectNoExecute}},
			}}
	}
	for _, c := range []struct {
		name   string
		mutate func(*federation.ClusterTaintPolicy)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.ClusterTaintPolicy) {}},
		{name: "bad conditions", mutate: func(p *federation.ClusterTaintPolicy) {
			p.Spec.AddOnConditions = []federation.MatchCondition{{Operator: "Exists"}, {ConditionType: "not a type", Operator: federation.MatchConditionOpNotIn, StatusValues: []metav1.ConditionStatus{"Maybe"}}}
		}, want: []string{
			"FieldValueRequired spec.addOnConditions[0].conditionType",
			"FieldValueNotSupported spec.addOnConditions[0].operator",
			"FieldValueRequired spec.addOnConditions[0].statusValues",
			"FieldValueInvalid spec.addOnConditions[1].conditionType",
			"FieldValueNotSupported spec.addOnConditions[1].statusValues[0]",
		}},
		{name: "bad taints", mutate: func(p *federation.ClusterTaintPolicy) {
			p.Spec.Taints = []federation.PolicyTaint{
				{Key: "cluster.fedhq.io/not-ready", Effect: corev1.TaintEffectNoSchedule},
				{Key: "a", Effect: corev1.TaintEffectPreferNoSchedule, Value: "not a value"},
				{Key: "b", Effect: corev1.TaintEffectNoExecute}, {Key: "b", Effect: corev1.TaintEffectNoExecute},
				{Effect: corev1.TaintEffectNoSchedule},
			}
		}, want: []string{
			"FieldValueInvalid spec.taints[0].key",
			"FieldValueInvalid spec.taints[1].value",
			"FieldValueNotSupported spec.taints[1].effect",
			"FieldValueDuplicate spec.taints[3]",
			"FieldValueRequired spec.taints[4].key",
		}},
		{name: "no taint", mutate: func(p *federation.ClusterTaintPolicy) { p.Spec.Taints = nil },
			want: []string{"FieldValueRequired spec.taints"}},
		{name: "bad target", mutate: func(p *federation.ClusterTaintPolicy) { p.Spec.TargetClusters.ClusterNames = []string{"Bad_Name"} },
			want: []string{"FieldValueInvalid spec.targetClusters.clusterNames[0]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := valid()
			c.mutate(p)
			var got []string
			for _, e := range ValidateClusterTaintPolicy(p) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("errors:\n got  %q\n want %q\n%v", got, c.want, ValidateClusterTaintPolicy(p))
			}
		})
	}
}
