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

package fleet

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	deploymentutil "k8s.io/kubectl/pkg/util/deployment"
	"sigs.k8s.io/yaml"
)

func TestRolloutReplicaSet(t *testing.T) {
	d := decodeYAML(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: a, uid: u-1, generation: 3, resourceVersion: "9"}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
status: {observedGeneration: 3, replicas: 5, updatedReplicas: 3, readyReplicas: 4, availableReplicas: 4}
`)
	u, ok := rolloutReplicaSet(d, viewRollout)
	if !ok {
		t.Fatal("no rollout ReplicaSet")
	}
	var rs appsv1.ReplicaSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &rs); err != nil {
		t.Fatal(err)
	}
	var dep appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, &dep); err != nil {
		t.Fatal(err)
	}
	// kubectl's (and Helm's) way of finding a Deployment's newest ReplicaSet finds it.
	_, _, newRS, err := deploymentutil.GetAllReplicaSets(&dep, fake.NewClientset(&rs).AppsV1())
	if err != nil {
		t.Fatal(err)
	}
	if newRS == nil || newRS.Name != rs.Name {
		t.Fatalf("the Deployment's new ReplicaSet: %v, want %s", newRS, rs.Name)
	}
	// 5 pods, 3 updated: of the 4 ready, at least 2 are updated ones.
	if s := rs.Status; s.Replicas != 3 || s.ReadyReplicas != 2 || s.AvailableReplicas != 2 || s.ObservedGeneration != rs.Generation {
		t.Errorf("status %+v, want 3 replicas, 2 ready and available, generation observed", s)
	}

	// Before the members observed the generation, nothing of it is ready.
	d.SetGeneration(4)
	u, _ = rolloutReplicaSet(d, viewRollout)
	if ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas"); ready != 0 {
		t.Errorf("ready %d before the generation is observed, want 0", ready)
	}
}

// decodeYAML decodes an object as the fleet's storage does (integers as int64).
func decodeYAML(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return u
}
