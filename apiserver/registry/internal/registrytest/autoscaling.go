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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

var deployment = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}

// FederatedHPA is the test case of federatedhpas.
func FederatedHPA() Case[*federation.FederatedHPA] {
	return Case[*federation.FederatedHPA]{
		Valid: func() *federation.FederatedHPA {
			return &federation.FederatedHPA{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.FederatedHPASpec{ScaleTargetRef: deployment, MinReplicas: ptr.To[int32](1), MaxReplicas: 10}}
		},
		ChangeSpec: func(h *federation.FederatedHPA) { h.Spec.MinReplicas, h.Spec.MaxReplicas = ptr.To[int32](2), 20 },
		ChangeStatus: func(h *federation.FederatedHPA) {
			h.Status.CurrentReplicas, h.Status.DesiredReplicas = 4, 5
		},
		BreakSpec:         func(h *federation.FederatedHPA) { h.Spec.ScaleTargetRef.Kind = "" },
		BrokenSpecField:   "spec.scaleTargetRef.kind",
		BreakStatus:       func(h *federation.FederatedHPA) { h.Status.CurrentReplicas = -1 },
		BrokenStatusField: "status.currentReplicas",
		Columns:           []string{"Name", "Reference-Kind", "Reference-Name", "Targets", "MinPods", "MaxPods", "Replicas", "Age"},
		Row: map[string]any{"Name": Name, "Reference-Kind": "Deployment", "Reference-Name": "nginx",
			"Targets": "cpu: <unknown>/80%", "MinPods": "2", "MaxPods": int64(20), "Replicas": int64(4)},
	}
}

// CronFederatedHPA is the test case of cronfederatedhpas.
func CronFederatedHPA() Case[*federation.CronFederatedHPA] {
	return Case[*federation.CronFederatedHPA]{
		Valid: func() *federation.CronFederatedHPA {
			return &federation.CronFederatedHPA{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.CronFederatedHPASpec{ScaleTargetRef: deployment, Rules: []federation.CronFederatedHPARule{{
					Name: "scale-up", Schedule: "0 8 * * *", TargetReplicas: ptr.To[int32](5), TimeZone: ptr.To("UTC"),
				}}}}
		},
		ChangeSpec: func(h *federation.CronFederatedHPA) { h.Spec.Rules[0].Schedule = "0 9 * * 1-5" },
		ChangeStatus: func(h *federation.CronFederatedHPA) {
			h.Status.ExecutionHistories = []federation.ExecutionHistory{{RuleName: "scale-up",
				NextExecutionTime: ptr.To(metav1.Date(2026, 1, 3, 9, 0, 0, 0, time.UTC))}}
		},
		BreakSpec:         func(h *federation.CronFederatedHPA) { h.Spec.Rules[0].Schedule = "every morning" },
		BrokenSpecField:   "spec.rules[0].schedule",
		BreakStatus:       func(h *federation.CronFederatedHPA) { h.Status.ExecutionHistories[0].RuleName = "" },
		BrokenStatusField: "status.executionHistories[0].ruleName",
		Columns:           []string{"Name", "Reference-Kind", "Reference-Name", "Rules", "Last-Schedule", "Age"},
		Row: map[string]any{"Name": Name, "Reference-Kind": "Deployment", "Reference-Name": "nginx",
			"Rules": "scale-up", "Last-Schedule": "<none>"},
	}
}
