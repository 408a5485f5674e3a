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

package quota

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestOfBinding(t *testing.T) {
	spec := &federationv1alpha1.ResourceBindingSpec{ReplicaRequirements: &federationv1alpha1.ReplicaRequirements{
		ResourceRequest: list("cpu", "250m", "memory", "64Mi")}}
	clusters := []federationv1alpha1.TargetCluster{{Name: "member1", Replicas: 3}, {Name: "member2", Replicas: 1}}
	got := OfBinding(spec, clusters, []corev1.ResourceName{"cpu", "requests.memory", "pods", "ephemeral-storage", "example.com/gpu"})
	want := list("cpu", "1", "requests.memory", "256Mi", "pods", "4", "ephemeral-storage", "0", "example.com/gpu", "0")
	for name, q := range want {
		if g := got[name]; g.Cmp(q) != 0 {
			t.Errorf("%s: %s, want %s", name, g.String(), q.String())
		}
	}
	// A kind without replicas (a ConfigMap) uses nothing.
	if got := OfBinding(&federationv1alpha1.ResourceBindingSpec{}, []federationv1alpha1.TargetCluster{{Name: "member1"}}, []corev1.ResourceName{"pods", "cpu"}); !got.Pods().IsZero() || !got.Cpu().IsZero() {
		t.Errorf("a ConfigMap uses %v, want nothing", got)
	}
	// A multi-component workload uses each of its components in each cluster it goes to.
	components := &federationv1alpha1.ResourceBindingSpec{Components: []federationv1alpha1.Component{
		{Name: "frontend", Replicas: 2, ReplicaRequirements: &federationv1alpha1.ReplicaRequirements{ResourceRequest: list("cpu", "1")}},
		{Name: "store", Replicas: 1, ReplicaRequirements: &federationv1alpha1.ReplicaRequirements{ResourceRequest: list("cpu", "10", "memory", "4Gi")}},
		{Name: "sidecar", Replicas: 1},
	}}
	got = OfBinding(components, []federationv1alpha1.TargetCluster{{Name: "member1"}, {Name: "member3"}}, []corev1.ResourceName{"cpu", "memory", "pods"})
	for name, q := range list("cpu", "24", "memory", "8Gi", "pods", "8") {
		if g := got[name]; g.Cmp(q) != 0 {
			t.Errorf("components, %s: %s, want %s", name, g.String(), q.String())
		}
	}
}

func TestAdmit(t *testing.T) {
	quotas := []Quota{{Name: "ns/b", Overall: list("cpu", "4", "pods", "10")}, {Name: "ns/a", Overall: list("memory", "1Gi")}}
	for _, tc := range []struct {
		name                  string
		others, had, want     corev1.ResourceList
		quota, resource, left string
	}{
		{name: "fits", others: list("cpu", "1"), want: list("cpu", "3", "pods", "3")},
		{name: "exactly", others: list("cpu", "2"), want: list("cpu", "2")},
		{name: "over", others: list("cpu", "3"), want: list("cpu", "2"), quota: "ns/b", resource: "cpu", left: "1"},
		{name: "scale-up over", others: list("cpu", "1"), had: list("cpu", "3"), want: list("cpu", "5"), quota: "ns/b", resource: "cpu", left: "3"},
		{name: "first quota by name", others: list("cpu", "4", "memory", "1Gi"), want: list("cpu", "1", "memory", "1Mi"), quota: "ns/a", resource: "memory", left: "0"},
		// A namespace already over a lowered quota: a workload may stay or shrink.
		{name: "shrinks while over", others: list("cpu", "6"), had: list("cpu", "3"), want: list("cpu", "2")},
		{name: "stays while over", others: list("cpu", "6"), had: list("cpu", "3"), want: list("cpu", "3")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Admit(quotas, tc.others, tc.had, tc.want)
			if tc.quota == "" {
				if e != nil {
					t.Fatalf("refused: %v", e)
				}
				return
			}
			if e == nil {
				t.Fatalf("admitted, want %s refused by %s", tc.resource, tc.quota)
			}
			if left := e.Left(); e.Quota != tc.quota || string(e.Resource) != tc.resource || left.Cmp(resource.MustParse(tc.left)) != 0 {
				t.Errorf("refused by %s for %s with %s left (%v), want %s for %s with %s left", e.Quota, e.Resource, left.String(), e, tc.quota, tc.resource, tc.left)
			}
		})
	}
}

func TestExceededMessage(t *testing.T) {
	e := Admit([]Quota{{Name: "team-a/compute", Overall: list("cpu", "4")}}, list("cpu", "3"), nil, list("cpu", "2"))
	want := "FederatedResourceQuota team-a/compute exceeded for cpu: the workload needs 2, 1 of 4 is left (3 used by the namespace's other workloads)"
	if e == nil || e.Error() != want {
		t.Errorf("%v, want %q", e, want)
	}
}
