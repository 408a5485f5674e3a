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

package descheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStuck(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	pod := func(phase corev1.PodPhase, node string, reason string, since time.Duration) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
		if reason != "" {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason,
				LastTransitionTime: metav1.NewTime(now.Add(-since))}}
		}
		return p
	}
	before := now.Add(-5 * time.Minute)
	for name, c := range map[string]struct {
		pod  *corev1.Pod
		want bool
	}{
		"unschedulable for long":  {pod(corev1.PodPending, "", corev1.PodReasonUnschedulable, 6*time.Minute), true},
		"unschedulable for a bit": {pod(corev1.PodPending, "", corev1.PodReasonUnschedulable, time.Minute), false},
		"pending, not yet looked": {pod(corev1.PodPending, "", "", 0), false},
		"bound, pulling":          {pod(corev1.PodPending, "node1", "", 0), false},
		"running":                 {pod(corev1.PodRunning, "node1", "", 0), false},
		"scheduling gated":        {pod(corev1.PodPending, "", corev1.PodReasonSchedulingGated, 6*time.Minute), false},
	} {
		if got := stuck(c.pod, before); got != c.want {
			t.Errorf("%s: stuck = %v, want %v", name, got, c.want)
		}
	}
}
