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

package manifest

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

const nginx = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  uid: u-1
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-01-01T00:00:00Z"
  finalizers: [x]
  labels: {app: nginx}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
    note: kept
  managedFields: [{manager: kubectl}]
spec:
  replicas: 4
  template: {spec: {containers: [{name: nginx, image: nginx}]}}
status:
  readyReplicas: 4
`

func TestManifest(t *testing.T) {
	divided := &federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
		ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided}}
	for _, tc := range []struct {
		name         string
		spec         federationv1alpha1.ResourceBindingSpec
		wantReplicas int64
		wantOverride bool
	}{
		{"duplicated keeps the template's replicas", federationv1alpha1.ResourceBindingSpec{Replicas: 4}, 4, false},
		{"divided takes the cluster's share", federationv1alpha1.ResourceBindingSpec{Replicas: 4, Placement: divided}, 1, false},
		{"overwrite is passed on to execution", federationv1alpha1.ResourceBindingSpec{Replicas: 4, ConflictResolution: federationv1alpha1.ConflictOverwrite}, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := mustObject(t, nginx)
			m, _ := For(nil, tmpl, &tc.spec, federationv1alpha1.TargetCluster{Name: "member1", Replicas: 1})
			// An override that replaces the labels and annotations cannot remove fed's marks.
			m.SetLabels(map[string]string{"app": "nginx"})
			Stamp(m, tmpl, &tc.spec, []string{"ClusterOverridePolicy/a", "OverridePolicy/default/b"})
			if _, found := m.Object["status"]; found {
				t.Error("the manifest has the template's status")
			}
			for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "finalizers", "managedFields"} {
				if _, found := m.Object["metadata"].(map[string]any)[f]; found {
					t.Errorf("the manifest has metadata.%s", f)
				}
			}
			if got := m.GetLabels(); got["app"] != "nginx" || got[federationv1alpha1.LabelManaged] != "true" {
				t.Errorf("labels %v, want the template's and fed's", got)
			}
			a := m.GetAnnotations()
			if _, found := a["kubectl.kubernetes.io/last-applied-configuration"]; found || a["note"] != "kept" || a[federationv1alpha1.AnnotationTemplateUID] != "u-1" {
				t.Errorf("annotations %v", a)
			}
			if got := a[federationv1alpha1.AnnotationAppliedOverrides]; got != "ClusterOverridePolicy/a,OverridePolicy/default/b" {
				t.Errorf("applied overrides %q", got)
			}
			if got := a[federationv1alpha1.AnnotationConflictResolution] == "Overwrite"; got != tc.wantOverride {
				t.Errorf("overwrite annotation %v, want %v", got, tc.wantOverride)
			}
			if r, _, _ := unstructured.NestedInt64(m.Object, "spec", "replicas"); r != tc.wantReplicas {
				t.Errorf("replicas %d, want %d", r, tc.wantReplicas)
			}
			if tmpl.GetResourceVersion() != "42" {
				t.Error("For changed the template")
			}
		})
	}
}

// A template that leaves its replicas to the members' HPAs is applied without them,
// duplicated or divided.
func TestManifestRetainsReplicas(t *testing.T) {
	divided := &federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
		ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided}}
	for _, spec := range []federationv1alpha1.ResourceBindingSpec{{Replicas: 4}, {Replicas: 4, Placement: divided}} {
		tmpl := mustObject(t, nginx)
		tmpl.SetLabels(map[string]string{"app": "nginx", federationv1alpha1.LabelRetainReplicas: "true"})
		m, _ := For(nil, tmpl, &spec, federationv1alpha1.TargetCluster{Name: "member1", Replicas: 1})
		if _, found, _ := unstructured.NestedFieldNoCopy(m.Object, "spec", "replicas"); found {
			t.Errorf("placement %+v: the manifest has spec.replicas", spec.Placement)
		}
		if r, _, _ := unstructured.NestedInt64(tmpl.Object, "spec", "replicas"); r != 4 {
			t.Error("For changed the template")
		}
	}
}
