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

package federatedhpa

import (
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// setCondition sets a condition of hpa's status, keeping its lastTransitionTime unless
// its status changes.
func setCondition(hpa *federationv1alpha1.FederatedHPA, typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus,
	reason, format string, args ...any) {
	cond := autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
	conds := hpa.Status.Conditions
	for i := range conds {
		if conds[i].Type != typ {
			continue
		}
		cond.LastTransitionTime = conds[i].LastTransitionTime
		if conds[i].Status != status {
			cond.LastTransitionTime = metav1.Now()
		}
		conds[i] = cond
		return
	}
	cond.LastTransitionTime = metav1.Now()
	hpa.Status.Conditions = append(conds, cond)
}

// conditionOrder is the order of the HPA's conditions in its status.
var conditionOrder = map[autoscalingv2.HorizontalPodAutoscalerConditionType]int{
	autoscalingv2.AbleToScale: 0, autoscalingv2.ScalingActive: 1, autoscalingv2.ScalingLimited: 2,
}

// sortConditions puts hpa's conditions in the HPA's order.
func sortConditions(hpa *federationv1alpha1.FederatedHPA) {
	slices.SortStableFunc(hpa.Status.Conditions, func(a, b autoscalingv2.HorizontalPodAutoscalerCondition) int {
		return conditionOrder[a.Type] - conditionOrder[b.Type]
	})
}
