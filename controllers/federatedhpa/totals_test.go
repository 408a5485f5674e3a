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
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// totalTarget is a Value target (valueTarget is an AverageValue one).
func totalTarget(v string) autoscalingv2.MetricTarget {
	q := resource.MustParse(v)
	return autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &q}
}

func TestTotalReplicas(t *testing.T) {
	pending := func(p *PodInfo) { p.Phase = corev1.PodPending }
	tests := []struct {
		name        string
		current     int32
		target      autoscalingv2.MetricTarget
		totalMilli  int64
		pods        []PodInfo
		want        int32
		wantCurrent string
		wantErr     string
	}{
		{name: "value: ratio times the ready pods", current: 3, target: totalTarget("10"), totalMilli: 25000,
			pods: with(pods(3), 2, pending), want: 5, wantCurrent: "25"},
		{name: "value within tolerance keeps the count", current: 3, target: totalTarget("10"), totalMilli: 10500, pods: pods(3), want: 3, wantCurrent: "10500m"},
		{name: "value with no replicas: the ratio", current: 0, target: totalTarget("10"), totalMilli: 25000, want: 3, wantCurrent: "25"},
		{name: "value without pods", current: 2, target: totalTarget("10"), totalMilli: 25000, wantErr: "no pods returned by selector"},
		{name: "average value: total over the target per pod", current: 2, target: valueTarget("5"), totalMilli: 25000, want: 5, wantCurrent: "12500m"},
		{name: "average value within tolerance", current: 5, target: valueTarget("5"), totalMilli: 26000, want: 5, wantCurrent: "5200m"},
		{name: "neither", current: 2, target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}, wantErr: "neither a value target nor an average value target"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := TotalReplicas("object", tc.current, tc.target, tc.totalMilli, tc.pods, 0.1)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Replicas != tc.want {
				t.Errorf("replicas %d, want %d", rec.Replicas, tc.want)
			}
			cur := rec.Current.Value
			if cur == nil {
				cur = rec.Current.AverageValue
			}
			if cur == nil || cur.String() != tc.wantCurrent {
				t.Errorf("current %v, want %s", cur, tc.wantCurrent)
			}
		})
	}
}

func TestPodsReplicas(t *testing.T) {
	values := map[PodKey]PodUsage{}
	ps := pods(4)
	for _, p := range ps[:3] {
		values[p.Key()] = PodUsage{MilliValue: 200, Timestamp: now}
	}
	// Three pods at twice the target, one without a value: on a scale-up the missing
	// pod counts as 0, (200+200+200+0)/4 = 150m, 1.5 x 4 pods.
	rec, err := PodsReplicas(4, valueTarget("100m"), ps, values, DefaultResourceOptions(now))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Replicas != 6 || rec.AverageMilli != 200 {
		t.Errorf("replicas %d, average %dm; want 6 and 200m", rec.Replicas, rec.AverageMilli)
	}
	if _, err := PodsReplicas(4, totalTarget("1"), ps, values, DefaultResourceOptions(now)); err == nil {
		t.Error("a Pods metric with a value target was computed")
	}
}

func TestContainerPods(t *testing.T) {
	p := pod(0, 1000)
	p.ContainerRequests = map[string]corev1.ResourceList{"app": {corev1.ResourceCPU: resource.MustParse("250m")}}
	got := ContainerPods([]PodInfo{p}, "app")
	if q := got[0].Requests[corev1.ResourceCPU]; q.MilliValue() != 250 {
		t.Errorf("requests %v, want the container's 250m", got[0].Requests)
	}
	if got := ContainerPods([]PodInfo{p}, "sidecar"); got[0].Requests != nil {
		t.Errorf("a missing container requests %v", got[0].Requests)
	}
}
