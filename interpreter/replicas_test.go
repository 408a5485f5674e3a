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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestReplicas(t *testing.T) {
	for _, c := range []struct {
		name     string
		yaml     string
		replicas int32
		cpu      string // "" when no requirements
		selector map[string]string
	}{
		{"a Deployment with requests", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    spec:
      containers:
      - {name: a, image: a, resources: {requests: {cpu: 100m, memory: 64Mi}}}
      - {name: b, image: b, resources: {requests: {cpu: 150m}}}
`, 3, "250m", nil},
		{"unset replicas mean 1; an init container asking more decides", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  template:
    spec:
      initContainers: [{name: i, image: i, resources: {requests: {cpu: "1"}}}]
      containers: [{name: a, image: a, resources: {requests: {cpu: 200m}}}]
      nodeSelector: {disk: ssd}
`, 1, "1", map[string]string{"disk": "ssd"}},
		{"a sidecar (an init container always restarted) adds to the others; pod overhead too", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: meshed}
spec:
  replicas: 2
  template:
    spec:
      initContainers: [{name: proxy, image: p, restartPolicy: Always, resources: {requests: {cpu: 50m}}}]
      containers: [{name: a, image: a, resources: {requests: {cpu: 200m}}}]
      overhead: {cpu: 10m}
`, 2, "260m", nil},
		{"a Job's parallelism", `
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 4
  template: {spec: {containers: [{name: a, image: a}]}}
`, 4, "", nil},
		{"a ConfigMap has none", `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: b}
`, 0, "", nil},
		{"a DaemonSet has none to divide", `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d}
spec: {template: {spec: {containers: [{name: a, image: a, resources: {requests: {cpu: 1}}}]}}}
`, 0, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			replicas, req := Replicas(fromYAML(t, c.yaml))
			if replicas != c.replicas {
				t.Errorf("replicas %d, want %d", replicas, c.replicas)
			}
			switch {
			case c.cpu == "" && c.selector == nil:
				if req != nil {
					t.Errorf("requirements %+v, want none", req)
				}
			case req == nil:
				t.Fatalf("no requirements, want cpu %s", c.cpu)
			default:
				if got := req.ResourceRequest[corev1.ResourceCPU]; got.Cmp(resource.MustParse(c.cpu)) != 0 {
					t.Errorf("cpu %s, want %s", got.String(), c.cpu)
				}
				if c.selector != nil && (req.NodeClaim == nil || req.NodeClaim.NodeSelector["disk"] != c.selector["disk"]) {
					t.Errorf("node claim %+v, want selector %v", req.NodeClaim, c.selector)
				}
			}
		})
	}
}
