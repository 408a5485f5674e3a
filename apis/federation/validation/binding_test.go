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

package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

func validResourceBinding() *federation.ResourceBinding {
	return &federation.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-deployment", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.ResourceBindingSpec{
			Resource:           federation.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", ResourceVersion: "12345"},
			Replicas:           3,
			Clusters:           []federation.TargetCluster{{Name: "member-cluster-1", Replicas: 2}, {Name: "member-cluster-2", Replicas: 1}},
			ConflictResolution: federation.ConflictAbort,
			SchedulerName:      "default-scheduler",
		},
		Status: federation.ResourceBindingStatus{
			Conditions: []metav1.Condition{{Type: federation.BindingConditionScheduled, Status: metav1.ConditionTrue, Reason: "Success", LastTransitionTime: metav1.Now()}},
			AggregatedStatus: []federation.AggregatedStatusItem{
				{ClusterName: "member-cluster-1", Applied: true, Health: federation.ResourceHealthy, Status: &runtime.RawExtension{Raw: []byte(`{"replicas":2}`)}},
			},
		},
	}
}

func TestValidateResourceBinding(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.ResourceBinding)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.ResourceBinding) {}},
		{name: "bad resource and clusters", mutate: func(b *federation.ResourceBinding) {
			b.Spec.Resource = federation.ObjectReference{APIVersion: "apps/v1", Namespace: "other"}
			b.Spec.Replicas = -1
			b.Spec.Clusters = []federation.TargetCluster{{Name: "a", Replicas: -2}, {Name: "a"}}
		}, want: []string{
			"FieldValueRequired spec.resource.kind",
			"FieldValueRequired spec.resource.name",
			"FieldValueInvalid spec.resource.namespace",
			"FieldValueInvalid spec.replicas",
			"FieldValueInvalid spec.clusters[0].replicas",
			"FieldValueDuplicate spec.clusters[1].name",
		}},
		{name: "valid moves", mutate: func(b *federation.ResourceBinding) {
			b.Spec.ReplicaMoves = []federation.ReplicaMoveRequest{{FromCluster: "member-cluster-1", Replicas: 1, Producer: "descheduler"},
				{FromCluster: "member-cluster-1", ToCluster: "member-cluster-2", Replicas: 1, Producer: "rebalancer"}}
		}},
		{name: "bad moves", mutate: func(b *federation.ResourceBinding) {
			b.Spec.ReplicaMoves = []federation.ReplicaMoveRequest{{FromCluster: "member-cluster-1", ToCluster: "member-cluster-1"}}
		}, want: []string{
			"FieldValueInvalid spec.replicaMoves[0].toCluster",
			"FieldValueInvalid spec.replicaMoves[0].replicas",
			"FieldValueRequired spec.replicaMoves[0].producer",
		}},
		{name: "bad placement, eviction and dependents", mutate: func(b *federation.ResourceBinding) {
			b.Spec.Placement = &federation.Placement{ReplicaScheduling: &federation.ReplicaSchedulingStrategy{ReplicaSchedulingType: "Copy"}}
			b.Spec.GracefulEvictionTasks = []federation.GracefulEvictionTask{{FromCluster: "member-cluster-1", PurgeMode: "Later", GracePeriodSeconds: ptr.To[int32](0)}}
			b.Spec.RequiredBy = []federation.BindingSnapshot{{Clusters: []federation.TargetCluster{{Name: ""}}}}
			b.Spec.ConflictResolution = "Merge"
		}, want: []string{
			"FieldValueNotSupported spec.placement.replicaScheduling.replicaSchedulingType",
			"FieldValueNotSupported spec.gracefulEvictionTasks[0].purgeMode",
			"FieldValueRequired spec.gracefulEvictionTasks[0].reason",
			"FieldValueRequired spec.gracefulEvictionTasks[0].producer",
			"FieldValueInvalid spec.gracefulEvictionTasks[0].gracePeriodSeconds",
			"FieldValueRequired spec.requiredBy[0].name",
			"FieldValueRequired spec.requiredBy[0].clusters[0].name",
			"FieldValueNotSupported spec.conflictResolution",
		}},
		{name: "valid components", mutate: func(b *federation.ResourceBinding) {
			b.Spec.Replicas = 0
			b.Spec.Components = []federation.Component{{Name: "jobmanager", Replicas: 1},
				{Name: "taskmanager", Replicas: 3, ReplicaRequirements: &federation.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}
		}},
		{name: "bad components", mutate: func(b *federation.ResourceBinding) {
			b.Spec.ReplicaRequirements = &federation.ReplicaRequirements{}
			b.Spec.Components = []federation.Component{{Name: "", Replicas: -1}, {Name: "a-very-long-component-name-of-40-chars"}, {Name: "Launcher"}, // as Karmada's scripts name them
				{Name: "w", ReplicaRequirements: &federation.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1")}}},
				{Name: "w"}}
		}, want: []string{
			"FieldValueRequired spec.components[0].name",
			"FieldValueInvalid spec.components[0].replicas",
			"FieldValueTooLong spec.components[1].name",
			"FieldValueInvalid spec.components[3].replicaRequirements.resourceRequest[cpu]",
			"FieldValueDuplicate spec.components[4].name",
			"FieldValueForbidden spec.replicas",
			"FieldValueForbidden spec.replicaRequirements",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := validResourceBinding()
			tc.mutate(b)
			expectErrors(t, ValidateResourceBinding(b), tc.want)
		})
	}
}

func TestValidateResourceBindingUpdate(t *testing.T) {
	oldB := validResourceBinding()
	newB := validResourceBinding()
	newB.Spec.Resource.Name = "other"
	newB.Spec.Resource.APIVersion = "apps/v1beta2"
	expectErrors(t, ValidateResourceBindingUpdate(newB, oldB), []string{"FieldValueInvalid spec.resource.name"})

	crb := &federation.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "ns", ResourceVersion: "1"}, Spec: validResourceBinding().Spec}
	crb.Spec.Resource = federation.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: "nginx-system"}
	moved := crb.DeepCopy()
	moved.Spec.Resource.Namespace = "default"
	expectErrors(t, ValidateClusterResourceBinding(crb), nil)
	expectErrors(t, ValidateClusterResourceBindingUpdate(moved, crb), []string{
		"FieldValueForbidden spec.resource.namespace",
		"FieldValueInvalid spec.resource.namespace",
	})
}

func TestValidateResourceBindingStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		status federation.ResourceBindingStatus
		want   []string
	}{
		{name: "valid", status: validResourceBinding().Status},
		{name: "bad", status: federation.ResourceBindingStatus{
			SchedulerObservedGeneration: -1,
			Conditions:                  []metav1.Condition{{Type: federation.BindingConditionFullyApplied, Status: metav1.ConditionTrue, Reason: "bad reason"}},
			AggregatedStatus: []federation.AggregatedStatusItem{
				{ClusterName: "a", Health: "Sick"},
				{ClusterName: "a"},
			},
		}, want: []string{
			"FieldValueInvalid status.schedulerObservedGeneration",
			"FieldValueRequired status.conditions[0].lastTransitionTime",
			"FieldValueInvalid status.conditions[0].reason",
			"FieldValueNotSupported status.aggregatedStatus[0].health",
			"FieldValueDuplicate status.aggregatedStatus[1].clusterName",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldB, newB := validResourceBinding(), validResourceBinding()
			newB.Status = tc.status
			expectErrors(t, ValidateResourceBindingStatusUpdate(newB, oldB), tc.want)
			crb := &federation.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "x", ResourceVersion: "1"}, Status: tc.status}
			expectErrors(t, ValidateClusterResourceBindingStatusUpdate(crb, crb.DeepCopy()), tc.want)
		})
	}
}

func validWork() *federation.Work {
	return &federation.Work{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-deployment-member-cluster-1", Namespace: "fed-es-member-cluster-1", ResourceVersion: "1"},
		Spec: federation.WorkSpec{Workload: federation.WorkloadTemplate{Manifests: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","namespace":"default"},"spec":{"replicas":2}}`)},
		}}},
	}
}

func TestValidateWork(t *testing.T) {
	tests := []struct {
		name      string
		manifests []string
		want      []string
	}{
		{name: "valid", manifests: []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`}},
		{name: "bad manifests", manifests: []string{
			"",
			`[1,2]`,
			`{"kind":"ConfigMap","metadata":{}}`,
		}, want: []string{
			"FieldValueRequired spec.workload.manifests[0]",
			"FieldValueInvalid spec.workload.manifests[1]",
			"FieldValueRequired spec.workload.manifests[2].apiVersion",
			"FieldValueRequired spec.workload.manifests[2].metadata.name",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := validWork()
			w.Spec.Workload.Manifests = nil
			for _, m := range tc.manifests {
				w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, runtime.RawExtension{Raw: []byte(m)})
			}
			expectErrors(t, ValidateWork(w), tc.want)
			expectErrors(t, ValidateWorkUpdate(w, validWork()), tc.want)
		})
	}
}

func TestValidateWorkStatusUpdate(t *testing.T) {
	w := validWork()
	w.Status.ManifestStatuses = []federation.ManifestStatus{
		{Identifier: federation.ResourceIdentifier{Ordinal: 0, Group: "apps", Version: "v1", Kind: "Deployment", Name: "nginx"}, Health: federation.ResourceHealthy},
		{Identifier: federation.ResourceIdentifier{Ordinal: 1}, Health: "Fine"},
	}
	expectErrors(t, ValidateWorkStatusUpdate(w, validWork()), []string{
		"FieldValueInvalid status.manifestStatuses[1].identifier.ordinal",
		"FieldValueRequired status.manifestStatuses[1].identifier.version",
		"FieldValueRequired status.manifestStatuses[1].identifier.kind",
		"FieldValueRequired status.manifestStatuses[1].identifier.name",
		"FieldValueNotSupported status.manifestStatuses[1].health",
	})
}
