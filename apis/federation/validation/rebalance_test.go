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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

// validReplicaSchedulingPolicy is the seed's replica-reschedule, defaulted.
func validReplicaSchedulingPolicy() *federation.ReplicaSchedulingPolicy {
	return &federation.ReplicaSchedulingPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-reschedule", ResourceVersion: "1"},
		Spec: federation.ReplicaSchedulingPolicySpec{
			ResourceSelectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}},
			ReschedulePolicy: &federation.ReschedulePolicy{
				Enabled:  true,
				Interval: &metav1.Duration{Duration: time.Minute},
				Threshold: &federation.RescheduleThreshold{
					CPUUtilization:    ptr.To[int32](80),
					MemoryUtilization: ptr.To[int32](80),
				},
			},
		},
	}
}

func TestValidateReplicaSchedulingPolicy(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.ReplicaSchedulingPolicy)
		want   []string
		// detail is a part of the first error's message.
		detail string
		// createOnly: the metadata is checked otherwise on update.
		createOnly bool
	}{
		{name: "seed example", mutate: func(*federation.ReplicaSchedulingPolicy) {}},
		{name: "every dynamically divided workload, CPU only, shortest interval", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ResourceSelectors = nil
			p.Spec.ReschedulePolicy.Interval.Duration = 10 * time.Second
			p.Spec.ReschedulePolicy.Threshold.MemoryUtilization = nil
		}},
		{name: "memory only, bounds", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Threshold = &federation.RescheduleThreshold{MemoryUtilization: ptr.To[int32](100)}
		}},
		{name: "disabled needs no threshold", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy = &federation.ReschedulePolicy{}
		}},
		{name: "no reschedule policy", mutate: func(p *federation.ReplicaSchedulingPolicy) { p.Spec.ReschedulePolicy = nil },
			want: []string{"FieldValueRequired spec.reschedulePolicy"}},
		{name: "interval too short", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Interval.Duration = 9 * time.Second
		}, want: []string{"FieldValueInvalid spec.reschedulePolicy.interval"}, detail: "at least 10s"},
		{name: "interval checked when disabled", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Enabled = false
			p.Spec.ReschedulePolicy.Interval.Duration = 0
		}, want: []string{"FieldValueInvalid spec.reschedulePolicy.interval"}},
		{name: "enabled without threshold", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Threshold = nil
		}, want: []string{"FieldValueRequired spec.reschedulePolicy.threshold"}, detail: "cpuUtilization and memoryUtilization"},
		{name: "enabled with an empty threshold", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Threshold = &federation.RescheduleThreshold{}
		}, want: []string{"FieldValueRequired spec.reschedulePolicy.threshold"}},
		{name: "thresholds out of range", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Threshold = &federation.RescheduleThreshold{CPUUtilization: ptr.To[int32](0), MemoryUtilization: ptr.To[int32](101)}
		}, want: []string{"FieldValueInvalid spec.reschedulePolicy.threshold.cpuUtilization",
			"FieldValueInvalid spec.reschedulePolicy.threshold.memoryUtilization"}, detail: "from 1 to 100"},
		{name: "thresholds checked when disabled", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy.Enabled = false
			p.Spec.ReschedulePolicy.Threshold.CPUUtilization = ptr.To[int32](-5)
		}, want: []string{"FieldValueInvalid spec.reschedulePolicy.threshold.cpuUtilization"}},
		{name: "resource selectors as a ClusterPropagationPolicy's", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ResourceSelectors = []federation.ResourceSelector{
				{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx"},
				{Kind: "StatefulSet"},
				{APIVersion: "apps/v1", Namespace: "Not_A_Namespace",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "-"}}},
			}
		}, want: []string{"FieldValueRequired spec.resourceSelectors[1].apiVersion", "FieldValueRequired spec.resourceSelectors[2].kind",
			"FieldValueInvalid spec.resourceSelectors[2].namespace", "FieldValueInvalid spec.resourceSelectors[2].labelSelector.matchLabels"}},
		{name: "name", mutate: func(p *federation.ReplicaSchedulingPolicy) { p.Name = "Replica_Reschedule" },
			want: []string{"FieldValueInvalid metadata.name"}, createOnly: true},
		{name: "cluster-scoped", mutate: func(p *federation.ReplicaSchedulingPolicy) { p.Namespace = "default" },
			want: []string{"FieldValueForbidden metadata.namespace"}, createOnly: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validReplicaSchedulingPolicy()
			tc.mutate(p)
			errs := ValidateReplicaSchedulingPolicy(p)
			expectErrors(t, errs, tc.want)
			if !tc.createOnly {
				expectErrors(t, ValidateReplicaSchedulingPolicyUpdate(p, validReplicaSchedulingPolicy()), tc.want)
			}
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("first error %q does not say %q", errs[0].Error(), tc.detail)
			}
		})
	}
}

func TestValidateReplicaSchedulingPolicyStatusUpdate(t *testing.T) {
	at := metav1.Date(2026, 1, 3, 9, 0, 0, 0, time.UTC)
	move := func() federation.ReplicaMove {
		return federation.ReplicaMove{Time: at, FromCluster: "member1", ToCluster: "member2", Replicas: 2,
			Template: federation.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx"}}
	}
	valid := func() *federation.ReplicaSchedulingPolicy {
		p := validReplicaSchedulingPolicy()
		p.Status = federation.ReplicaSchedulingPolicyStatus{
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Rebalancing",
				LastTransitionTime: at}},
			LastRebalanceTime: &at,
			Moves:             []federation.ReplicaMove{move()},
		}
		return p
	}
	tests := []struct {
		name   string
		mutate func(*federation.ReplicaSchedulingPolicy)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.ReplicaSchedulingPolicy) {}},
		{name: "empty", mutate: func(p *federation.ReplicaSchedulingPolicy) { p.Status = federation.ReplicaSchedulingPolicyStatus{} }},
		{name: "twenty moves, a cluster-scoped template", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Status.Moves = nil
			for range 20 {
				p.Status.Moves = append(p.Status.Moves, move())
			}
			p.Status.Moves[19].Template = federation.ObjectReference{APIVersion: "example.io/v1", Kind: "Job", Name: "j"}
		}},
		{name: "a spec the status write leaves alone", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Spec.ReschedulePolicy = nil
		}},
		{name: "more than twenty moves", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Status.Moves = nil
			for range 21 {
				p.Status.Moves = append(p.Status.Moves, move())
			}
		}, want: []string{"FieldValueTooMany status.moves"}},
		{name: "condition", mutate: func(p *federation.ReplicaSchedulingPolicy) { p.Status.Conditions[0].Reason = "not a reason" },
			want: []string{"FieldValueInvalid status.conditions[0].reason"}},
		{name: "empty move", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Status.Moves = []federation.ReplicaMove{{}}
		}, want: []string{"FieldValueRequired status.moves[0].time", "FieldValueRequired status.moves[0].template.apiVersion",
			"FieldValueRequired status.moves[0].template.kind", "FieldValueRequired status.moves[0].template.name",
			"FieldValueRequired status.moves[0].fromCluster", "FieldValueRequired status.moves[0].toCluster",
			"FieldValueInvalid status.moves[0].replicas"}},
		{name: "bad move", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			m := &p.Status.Moves[0]
			m.Template.APIVersion, m.Template.Namespace = "apps/v1/extra", "Default"
			m.FromCluster, m.ToCluster, m.Replicas = "member2", "member2", -1
		}, want: []string{"FieldValueInvalid status.moves[0].template.apiVersion", "FieldValueInvalid status.moves[0].template.namespace",
			"FieldValueInvalid status.moves[0].toCluster", "FieldValueInvalid status.moves[0].replicas"}},
		{name: "cluster names", mutate: func(p *federation.ReplicaSchedulingPolicy) {
			p.Status.Moves[0].FromCluster = "Member_1"
		}, want: []string{"FieldValueInvalid status.moves[0].fromCluster"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := valid()
			tc.mutate(p)
			expectErrors(t, ValidateReplicaSchedulingPolicyStatusUpdate(p, validReplicaSchedulingPolicy()), tc.want)
		})
	}
}
