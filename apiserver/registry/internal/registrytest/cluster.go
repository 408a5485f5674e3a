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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/cluster"
)

// condition returns a valid condition of the given type and status.
func condition(condType string, status metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: condType, Status: status, Reason: "Test", Message: "set by a test",
		LastTransitionTime: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Cluster is the test case of clusters.
func Cluster() Case[*cluster.Cluster] {
	return Case[*cluster.Cluster]{
		Valid: func() *cluster.Cluster {
			return &cluster.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: cluster.ClusterSpec{
					SyncMode:    cluster.Push,
					APIEndpoint: "https://10.0.0.1:6443",
					SecretRef:   &cluster.LocalSecretReference{Namespace: "fed-system", Name: Name},
					Provider:    "aws",
					Region:      "eu-west-1",
					Taints:      []corev1.Taint{{Key: "dedicated", Value: "ml", Effect: corev1.TaintEffectNoSchedule}},
				},
			}
		},
		ChangeSpec: func(c *cluster.Cluster) { c.Spec.Zone = "eu-west-1a" },
		ChangeStatus: func(c *cluster.Cluster) {
			c.Status.KubernetesVersion = "v1.32.4"
			c.Status.Conditions = []metav1.Condition{condition(cluster.ClusterConditionReady, metav1.ConditionTrue)}
			c.Status.NodeSummary = &cluster.NodeSummary{TotalNum: 3, ReadyNum: 3}
		},
		BreakSpec:         func(c *cluster.Cluster) { c.Spec.SyncMode = "Sideways" },
		BrokenSpecField:   "spec.syncMode",
		BreakStatus:       func(c *cluster.Cluster) { c.Status.NodeSummary = &cluster.NodeSummary{TotalNum: 1, ReadyNum: 2} },
		BrokenStatusField: "status.nodeSummary.readyNum",

		Columns: []string{"Name", "Version", "Mode", "Ready", "Age", "API-Endpoint", "Region", "Zone", "Provider"},
		Row: map[string]any{"Name": Name, "Version": "v1.32.4", "Mode": "Push", "Ready": "True",
			"API-Endpoint": "https://10.0.0.1:6443", "Region": "eu-west-1", "Zone": "eu-west-1a", "Provider": "aws"},
	}
}
