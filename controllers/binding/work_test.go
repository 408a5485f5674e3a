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
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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
			m := Manifest(tmpl, &tc.spec, federationv1alpha1.TargetCluster{Name: "member1", Replicas: 1})
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
				t.Error("Manifest changed the template")
			}
		})
	}
}

func TestWorkName(t *testing.T) {
	if got := federationv1alpha1.WorkName("default", "nginx-deployment"); got != "default.nginx-deployment" {
		t.Errorf("WorkName = %s", got)
	}
	if got := federationv1alpha1.WorkName("", "guestbooks.webapp.my.domain-customresourcedefinition"); got != "guestbooks.webapp.my.domain-customresourcedefinition" {
		t.Errorf("WorkName = %s", got)
	}
	if got := federationv1alpha1.BindingKey("default", "nginx-deployment"); got != "default/nginx-deployment" {
		t.Errorf("BindingKey = %s", got)
	}
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

func TestAggregateAndFullyApplied(t *testing.T) {
	status := func(ready int) *runtime.RawExtension {
		raw, _ := json.Marshal(map[string]any{"readyReplicas": ready})
		return &runtime.RawExtension{Raw: raw}
	}
	work := func(applied metav1.ConditionStatus, msg string, ready int) *federationv1alpha1.Work {
		return &federationv1alpha1.Work{Status: federationv1alpha1.WorkStatus{
			Conditions:       []metav1.Condition{{Type: federationv1alpha1.WorkConditionApplied, Status: applied, Message: msg}},
			ManifestStatuses: []federationv1alpha1.ManifestStatus{{Status: status(ready), Health: federationv1alpha1.ResourceHealthy}},
		}}
	}
	targets := []federationv1alpha1.TargetCluster{{Name: "member2"}, {Name: "member1"}, {Name: "member3"}}
	items := Aggregate(targets, map[string]*federationv1alpha1.Work{
		"member1": work(metav1.ConditionTrue, "", 1),
		"member2": work(metav1.ConditionFalse, "conflict", 0),
	})
	if len(items) != 3 || items[0].ClusterName != "member1" || items[1].ClusterName != "member2" || items[2].ClusterName != "member3" {
		t.Fatalf("items %+v, want one per cluster in name order", items)
	}
	if !items[0].Applied || items[0].Health != federationv1alpha1.ResourceHealthy || string(items[0].Status.Raw) != `{"readyReplicas":1}` {
		t.Errorf("member1: %+v", items[0])
	}
	if items[1].Applied || items[1].AppliedMessage != "conflict" {
		t.Errorf("member2: %+v", items[1])
	}
	if items[2].Applied || items[2].Health != federationv1alpha1.ResourceUnknown {
		t.Errorf("member3 (no Work yet): %+v", items[2])
	}
	if c := FullyApplied(items, 2); c.Status != metav1.ConditionFalse || c.Reason != "ApplyFailed" || c.Message != "member2: conflict" {
		t.Errorf("FullyApplied = %+v", c)
	}
	if c := FullyApplied(items[:1], 2); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 {
		t.Errorf("FullyApplied of member1 alone = %+v", c)
	}
	if c := FullyApplied(items[2:], 2); c.Reason != "Applying" {
		t.Errorf("FullyApplied of member3 alone = %+v", c)
	}
	if c := FullyApplied(nil, 2); c.Reason != "NotScheduled" {
		t.Errorf("FullyApplied of nothing = %+v", c)
	}
}
