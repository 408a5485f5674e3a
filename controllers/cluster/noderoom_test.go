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

package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNodeRoom(t *testing.T) {
	cordoned := node("cordoned", corev1.ConditionTrue, "8", "16Gi")
	cordoned.Spec.Unschedulable = true
	tainted := node("tainted", corev1.ConditionTrue, "8", "16Gi")
	tainted.Labels = map[string]string{"disk": "ssd"}
	tainted.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	withInit := pod("b", corev1.PodRunning, container("200m", "128Mi"))
	withInit.Spec.InitContainers = []corev1.Container{container("1", "64Mi")}
	nodes := []corev1.Node{
		tainted,
		node("b", corev1.ConditionTrue, "16", "64Gi"),
		node("a", corev1.ConditionTrue, "16", "64Gi"),
		node("not-ready", corev1.ConditionFalse, "16", "64Gi"),
		node("unknown", "", "16", "64Gi"),
		cordoned,
	}
	pods := []corev1.Pod{
		pod("a", corev1.PodRunning, container("10", "1Gi")),
		pod("a", corev1.PodPending, container("500m", "")), // bound, not yet running: it counts
		pod("a", corev1.PodSucceeded, container("4", "4Gi")),
		pod("a", corev1.PodFailed, container("4", "4Gi")),
		pod("", corev1.PodPending, container("4", "4Gi")), // not bound: on no node yet
		withInit, // the init container's 1 CPU counts
		pod("not-ready", corev1.PodRunning, container("1", "1Gi")),
	}
	got := nodeRoom(nodes, pods)
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if want := []string{"a", "b", "tainted"}; len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("nodes %v, want %v (Ready and schedulable, by name)", names, want)
	}
	equalResources(t, "a", got[0].Free, map[corev1.ResourceName]string{"cpu": "5500m", "memory": "63Gi", "pods": "108"})
	equalResources(t, "b", got[1].Free, map[corev1.ResourceName]string{"cpu": "15", "memory": "65408Mi", "pods": "109"})
	equalResources(t, "tainted", got[2].Free, map[corev1.ResourceName]string{"cpu": "8", "memory": "16Gi", "pods": "110"})
	if got[2].Labels["disk"] != "ssd" || len(got[2].Taints) != 1 || got[2].Taints[0].Key != "gpu" {
		t.Errorf("tainted keeps labels %v and taints %v, want disk=ssd and gpu:NoSchedule", got[2].Labels, got[2].Taints)
	}
	if got := nodeRoom(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("no nodes: %v, want an empty picture (not none)", got)
	}
}
