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
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/cluster"
)

func validCluster() *cluster.Cluster {
	return &cluster.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "member-1", ResourceVersion: "1"},
		Spec: cluster.ClusterSpec{
			SyncMode:    cluster.Push,
			APIEndpoint: "https://127.0.0.1:6443",
			SecretRef:   &cluster.LocalSecretReference{Namespace: "fed-system", Name: "member-1"},
			Taints:      []corev1.Taint{{Key: "cluster.fedhq.io/not-ready", Effect: corev1.TaintEffectNoSchedule}},
			Provider:    "AWS",
			Region:      "us-west-2",
		},
	}
}

// errorsAt returns "type field" of every error, to compare with a table.
func errorsAt(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func expectErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := errorsAt(errs)
	if len(got) != len(want) {
		t.Fatalf("got errors %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got errors %q, want %q", got, want)
		}
	}
}

func TestValidateCluster(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*cluster.Cluster)
		want   []string
	}{
		{name: "valid push cluster", mutate: func(*cluster.Cluster) {}},
		{name: "valid pull cluster without endpoint or secret", mutate: func(c *cluster.Cluster) {
			c.Spec.SyncMode, c.Spec.APIEndpoint, c.Spec.SecretRef = cluster.Pull, "", nil
		}},
		{name: "name not a DNS subdomain", mutate: func(c *cluster.Cluster) { c.Name = "Member_1" },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "missing sync mode", mutate: func(c *cluster.Cluster) { c.Spec.SyncMode = "" },
			want: []string{"FieldValueRequired spec.syncMode"}},
		{name: "unknown sync mode", mutate: func(c *cluster.Cluster) { c.Spec.SyncMode = "Both" },
			want: []string{"FieldValueNotSupported spec.syncMode"}},
		{name: "push without endpoint and secret", mutate: func(c *cluster.Cluster) { c.Spec.APIEndpoint, c.Spec.SecretRef = "", nil },
			want: []string{"FieldValueRequired spec.apiEndpoint", "FieldValueRequired spec.secretRef"}},
		{name: "http endpoint", mutate: func(c *cluster.Cluster) { c.Spec.APIEndpoint = "http://127.0.0.1:6443" },
			want: []string{"FieldValueInvalid spec.apiEndpoint"}},
		{name: "endpoint without host", mutate: func(c *cluster.Cluster) { c.Spec.APIEndpoint = "https:///api" },
			want: []string{"FieldValueInvalid spec.apiEndpoint"}},
		{name: "unparsable endpoint", mutate: func(c *cluster.Cluster) { c.Spec.APIEndpoint = "https://[::1" },
			want: []string{"FieldValueInvalid spec.apiEndpoint"}},
		{name: "secret ref without name, bad namespace", mutate: func(c *cluster.Cluster) {
			c.Spec.SecretRef = &cluster.LocalSecretReference{Namespace: "Fed.System"}
		}, want: []string{"FieldValueInvalid spec.secretRef.namespace", "FieldValueRequired spec.secretRef.name"}},
		{name: "a Secret of another namespace", mutate: func(c *cluster.Cluster) {
			c.Spec.SecretRef = &cluster.LocalSecretReference{Namespace: "tenant-a", Name: "theirs"}
			c.Spec.ImpersonatorSecretRef = &cluster.LocalSecretReference{Namespace: "kube-system", Name: "token"}
		}, want: []string{"FieldValueInvalid spec.secretRef.namespace", "FieldValueInvalid spec.impersonatorSecretRef.namespace"}},
		{name: "impersonator secret without namespace", mutate: func(c *cluster.Cluster) {
			c.Spec.ImpersonatorSecretRef = &cluster.LocalSecretReference{Name: "impersonator"}
		}, want: []string{"FieldValueRequired spec.impersonatorSecretRef.namespace"}},
		{name: "taint problems", mutate: func(c *cluster.Cluster) {
			c.Spec.Taints = []corev1.Taint{
				{Key: "a", Effect: corev1.TaintEffectNoSchedule},
				{Key: "a", Effect: corev1.TaintEffectNoSchedule},
				{Key: "bad key!", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule},
				{Key: "b", Value: "not a label value!"},
			}
		}, want: []string{
			"FieldValueDuplicate spec.taints[1]",
			"FieldValueInvalid spec.taints[2].key",
			"FieldValueNotSupported spec.taints[2].effect",
			"FieldValueInvalid spec.taints[3].value",
			"FieldValueRequired spec.taints[3].effect",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster()
			tc.mutate(c)
			expectErrors(t, ValidateCluster(c), tc.want)
		})
	}
}

func TestValidateClusterUpdate(t *testing.T) {
	tests := []struct {
		name         string
		oldID, newID string
		want         []string
	}{
		{name: "set id", oldID: "", newID: "4f0c"},
		{name: "keep id", oldID: "4f0c", newID: "4f0c"},
		{name: "change id", oldID: "4f0c", newID: "9a1b", want: []string{"FieldValueInvalid spec.id"}},
		{name: "clear id", oldID: "4f0c", newID: "", want: []string{"FieldValueInvalid spec.id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldC, newC := validCluster(), validCluster()
			oldC.Spec.ID, newC.Spec.ID = tc.oldID, tc.newID
			expectErrors(t, ValidateClusterUpdate(newC, oldC), tc.want)
		})
	}
}

func TestValidateClusterStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		status cluster.ClusterStatus
		want   []string
	}{
		{name: "valid", status: cluster.ClusterStatus{
			KubernetesVersion: "v1.32.4",
			APIEnablements: []cluster.APIEnablement{{GroupVersion: "apps/v1",
				Resources: []cluster.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
			Conditions: []metav1.Condition{{Type: cluster.ClusterConditionReady, Status: metav1.ConditionTrue,
				Reason: "ClusterReady", LastTransitionTime: metav1.Now()}},
			NodeSummary:     &cluster.NodeSummary{TotalNum: 3, ReadyNum: 2},
			ResourceSummary: &cluster.ResourceSummary{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}},
		}},
		{name: "bad entries", status: cluster.ClusterStatus{
			APIEnablements:  []cluster.APIEnablement{{GroupVersion: "a/b/c", Resources: []cluster.APIResource{{}}}},
			Conditions:      []metav1.Condition{{Type: cluster.ClusterConditionReady, Status: "Maybe", Reason: "R", LastTransitionTime: metav1.Now()}},
			NodeSummary:     &cluster.NodeSummary{TotalNum: 1, ReadyNum: 2},
			ResourceSummary: &cluster.ResourceSummary{Allocated: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1Gi")}},
		}, want: []string{
			"FieldValueNotSupported status.conditions[0].status",
			"FieldValueInvalid status.apiEnablements[0].groupVersion",
			"FieldValueRequired status.apiEnablements[0].resources[0].name",
			"FieldValueRequired status.apiEnablements[0].resources[0].kind",
			"FieldValueInvalid status.nodeSummary.readyNum",
			"FieldValueInvalid status.resourceSummary.allocated[memory]",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldC, newC := validCluster(), validCluster()
			newC.Status = tc.status
			expectErrors(t, ValidateClusterStatusUpdate(newC, oldC), tc.want)
		})
	}
}

func TestValidateClusterUpdateRegistration(t *testing.T) {
	with := func(id string) *cluster.Cluster {
		c := validCluster()
		if id != "" {
			c.Annotations = map[string]string{"cluster.fedhq.io/registration": id}
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "set at creation", old: "", new: "r1"},
		{name: "kept", old: "r1", new: "r1"},
		{name: "changed", old: "r1", new: "r2", want: []string{"FieldValueInvalid metadata.annotations[cluster.fedhq.io/registration]"}},
		{name: "removed", old: "r1", new: "", want: []string{"FieldValueInvalid metadata.annotations[cluster.fedhq.io/registration]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldC, newC := with(tc.old), with(tc.new)
			newC.ResourceVersion = "2"
			oldC.ResourceVersion = "1"
			expectErrors(t, ValidateClusterUpdate(newC, oldC), tc.want)
		})
	}
}
