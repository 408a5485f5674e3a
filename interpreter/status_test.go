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
	"testing"
)

func TestReflectStatus(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want string // JSON; "" for nil
	}{
		{
			name: "deployment drops its own generation and collision count",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 4}
status:
  observedGeneration: 4
  collisionCount: 1
  replicas: 2
  readyReplicas: 2
  conditions:
  - {type: Available, status: "True", lastTransitionTime: "2026-03-01T10:00:00Z"}
`,
			want: `{"conditions":[{"lastTransitionTime":"2026-03-01T10:00:00Z","status":"True","type":"Available"}],"readyReplicas":2,"replicas":2}`,
		},
		{
			name: "statefulset drops revisions",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, currentRevision: db-7c9, updateRevision: db-7c9, collisionCount: 0}
`,
			want: `{"readyReplicas":3,"replicas":3}`,
		},
		{
			name: "pod keeps everything",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
status: {phase: Running, podIP: 10.1.2.3, hostIP: 192.168.0.4}
`,
			want: `{"hostIP":"192.168.0.4","phase":"Running","podIP":"10.1.2.3"}`,
		},
		{
			name: "custom resource keeps observedGeneration",
			yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
status: {observedGeneration: 3, phase: Ready}
`,
			want: `{"observedGeneration":3,"phase":"Ready"}`,
		},
		{
			name: "only member-only fields",
			yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
status: {observedGeneration: 1}
`,
		},
		{
			name: "no status",
			yaml: `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
`,
		},
		{
			name: "empty status",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web}
status: {}
`,
		},
		{
			name: "status of the wrong type",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
status: [ready]
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ReflectStatus(fromYAML(t, c.yaml))
			switch {
			case c.want == "" && got != nil:
				t.Errorf("ReflectStatus() = %s, want nil", got.Raw)
			case c.want != "" && got == nil:
				t.Errorf("ReflectStatus() = nil, want %s", c.want)
			case c.want != "" && string(got.Raw) != c.want:
				t.Errorf("ReflectStatus() = %s, want %s", got.Raw, c.want)
			}
		})
	}
	t.Run("nil object", func(t *testing.T) {
		if got := ReflectStatus(nil); got != nil {
			t.Errorf("ReflectStatus(nil) = %s, want nil", got.Raw)
		}
	})
	t.Run("does not change the object", func(t *testing.T) {
		obj := fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
status: {observedGeneration: 4, replicas: 2}
`)
		ReflectStatus(obj)
		if _, ok := obj.Object["status"].(map[string]any)["observedGeneration"]; !ok {
			t.Error("ReflectStatus removed observedGeneration from the object itself")
		}
	})
}
