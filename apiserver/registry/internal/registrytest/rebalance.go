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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

// rebalanced is a last rebalance three hours before the tests start, to the
// second as it is stored, which the table prints as "3h".
var rebalanced = metav1.NewTime(time.Now().Add(-3 * time.Hour).Truncate(time.Second).UTC())

// ReplicaSchedulingPolicy is the test case of replicaschedulingpolicies: the
// seed's replica-reschedule, with a CPU threshold only.
func ReplicaSchedulingPolicy() Case[*federation.ReplicaSchedulingPolicy] {
	return Case[*federation.ReplicaSchedulingPolicy]{
		Valid: func() *federation.ReplicaSchedulingPolicy {
			return &federation.ReplicaSchedulingPolicy{ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: federation.ReplicaSchedulingPolicySpec{
					ResourceSelectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}},
					ReschedulePolicy: &federation.ReschedulePolicy{Enabled: true, Interval: &metav1.Duration{Duration: time.Minute},
						Threshold: &federation.RescheduleThreshold{CPUUtilization: ptr.To[int32](80)}},
				}}
		},
		ChangeSpec: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ResourceSelectors = nil
			p.Spec.ReschedulePolicy.Interval.Duration = 2 * time.Minute
			p.Spec.ReschedulePolicy.Threshold.MemoryUtilization = ptr.To[int32](70)
		},
		ChangeStatus: func(p *federation.ReplicaSchedulingPolicy) {
			p.Status = federation.ReplicaSchedulingPolicyStatus{Conditions: ready("Rebalancing"), LastRebalanceTime: ptr.To(rebalanced),
				Moves: []federation.ReplicaMove{{Time: rebalanced, FromCluster: "member1", ToCluster: "member2", Replicas: 1,
					Template: federation.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: "nginx"}}}}
		},
		BreakSpec: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Threshold.CPUUtilization = ptr.To[int32](0)
		},
		BrokenSpecField:   "spec.reschedulePolicy.threshold.cpuUtilization",
		BreakStatus:       func(p *federation.ReplicaSchedulingPolicy) { p.Status.Moves[0].ToCluster = "member1" },
		BrokenStatusField: "status.moves[0].toCluster",
		Columns:           []string{"Name", "Enabled", "Interval", "CPU", "Memory", "Last-Rebalance", "Age"},
		Row: map[string]any{"Name": Name, "Enabled": true, "Interval": "2m0s", "CPU": "80%", "Memory": "70%",
			"Last-Rebalance": "3h"},
	}
}
