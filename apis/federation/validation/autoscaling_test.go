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
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

func validFederatedHPA() *federation.FederatedHPA {
	return &federation.FederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.FederatedHPASpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](10)},
			}}},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](10), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
					Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15}}},
			},
		},
	}
}

func TestValidateFederatedHPA(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.FederatedHPASpec)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.FederatedHPASpec) {}},
		{name: "bounds", mutate: func(s *federation.FederatedHPASpec) {
			s.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "a/b/c"}
			s.MinReplicas = ptr.To[int32](5)
			s.MaxReplicas = 2
		}, want: []string{
			"FieldValueInvalid spec.scaleTargetRef.apiVersion",
			"FieldValueRequired spec.scaleTargetRef.kind",
			"FieldValueRequired spec.scaleTargetRef.name",
			"FieldValueInvalid spec.maxReplicas",
		}},
		{name: "zero replicas", mutate: func(s *federation.FederatedHPASpec) { s.MinReplicas, s.MaxReplicas = ptr.To[int32](0), 0 },
			want: []string{"FieldValueInvalid spec.minReplicas", "FieldValueInvalid spec.maxReplicas"}},
		{name: "metrics", mutate: func(s *federation.FederatedHPASpec) {
			s.Metrics = []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.PodsMetricSourceType, Resource: s.Metrics[0].Resource},
				{Type: "Custom"},
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("0"))}}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}}},
			}
		}, want: []string{
			"FieldValueRequired spec.metrics[0].pods",
			"FieldValueForbidden spec.metrics[0].resource",
			"FieldValueNotSupported spec.metrics[1].type",
			"FieldValueRequired spec.metrics[2].external.target.averageValue",
			"FieldValueRequired spec.metrics[3].resource.target.averageUtilization",
		}},
		{name: "behavior", mutate: func(s *federation.FederatedHPASpec) {
			s.Behavior.ScaleDown = &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](4000),
				SelectPolicy:               ptr.To(autoscalingv2.ScalingPolicySelect("Avg")),
				Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: "Nodes", Value: 0, PeriodSeconds: 2000}},
			}
			s.Behavior.ScaleUp.Policies = nil
		}, want: []string{
			"FieldValueRequired spec.behavior.scaleUp.policies",
			"FieldValueInvalid spec.behavior.scaleDown.stabilizationWindowSeconds",
			"FieldValueNotSupported spec.behavior.scaleDown.selectPolicy",
			"FieldValueNotSupported spec.behavior.scaleDown.policies[0].type",
			"FieldValueInvalid spec.behavior.scaleDown.policies[0].value",
			"FieldValueInvalid spec.behavior.scaleDown.policies[0].periodSeconds",
		}},
		{name: "disabled scaling needs no policies", mutate: func(s *federation.FederatedHPASpec) {
			s.Behavior.ScaleUp = &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.DisabledPolicySelect)}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := validFederatedHPA()
			tc.mutate(&h.Spec)
			expectErrors(t, ValidateFederatedHPA(h), tc.want)
			expectErrors(t, ValidateFederatedHPAUpdate(h, validFederatedHPA()), tc.want)
		})
	}
}

func TestValidateFederatedHPAStatusUpdate(t *testing.T) {
	h := validFederatedHPA()
	h.Status.CurrentReplicas = -1
	expectErrors(t, ValidateFederatedHPAStatusUpdate(h, validFederatedHPA()), []string{"FieldValueInvalid status.currentReplicas"})
}

func validCronFederatedHPA() *federation.CronFederatedHPA {
	return &federation.CronFederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-cronfhpa", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.CronFederatedHPASpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"},
			Rules: []federation.CronFederatedHPARule{{
				Name: "scale-up", Schedule: "*/1 * * * *", TargetReplicas: ptr.To[int32](5), Suspend: ptr.To(false),
				TimeZone: ptr.To("UTC"), SuccessfulHistoryLimit: ptr.To[int32](3), FailedHistoryLimit: ptr.To[int32](3),
			}},
		},
	}
}

func TestValidateCronFederatedHPA(t *testing.T) {
	fhpaRef := autoscalingv2.CrossVersionObjectReference{APIVersion: "federation.fedhq.io/v1alpha1", Kind: "FederatedHPA", Name: "nginx"}
	tests := []struct {
		name   string
		mutate func(*federation.CronFederatedHPASpec)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.CronFederatedHPASpec) {}},
		{name: "valid FederatedHPA target", mutate: func(s *federation.CronFederatedHPASpec) {
			s.ScaleTargetRef = fhpaRef
			s.Rules[0].TargetReplicas, s.Rules[0].TargetMinReplicas, s.Rules[0].TargetMaxReplicas = nil, ptr.To[int32](2), ptr.To[int32](8)
			s.Rules[0].Schedule = "@hourly"
		}},
		{name: "no rules", mutate: func(s *federation.CronFederatedHPASpec) { s.Rules = nil },
			want: []string{"FieldValueRequired spec.rules"}},
		{name: "bad rules", mutate: func(s *federation.CronFederatedHPASpec) {
			s.Rules = append(s.Rules,
				federation.CronFederatedHPARule{Name: "scale-up", Schedule: "61 * * * *", TargetReplicas: ptr.To[int32](-1)},
				federation.CronFederatedHPARule{Schedule: "CRON_TZ=UTC 0 9 * * *", TimeZone: ptr.To("Mars/Olympus"),
					TargetMinReplicas: ptr.To[int32](1), SuccessfulHistoryLimit: ptr.To[int32](-1)},
			)
		}, want: []string{
			"FieldValueDuplicate spec.rules[1].name",
			"FieldValueInvalid spec.rules[1].schedule",
			"FieldValueInvalid spec.rules[1].targetReplicas",
			"FieldValueRequired spec.rules[2].name",
			"FieldValueInvalid spec.rules[2].schedule",
			"FieldValueInvalid spec.rules[2].timeZone",
			"FieldValueForbidden spec.rules[2].targetMinReplicas",
			"FieldValueRequired spec.rules[2].targetReplicas",
			"FieldValueInvalid spec.rules[2].successfulHistoryLimit",
		}},
		{name: "bad FederatedHPA rules", mutate: func(s *federation.CronFederatedHPASpec) {
			s.ScaleTargetRef = fhpaRef
			s.Rules = []federation.CronFederatedHPARule{
				{Name: "a", Schedule: "0 9 * * *", TargetReplicas: ptr.To[int32](3)},
				{Name: "b", Schedule: "0 9 * * *", TargetMinReplicas: ptr.To[int32](5), TargetMaxReplicas: ptr.To[int32](0)},
			}
		}, want: []string{
			"FieldValueForbidden spec.rules[0].targetReplicas",
			"FieldValueRequired spec.rules[0].targetMinReplicas",
			"FieldValueInvalid spec.rules[1].targetMaxReplicas",
			"FieldValueInvalid spec.rules[1].targetMaxReplicas",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := validCronFederatedHPA()
			tc.mutate(&h.Spec)
			expectErrors(t, ValidateCronFederatedHPA(h), tc.want)
			expectErrors(t, ValidateCronFederatedHPAUpdate(h, validCronFederatedHPA()), tc.want)
		})
	}
}

func TestValidateCronFederatedHPAStatusUpdate(t *testing.T) {
	h := validCronFederatedHPA()
	h.Status.ExecutionHistories = []federation.ExecutionHistory{{RuleName: "scale-up"}, {RuleName: "scale-up"}, {}}
	expectErrors(t, ValidateCronFederatedHPAStatusUpdate(h, validCronFederatedHPA()), []string{
		"FieldValueDuplicate status.executionHistories[1].ruleName",
		"FieldValueRequired status.executionHistories[2].ruleName",
	})
}
