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

package federatedhpas

import (
	"strconv"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/fleet/tables"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// The columns are those of `kubectl get hpa`, with the target split in two.
var columns = []registrykit.Column[*federation.FederatedHPA]{
	{Name: "Reference-Kind", Type: "string", Description: "The kind of the scaled workload.",
		Cell: func(h *federation.FederatedHPA) any { return h.Spec.ScaleTargetRef.Kind }},
	{Name: "Reference-Name", Type: "string", Description: "The name of the scaled workload.",
		Cell: func(h *federation.FederatedHPA) any { return h.Spec.ScaleTargetRef.Name }},
	{Name: "Targets", Type: "string", Description: "The metrics' current values and targets.",
		Cell: func(h *federation.FederatedHPA) any {
			return tables.HPATargets(metricsOrDefault(h.Spec.Metrics), h.Status.CurrentMetrics)
		}},
	{Name: "MinPods", Type: "string", Description: "The lower limit of the replicas.",
		Cell: func(h *federation.FederatedHPA) any { return minPods(h.Spec.MinReplicas) }},
	{Name: "MaxPods", Type: "integer", Description: "The upper limit of the replicas.",
		Cell: func(h *federation.FederatedHPA) any { return int64(h.Spec.MaxReplicas) }},
	{Name: "Replicas", Type: "integer", Description: "The current number of replicas across members.",
		Cell: func(h *federation.FederatedHPA) any { return int64(h.Status.CurrentReplicas) }},
}

// metricsOrDefault are the metrics a FederatedHPA scales on: 80% CPU without any.
func metricsOrDefault(m []autoscalingv2.MetricSpec) []autoscalingv2.MetricSpec {
	if len(m) > 0 {
		return m
	}
	return []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)}}}}
}

func minPods(minReplicas *int32) string {
	if minReplicas == nil {
		return "<unset>"
	}
	return strconv.Itoa(int(*minReplicas))
}

// NewStorage returns the storage of federatedhpas and federatedhpas/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.FederatedHPA]{
		Resource:   federation.Resource("federatedhpas"),
		Singular:   "federatedhpa",
		NewList:    func() runtime.Object { return &federation.FederatedHPAList{} },
		Strategy:   Strategy,
		ShortNames: []string{"fhpa"},
		Columns:    columns,
	})
}
