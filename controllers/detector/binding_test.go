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
	spec := BindingSpec(tmpl, p, 2, nil)
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

// A template's workload affinity groups are the values of its labels the placement groups by.
func TestWorkloadAffinityGroups(t *testing.T) {
	tmpl := fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app.group: shop, ha: ""}}
`)
	term := func(key string) *federationv1alpha1.WorkloadAffinityTerm {
		return &federationv1alpha1.WorkloadAffinityTerm{GroupByLabelKey: key}
	}
	for _, c := range []struct {
		name string
		wa   *federationv1alpha1.WorkloadAffinity
		want *federationv1alpha1.WorkloadAffinityGroups
	}{
		{name: "no workload affinity"},
		{name: "affinity", wa: &federationv1alpha1.WorkloadAffinity{Affinity: term("app.group")},
			want: &federationv1alpha1.WorkloadAffinityGroups{AffinityGroup: "app.group=shop"}},
		{name: "both, one by a label of empty value", wa: &federationv1alpha1.WorkloadAffinity{Affinity: term("app.group"), AntiAffinity: term("ha")},
			want: &federationv1alpha1.WorkloadAffinityGroups{AffinityGroup: "app.group=shop", AntiAffinityGroup: "ha="}},
		{name: "the template lacks the label: in no group", wa: &federationv1alpha1.WorkloadAffinity{AntiAffinity: term("tier")}},
	} {
		got := WorkloadAffinityGroups(tmpl, c.wa)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// A binding's own labels stay when its policy changes; only the policy's labels say which.
func TestPolicyLabels(t *testing.T) {
	current := map[string]string{"team": "a", federationv1alpha1.LabelClusterPolicy: "everywhere"}
	want := BindingLabels(&policy.Policy{Namespace: "default", Name: "nginx"})
	got := withPolicy(current, want)
	if len(got) != 3 || got["team"] != "a" || got[federationv1alpha1.LabelPolicyName] != "nginx" || got[federationv1alpha1.LabelClusterPolicy] != "" {
		t.Errorf("withPolicy: %v", got)
	}
	if !samePolicy(got, want) || samePolicy(current, want) {
		t.Errorf("samePolicy compares the policy labels only")
	}
	if got := withPolicy(map[string]string{federationv1alpha1.LabelClusterPolicy: "x"}, nil); got != nil {
		t.Errorf("no policy, no other label: %v", got)
	}
	p := policy.Policy{Namespace: "default", Name: "nginx", Spec: &federationv1alpha1.PropagationSpec{}}
	if c := claimerOf(got, []policy.Policy{p}); c == nil || c.Name != "nginx" {
		t.Errorf("claimerOf a binding with a label of its own: %v", c)
	}
}
