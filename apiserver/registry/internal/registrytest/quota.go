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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// FederatedResourceQuota is the test case of federatedresourcequotas: CPU and
// memory across the fleet, a share of them in member1, and then pods and a
// share in member2 too.
func FederatedResourceQuota() Case[*federation.FederatedResourceQuota] {
	list := func(cpu, memory, pods string) corev1.ResourceList {
		l := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
		if pods != "" {
			l[corev1.ResourcePods] = resource.MustParse(pods)
		}
		return l
	}
	return Case[*federation.FederatedResourceQuota]{
		Valid: func() *federation.FederatedResourceQuota {
			return &federation.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.FederatedResourceQuotaSpec{Overall: list("4", "8Gi", ""),
					StaticAssignments: []federation.StaticClusterAssignment{{ClusterName: "member1", Hard: list("2", "4Gi", "")}}}}
		},
		ChangeSpec: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = list("8", "16Gi", "20")
			q.Spec.StaticAssignments = append(q.Spec.StaticAssignments,
				federation.StaticClusterAssignment{ClusterName: "member2", Hard: list("4", "8Gi", "10")})
		},
		ChangeStatus: func(q *federation.FederatedResourceQuota) {
			q.Status = federation.FederatedResourceQuotaStatus{Overall: list("8", "16Gi", "20"), OverallUsed: list("1500m", "3Gi", "3"),
				AggregatedStatus: []federation.ClusterQuotaStatus{
					{ClusterName: "member1", Hard: list("2", "4Gi", ""), Used: list("500m", "1Gi", "")},
					{ClusterName: "member2", Hard: list("4", "8Gi", "10"), Used: list("1", "2Gi", "2")},
				},
				Conditions: ready("Enforced"), ObservedGeneration: 2}
		},
		BreakSpec: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall[corev1.ResourceLimitsCPU] = resource.MustParse("8")
		},
		BrokenSpecField: "spec.overall[limits.cpu]",
		BreakStatus: func(q *federation.FederatedResourceQuota) {
			q.Status.OverallUsed[corev1.ResourcePods] = resource.MustParse("-1")
		},
		BrokenStatusField: "status.overallUsed[pods]",
		Columns:           []string{"Name", "Request", "Age"},
		Row:               map[string]any{"Name": Name, "Request": "cpu: 1500m/8, memory: 3Gi/16Gi, pods: 3/20"},
	}
}
