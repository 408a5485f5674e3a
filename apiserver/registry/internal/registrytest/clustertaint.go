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

package registrytest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// ClusterTaintPolicy is the test case of clustertaintpolicies: a NoExecute taint while
// member1's Ready condition is False or Unknown, then a NoSchedule one beside it.
func ClusterTaintPolicy() Case[*federation.ClusterTaintPolicy] {
	return Case[*federation.ClusterTaintPolicy]{
		Valid: func() *federation.ClusterTaintPolicy {
			return &federation.ClusterTaintPolicy{ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: federation.ClusterTaintPolicySpec{
					TargetClusters: &federation.ClusterAffinity{ClusterNames: []string{"member1"}},
					AddOnConditions: []federation.MatchCondition{{ConditionType: "Ready", Operator: federation.MatchConditionOpIn,
						StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}},
					RemoveOnConditions: []federation.MatchCondition{{ConditionType: "Ready", Operator: federation.MatchConditionOpIn,
						StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}},
					Taints: []federation.PolicyTaint{{Key: "example.com/down", Effect: corev1.TaintEffectNoExecute}},
				}}
		},
		ChangeSpec: func(p *federation.ClusterTaintPolicy) {
			p.Spec.Taints = append(p.Spec.Taints, federation.PolicyTaint{Key: "example.com/down", Value: "yes", Effect: corev1.TaintEffectNoSchedule})
		},
		BreakSpec:       func(p *federation.ClusterTaintPolicy) { p.Spec.Taints[0].Effect = corev1.TaintEffectPreferNoSchedule },
		BrokenSpecField: "spec.taints[0].effect",
		Columns:         []string{"Name", "Taints", "Age"},
		Row:             map[string]any{"Name": Name, "Taints": "example.com/down:NoExecute,example.com/down=yes:NoSchedule"},
	}
}

// WorkloadRebalancer is the test case of workloadrebalancers: two Deployments, then a
// ClusterRole too; a result for each.
func WorkloadRebalancer() Case[*federation.WorkloadRebalancer] {
	return Case[*federation.WorkloadRebalancer]{
		Valid: func() *federation.WorkloadRebalancer {
			return &federation.WorkloadRebalancer{ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: federation.WorkloadRebalancerSpec{Workloads: []federation.WorkloadReference{
					{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: "demo-1"},
					{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: "demo-2"},
				}}}
		},
		ChangeSpec: func(r *federation.WorkloadRebalancer) {
			r.Spec.Workloads = append(r.Spec.Workloads, federation.WorkloadReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "demo"})
		},
		ChangeStatus: func(r *federation.WorkloadRebalancer) {
			finished := metav1.Unix(1767225600, 0)
			r.Status = federation.WorkloadRebalancerStatus{ObservedGeneration: 2, FinishTime: &finished, ObservedWorkloads: []federation.ObservedWorkload{
				{Workload: r.Spec.Workloads[0], Result: federation.RebalanceSuccessful},
				{Workload: r.Spec.Workloads[1], Result: federation.RebalanceFailed, Reason: "ReferencedBindingNotFound"},
			}}
		},
		BreakSpec:         func(r *federation.WorkloadRebalancer) { r.Spec.Workloads[0].Kind = "" },
		BrokenSpecField:   "spec.workloads[0].kind",
		BreakStatus:       func(r *federation.WorkloadRebalancer) { r.Status.ObservedWorkloads[0].Result = "Maybe" },
		BrokenStatusField: "status.observedWorkloads[0].result",
		Columns:           []string{"Name", "Workloads", "Results", "Age"},
		Row:               map[string]any{"Name": Name, "Workloads": int64(3), "Results": "1 Successful, 1 Failed"},
	}
}
