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

package interpreter

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TestReadiness checks what readiness tools read of a Deployment template: conditions,
// observedGeneration and counters, Divided and Duplicated.
func TestReadiness(t *testing.T) {
	ready := func(gen int, replicas int) string {
		return `{observedGeneration: ` + strconv.Itoa(gen) + `, replicas: ` + strconv.Itoa(replicas) + `, updatedReplicas: ` + strconv.Itoa(replicas) + `, readyReplicas: ` + strconv.Itoa(replicas) + `, availableReplicas: ` + strconv.Itoa(replicas) + `,
			conditions: [{type: Available, status: "True", reason: MinimumReplicasAvailable, message: ok, lastUpdateTime: "2026-03-01T10:00:00Z", lastTransitionTime: "2026-03-01T10:00:00Z"},
			{type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: done, lastUpdateTime: "2026-03-01T10:00:00Z", lastTransitionTime: "2026-03-01T10:00:00Z"}]}`
	}
	conditions := func(got map[string]any) map[string]string {
		out := map[string]string{}
		list, _ := got["conditions"].([]any)
		for _, c := range list {
			m := c.(map[string]any)
			out[m["type"].(string)] = m["status"].(string) + "/" + m["reason"].(string) + ": " + m["message"].(string)
		}
		return out
	}
	t.Run("ready everywhere", func(t *testing.T) {
		got, _ := AggregateStatus(fromYAML(t, deploymentTemplate), []federationv1alpha1.AggregatedStatusItem{
			item(t, "east", true, ready(7, 3)), item(t, "west", true, ready(7, 2))}, false)
		want := map[string]string{
			"Available":   "True/MinimumReplicasAvailable: Deployment has minimum availability in every cluster.",
			"Progressing": "True/NewReplicaSetAvailable: every cluster has completed its rollout.",
		}
		if diff := cmp.Diff(want, conditions(got)); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
		if got["observedGeneration"] != int64(7) || got["availableReplicas"] != int64(5) {
			t.Errorf("observedGeneration %v, availableReplicas %v; want 7 and 5", got["observedGeneration"], got["availableReplicas"])
		}
	})
	t.Run("one member has not observed the generation", func(t *testing.T) {
		got, _ := AggregateStatus(fromYAML(t, deploymentTemplate), []federationv1alpha1.AggregatedStatusItem{
			item(t, "east", true, ready(7, 3)), item(t, "west", true, ready(6, 2))}, false)
		if got["observedGeneration"] != int64(6) {
			t.Errorf("observedGeneration %v while west observed generation 6 only, want 6 (the one before)", got["observedGeneration"])
		}
	})
	t.Run("progress deadline exceeded in one member", func(t *testing.T) {
		stuck := `{observedGeneration: 7, replicas: 2, updatedReplicas: 2, unavailableReplicas: 2,
			conditions: [{type: Available, status: "False", reason: MinimumReplicasUnavailable, message: "Deployment does not have minimum availability."},
			{type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: "ReplicaSet \"web-1\" has timed out progressing."}]}`
		got, _ := AggregateStatus(fromYAML(t, deploymentTemplate), []federationv1alpha1.AggregatedStatusItem{
			item(t, "east", true, ready(7, 3)), item(t, "west", true, stuck)}, false)
		want := map[string]string{
			"Available":   "False/MinimumReplicasUnavailable: cluster west: Deployment does not have minimum availability.",
			"Progressing": "False/ProgressDeadlineExceeded: cluster west: ReplicaSet \"web-1\" has timed out progressing.",
		}
		if diff := cmp.Diff(want, conditions(got)); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
	})
	t.Run("duplicated: the smallest of the members' counts", func(t *testing.T) {
		got, _ := AggregateStatus(fromYAML(t, deploymentTemplate), []federationv1alpha1.AggregatedStatusItem{
			item(t, "east", true, ready(7, 5)), item(t, "west", true, ready(7, 4))}, true)
		if got["replicas"] != int64(4) || got["availableReplicas"] != int64(4) {
			t.Errorf("replicas %v, available %v; want 4 and 4 (west's)", got["replicas"], got["availableReplicas"])
		}
		got, _ = AggregateStatus(fromYAML(t, deploymentTemplate), []federationv1alpha1.AggregatedStatusItem{
			item(t, "east", true, ready(7, 5)), item(t, "west", false, ``)}, true)
		if _, ok := got["replicas"]; ok {
			t.Errorf("replicas %v while west reports nothing", got["replicas"])
		}
	})
}

func TestReflectStatusObservedGeneration(t *testing.T) {
	obj := func(observed int) string {
		return `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 4, annotations: {federation.fedhq.io/template-generation: "9"}},
			status: {observedGeneration: ` + strconv.Itoa(observed) + `, replicas: 1, collisionCount: 2}}`
	}
	if got := string(ReflectStatus(fromYAML(t, obj(4))).Raw); got != `{"observedGeneration":9,"replicas":1}` {
		t.Errorf("observed: %s, want the template's generation 9 and no collisionCount", got)
	}
	if got := string(ReflectStatus(fromYAML(t, obj(3))).Raw); got != `{"replicas":1}` {
		t.Errorf("not observed yet: %s, want no observedGeneration", got)
	}
}
