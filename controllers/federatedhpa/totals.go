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
	"errors"
	"fmt"
	"math"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The calculations of the metrics that are not a pod's resource usage: Pods metrics (a
// per-pod value from custom.metrics.k8s.io, averaged), and Object and External metrics (one
// total, compared with the target as a whole or per pod), as the HPA's replica calculator
// computes them.

// PodsReplicas computes the replicas a Pods metric asks for: the average of the pods'
// values against the target's averageValue, with Pending pods unready and pods without a
// value missing, as for a Resource metric other than cpu.
func PodsReplicas(currentReplicas int32, target autoscalingv2.MetricTarget, pods []PodInfo, values map[PodKey]PodUsage, opts ResourceOptions) (ResourceRecommendation, error) {
	if target.AverageValue == nil {
		return ResourceRecommendation{}, errors.New("invalid pods metric source: the target has no averageValue")
	}
	return ResourceReplicas(currentReplicas, "", target, pods, values, opts)
}

// TotalRecommendation is what an Object or External metric asks for.
type TotalRecommendation struct {
	Replicas int32
	// Current is the metric's value, or with an AverageValue target its value per replica,
	// as the HPA reports it.
	Current autoscalingv2.MetricValueStatus
}

// TotalReplicas computes the replicas an Object or External metric asks for from its
// total value in milli-units: with a Value target, the ratio of total to target times the
// ready pods (Running with the Ready condition), with an AverageValue target the total
// divided by the target per pod; currentReplicas is kept while the ratio is within
// tolerance. what names the metric source in errors ("object", "external").
func TotalReplicas(what string, currentReplicas int32, target autoscalingv2.MetricTarget, totalMilli int64, pods []PodInfo, tolerance float64) (TotalRecommendation, error) {
	var rec TotalRecommendation
	switch {
	case target.Type == autoscalingv2.ValueMetricType && target.Value != nil:
		want := target.Value.MilliValue()
		if want <= 0 {
			return rec, fmt.Errorf("invalid %s metric source: value target %s", what, target.Value)
		}
		ratio := float64(totalMilli) / float64(want)
		rec.Current.Value = milliQuantity(totalMilli)
		switch {
		case currentReplicas == 0:
			rec.Replicas = int32(math.Ceil(ratio))
		case math.Abs(1-ratio) <= tolerance:
			rec.Replicas = currentReplicas
		default:
			ready, err := readyPods(pods)
			if err != nil {
				return rec, err
			}
			rec.Replicas = int32(math.Ceil(ratio * float64(ready)))
		}
		return rec, nil

	case target.Type == autoscalingv2.AverageValueMetricType && target.AverageValue != nil:
		want := target.AverageValue.MilliValue()
		if want <= 0 {
			return rec, fmt.Errorf("invalid %s metric source: average value target %s", what, target.AverageValue)
		}
		rec.Replicas = currentReplicas
		ratio := float64(totalMilli) / (float64(want) * float64(currentReplicas))
		if currentReplicas == 0 || math.Abs(1-ratio) > tolerance {
			rec.Replicas = int32(math.Ceil(float64(totalMilli) / float64(want)))
		}
		perReplica := totalMilli
		if currentReplicas > 0 {
			perReplica = int64(math.Ceil(float64(totalMilli) / float64(currentReplicas)))
		}
		rec.Current.AverageValue = milliQuantity(perReplica)
		return rec, nil
	}
	return rec, fmt.Errorf("invalid %s metric source: neither a value target nor an average value target was set", what)
}

// readyPods counts the pods that are Running and ready; none is an error, as for the HPA.
func readyPods(pods []PodInfo) (int, error) {
	if len(pods) == 0 {
		return 0, errors.New("no pods returned by selector while calculating replica count")
	}
	n := 0
	for _, p := range pods {
		if p.Phase == corev1.PodRunning && p.Ready && !p.ReadyTransition.IsZero() {
			n++
		}
	}
	return n, nil
}

// ContainerPods are pods with the requests of one of their containers only, for a
// ContainerResource metric; a pod without that container requests nothing of it.
func ContainerPods(pods []PodInfo, container string) []PodInfo {
	out := make([]PodInfo, len(pods))
	for i, p := range pods {
		p.Requests = p.ContainerRequests[container]
		out[i] = p
	}
	return out
}

func milliQuantity(m int64) *resource.Quantity {
	return resource.NewMilliQuantity(m, resource.DecimalSI)
}
