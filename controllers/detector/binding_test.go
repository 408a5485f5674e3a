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

package detector

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func fromYAML(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

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

func TestBindingSpec(t *testing.T) {
	tmpl := fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: default, uid: u-1, resourceVersion: "42"}
spec: {replicas: 2, template: {spec: {containers: [{name: nginx, image: nginx}]}}}
`)
	p := &policy.Policy{Namespace: "default", Name: "nginx-propagation", Spec: &federationv1alpha1.PropagationSpec{
		Placement:          federationv1alpha1.Placement{ClusterAffinity: &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}}},
		ConflictResolution: federationv1alpha1.ConflictOverwrite,
		PropagateDeps:      true,
	}}
	spec := BindingSpec(tmpl, p)
	want := federationv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", UID: "u-1"}
	if spec.Resource != want {
		t.Errorf("resource %+v, want %+v", spec.Resource, want)
	}
	if spec.Replicas != 2 || !spec.PropagateDeps || spec.ConflictResolution != federationv1alpha1.ConflictOverwrite ||
		spec.Placement == nil || len(spec.Placement.ClusterAffinity.ClusterNames) != 2 {
		t.Errorf("spec %+v", spec)
	}
	// The binding owns a copy: changing it leaves the policy alone.
	spec.Placement.ClusterAffinity.ClusterNames[0] = "changed"
	if p.Spec.Placement.ClusterAffinity.ClusterNames[0] != "member1" {
		t.Errorf("the binding's placement aliases the policy's")
	}
	if got := federationv1alpha1.BindingName("Deployment", "nginx"); got != "nginx-deployment" {
		t.Errorf("BindingName %q", got)
	}
	if got := BindingLabels(&policy.Policy{Name: "everywhere"}); got[federationv1alpha1.LabelClusterPolicy] != "everywhere" || len(got) != 1 {
		t.Errorf("labels of a ClusterPropagationPolicy's binding: %v", got)
	}
}
