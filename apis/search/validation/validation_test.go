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
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/search"
)

func validRegistry() *search.ResourceRegistry {
	return &search.ResourceRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: "apps", ResourceVersion: "1"},
		Spec: search.ResourceRegistrySpec{
			TargetCluster: federation.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
			ResourceSelectors: []search.ResourceSelector{
				{APIVersion: "apps/v1", Kind: "Deployment"},
				{APIVersion: "v1", Kind: "Pod", Namespace: "default"},
			},
		},
	}
}

// expectErrors compares the type and path of every error, in order, with
// want, written as "FieldValueInvalid spec.x".
func expectErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := make([]string, 0, len(errs))
	for _, e := range errs {
		got = append(got, string(e.Type)+" "+e.Field)
	}
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("errors:\n got  %q\n want %q\n%v", got, want, errs.ToAggregate())
	}
}

func TestValidateResourceRegistry(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*search.ResourceRegistry)
		want   []string
	}{
		{name: "valid", mutate: func(*search.ResourceRegistry) {}},
		{name: "empty target cluster selects every cluster", mutate: func(r *search.ResourceRegistry) {
			r.Spec.TargetCluster = federation.ClusterAffinity{}
		}},
		{name: "target cluster by labels, fields and exclusions", mutate: func(r *search.ResourceRegistry) {
			r.Spec.TargetCluster = federation.ClusterAffinity{
				LabelSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				FieldSelector:   &federation.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "region", Operator: corev1.NodeSelectorOpIn, Values: []string{"eu"}}}},
				ExcludeClusters: []string{"member3"},
			}
		}},
		{name: "a kind of a CRD group", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors = append(r.Spec.ResourceSelectors, search.ResourceSelector{APIVersion: "webapp.my.domain/v1", Kind: "Guestbook"})
		}},
		{name: "the same kind in two namespaces and in all", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors = append(r.Spec.ResourceSelectors,
				search.ResourceSelector{APIVersion: "v1", Kind: "Pod", Namespace: "kube-system"},
				search.ResourceSelector{APIVersion: "v1", Kind: "Pod"})
		}},
		{name: "name not a DNS subdomain", mutate: func(r *search.ResourceRegistry) { r.Name = "Apps_1" },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "namespaced", mutate: func(r *search.ResourceRegistry) { r.Namespace = "default" },
			want: []string{"FieldValueForbidden metadata.namespace"}},
		{name: "no resource selector", mutate: func(r *search.ResourceRegistry) { r.Spec.ResourceSelectors = nil },
			want: []string{"FieldValueRequired spec.resourceSelectors"}},
		{name: "missing apiVersion and kind", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[0] = search.ResourceSelector{}
		}, want: []string{"FieldValueRequired spec.resourceSelectors[0].apiVersion", "FieldValueRequired spec.resourceSelectors[0].kind"}},
		{name: "apiVersion not a group version", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[0].APIVersion = "apps/v1/deployments"
		}, want: []string{"FieldValueInvalid spec.resourceSelectors[0].apiVersion"}},
		{name: "apiVersion without a version", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[0].APIVersion = "apps/"
		}, want: []string{"FieldValueInvalid spec.resourceSelectors[0].apiVersion"}},
		{name: "kind not a kind name", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[0].Kind = "deployments.apps"
		}, want: []string{"FieldValueInvalid spec.resourceSelectors[0].kind"}},
		{name: "kind starting with a digit", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[0].Kind = "1Deployment"
		}, want: []string{"FieldValueInvalid spec.resourceSelectors[0].kind"}},
		{name: "namespace not a DNS label", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors[1].Namespace = "kube.system"
		}, want: []string{"FieldValueInvalid spec.resourceSelectors[1].namespace"}},
		{name: "duplicate selector", mutate: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors = append(r.Spec.ResourceSelectors, search.ResourceSelector{APIVersion: "v1", Kind: "Pod", Namespace: "default"})
		}, want: []string{"FieldValueDuplicate spec.resourceSelectors[2]"}},
		{name: "invalid cluster name", mutate: func(r *search.ResourceRegistry) {
			r.Spec.TargetCluster.ClusterNames = []string{"Member_1"}
		}, want: []string{"FieldValueInvalid spec.targetCluster.clusterNames[0]"}},
		{name: "field selector on an unknown field", mutate: func(r *search.ResourceRegistry) {
			r.Spec.TargetCluster.FieldSelector = &federation.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "color", Operator: corev1.NodeSelectorOpExists}}}
		}, want: []string{"FieldValueNotSupported spec.targetCluster.fieldSelector.matchExpressions[0].key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := validRegistry()
			tc.mutate(r)
			expectErrors(t, ValidateResourceRegistry(r), tc.want)
		})
	}
}

func TestValidateResourceRegistryUpdate(t *testing.T) {
	old := validRegistry()
	changed := validRegistry()
	changed.Spec.TargetCluster = federation.ClusterAffinity{}
	changed.Spec.ResourceSelectors = []search.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap"}}
	expectErrors(t, ValidateResourceRegistryUpdate(changed, old), nil)

	broken := validRegistry()
	broken.Spec.ResourceSelectors = nil
	expectErrors(t, ValidateResourceRegistryUpdate(broken, old), []string{"FieldValueRequired spec.resourceSelectors"})
}

func TestValidateResourceRegistryStatusUpdate(t *testing.T) {
	synced := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	validStatus := func() search.ResourceRegistryStatus {
		return search.ResourceRegistryStatus{
			Conditions: []metav1.Condition{{Type: search.ResourceRegistryConditionReady, Status: metav1.ConditionFalse,
				Reason: "MemberUnreachable", Message: "member2 cannot be reached", LastTransitionTime: synced}},
			Caches: []search.CacheStatus{
				{Cluster: "member1", APIVersion: "apps/v1", Kind: "Deployment", Synced: true, Objects: 3, LastSyncTime: &synced},
				{Cluster: "member2", APIVersion: "apps/v1", Kind: "Deployment", Objects: 2, Stale: true,
					Message: "member2 cannot be reached", LastSyncTime: &synced},
				{Cluster: "member1", APIVersion: "v1", Kind: "Pod", Namespace: "default", Synced: true},
			},
		}
	}
	tests := []struct {
		name   string
		mutate func(*search.ResourceRegistryStatus)
		want   []string
	}{
		{name: "valid", mutate: func(*search.ResourceRegistryStatus) {}},
		{name: "empty", mutate: func(s *search.ResourceRegistryStatus) { *s = search.ResourceRegistryStatus{} }},
		{name: "condition without a reason", mutate: func(s *search.ResourceRegistryStatus) { s.Conditions[0].Reason = "" },
			want: []string{"FieldValueRequired status.conditions[0].reason"}},
		{name: "cache without a cluster", mutate: func(s *search.ResourceRegistryStatus) { s.Caches[0].Cluster = "" },
			want: []string{"FieldValueRequired status.caches[0].cluster"}},
		{name: "cache of an invalid cluster name", mutate: func(s *search.ResourceRegistryStatus) { s.Caches[0].Cluster = "Member 1" },
			want: []string{"FieldValueInvalid status.caches[0].cluster"}},
		{name: "cache of no kind", mutate: func(s *search.ResourceRegistryStatus) { s.Caches[1].APIVersion, s.Caches[1].Kind = "", "" },
			want: []string{"FieldValueRequired status.caches[1].apiVersion", "FieldValueRequired status.caches[1].kind"}},
		{name: "cache in an invalid namespace", mutate: func(s *search.ResourceRegistryStatus) { s.Caches[2].Namespace = "Default" },
			want: []string{"FieldValueInvalid status.caches[2].namespace"}},
		{name: "negative object count", mutate: func(s *search.ResourceRegistryStatus) { s.Caches[0].Objects = -1 },
			want: []string{"FieldValueInvalid status.caches[0].objects"}},
		{name: "the same cache twice", mutate: func(s *search.ResourceRegistryStatus) { s.Caches = append(s.Caches, s.Caches[0]) },
			want: []string{"FieldValueDuplicate status.caches[3]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, r := validRegistry(), validRegistry()
			r.Status = validStatus()
			tc.mutate(&r.Status)
			expectErrors(t, ValidateResourceRegistryStatusUpdate(r, old), tc.want)
		})
	}
}
