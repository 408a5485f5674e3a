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

package binding

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func mustObject(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := obj.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestWorkSpecSuspension(t *testing.T) {
	m := mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	yes := true
	for _, tc := range []struct {
		name       string
		suspension *federationv1alpha1.Suspension
		want       bool
	}{
		{"none", nil, false},
		{"all clusters", &federationv1alpha1.Suspension{Dispatching: &yes}, true},
		{"this cluster", &federationv1alpha1.Suspension{DispatchingOnClusters: &federationv1alpha1.SuspendClusters{ClusterNames: []string{"member1"}}}, true},
		{"another cluster", &federationv1alpha1.Suspension{DispatchingOnClusters: &federationv1alpha1.SuspendClusters{ClusterNames: []string{"member2"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := WorkSpec([]*unstructured.Unstructured{m, m}, &federationv1alpha1.ResourceBindingSpec{Suspension: tc.suspension}, "member1")
			if err != nil {
				t.Fatal(err)
			}
			if got := spec.SuspendDispatching != nil && *spec.SuspendDispatching; got != tc.want {
				t.Errorf("suspended %v, want %v", got, tc.want)
			}
			if len(spec.Workload.Manifests) != 2 {
				t.Errorf("%d manifests, want 2", len(spec.Workload.Manifests))
			}
		})
	}
}

// A cluster being left keeps its Work while its task says Gracefully or Never, or
// suppresses deletion; the new copies get the labels application failover preserved.
func TestEvictionTasksKeepAndLabel(t *testing.T) {
	tasks := []federationv1alpha1.GracefulEvictionTask{
		{FromCluster: "member1", PurgeMode: federationv1alpha1.PurgeGracefully},
		{FromCluster: "member2", PurgeMode: federationv1alpha1.PurgeDirectly},
		{FromCluster: "member3", PurgeMode: federationv1alpha1.PurgeDirectly, SuppressDeletion: ptr.To(true),
			PreservedLabelState: map[string]string{"state": "42"}, ClustersBeforeFailover: []string{"member3", "member4"}},
	}
	for cluster, want := range map[string]bool{"member1": true, "member2": false, "member3": true, "member4": false} {
		if got := keepsCopy(tasks, cluster); got != want {
			t.Errorf("keepsCopy(%s) = %v, want %v", cluster, got, want)
		}
	}
	for cluster, want := range map[string]string{"member4": "", "member5": "42"} {
		m := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "a"}}}}
		preserveState(m, tasks, cluster)
		if got := m.GetLabels()["state"]; got != want || m.GetLabels()["app"] != "a" {
			t.Errorf("%s: labels %v, want state=%q", cluster, m.GetLabels(), want)
		}
	}
}
