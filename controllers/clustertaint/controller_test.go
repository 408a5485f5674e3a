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

package clustertaint

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestApply(t *testing.T) {
	cond := func(typ string, st metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st}
	}
	match := func(typ string, op federationv1alpha1.MatchConditionOperator, vals ...metav1.ConditionStatus) federationv1alpha1.MatchCondition {
		return federationv1alpha1.MatchCondition{ConditionType: typ, Operator: op, StatusValues: vals}
	}
	spec := &federationv1alpha1.ClusterTaintPolicySpec{
		AddOnConditions:    []federationv1alpha1.MatchCondition{match("Detector", federationv1alpha1.MatchConditionOpIn, metav1.ConditionFalse, metav1.ConditionUnknown)},
		RemoveOnConditions: []federationv1alpha1.MatchCondition{match("Detector", federationv1alpha1.MatchConditionOpIn, metav1.ConditionTrue)},
		Taints:             []federationv1alpha1.PolicyTaint{{Key: "down", Effect: corev1.TaintEffectNoExecute, Value: "v"}},
	}
	cordon := corev1.Taint{Key: "cordon", Effect: corev1.TaintEffectNoSchedule}
	added := corev1.Taint{Key: "down", Effect: corev1.TaintEffectNoExecute, Value: "v"}
	now := metav1.Now()
	stamped := corev1.Taint{Key: "down", Effect: corev1.TaintEffectNoExecute, Value: "old", TimeAdded: &now}
	for _, c := range []struct {
		name       string
		taints     []corev1.Taint
		conditions []metav1.Condition
		want       []corev1.Taint
	}{
		{name: "the condition False: added beside the others", taints: []corev1.Taint{cordon}, conditions: []metav1.Condition{cond("Detector", metav1.ConditionFalse)},
			want: []corev1.Taint{cordon, added}},
		{name: "already there: kept with its value and time", taints: []corev1.Taint{stamped}, conditions: []metav1.Condition{cond("Detector", metav1.ConditionUnknown)},
			want: []corev1.Taint{stamped}},
		{name: "the condition True: removed, the others kept", taints: []corev1.Taint{cordon, stamped}, conditions: []metav1.Condition{cond("Detector", metav1.ConditionTrue)},
			want: []corev1.Taint{cordon}},
		{name: "no such condition: nothing changes", taints: []corev1.Taint{stamped}, conditions: []metav1.Condition{cond("Ready", metav1.ConditionTrue)},
			want: []corev1.Taint{stamped}},
		{name: "a taint of the same key and another effect is another taint", taints: []corev1.Taint{{Key: "down", Effect: corev1.TaintEffectNoSchedule}},
			conditions: []metav1.Condition{cond("Detector", metav1.ConditionTrue)}, want: []corev1.Taint{{Key: "down", Effect: corev1.TaintEffectNoSchedule}}},
	} {
		got := Apply(c.taints, c.conditions, spec)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if !got[i].MatchTaint(&c.want[i]) || got[i].Value != c.want[i].Value || got[i].TimeAdded != c.want[i].TimeAdded {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
	}
}

func TestHolds(t *testing.T) {
	conds := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}, {Type: "Detector", Status: metav1.ConditionFalse}}
	m := func(typ string, op federationv1alpha1.MatchConditionOperator, vals ...metav1.ConditionStatus) federationv1alpha1.MatchCondition {
		return federationv1alpha1.MatchCondition{ConditionType: typ, Operator: op, StatusValues: vals}
	}
	for _, c := range []struct {
		name    string
		matches []federationv1alpha1.MatchCondition
		want    bool
	}{
		{name: "none", want: false},
		{name: "In", matches: []federationv1alpha1.MatchCondition{m("Ready", "In", "True")}, want: true},
		{name: "NotIn", matches: []federationv1alpha1.MatchCondition{m("Detector", "NotIn", "True", "Unknown")}, want: true},
		{name: "all must hold", matches: []federationv1alpha1.MatchCondition{m("Ready", "In", "True"), m("Detector", "In", "True")}, want: false},
		{name: "a missing condition matches NotIn neither", matches: []federationv1alpha1.MatchCondition{m("Other", "NotIn", "True")}, want: false},
		{name: "an unknown operator holds of nothing", matches: []federationv1alpha1.MatchCondition{m("Ready", "Exists", "True")}, want: false},
	} {
		if got := Holds(conds, c.matches); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
