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

package policy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func nginx() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace("default")
	u.SetName("nginx")
	u.SetLabels(map[string]string{"app": "nginx"})
	return u
}

// selector builds a Deployment selector: by name, by labels (app=nginx), or the kind alone.
func selector(by string) federationv1alpha1.ResourceSelector {
	s := federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment"}
	switch by {
	case "name":
		s.Name = "nginx"
	case "labels":
		s.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	}
	return s
}

func pp(name string, priority *int32, selectors ...federationv1alpha1.ResourceSelector) Policy {
	return Policy{Namespace: "default", Name: name, Spec: &federationv1alpha1.PropagationSpec{ResourceSelectors: selectors, Priority: priority}}
}

func cpp(name string, priority *int32, selectors ...federationv1alpha1.ResourceSelector) Policy {
	p := pp(name, priority, selectors...)
	p.Namespace = ""
	return p
}

func prio(n int32) *int32 { return &n }

// The cases are the examples of the seeds' walkthrough of policy priority (004).
func TestBest(t *testing.T) {
	for _, c := range []struct {
		name     string
		policies []Policy
		want     string
	}{
		{"a PropagationPolicy wins over a ClusterPropagationPolicy", []Policy{
			cpp("cluster-namematch", prio(10), selector("name")),
			pp("namespaced-kind", nil, selector("kind")),
		}, "namespaced-kind"},
		{"a ClusterPropagationPolicy applies when no PropagationPolicy matches", []Policy{
			cpp("cluster-kind", nil, selector("kind")),
			pp("other-name", nil, federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Name: "other"}),
		}, "cluster-kind"},
		{"explicit priority: highexplicitpriority (2) over lowexplicitpriority (1) and the default (0)", []Policy{
			pp("propagation-high-explicit-priority", prio(2), selector("labels")),
			pp("propagation-low-explicit-priority", prio(1), selector("labels")),
			pp("propagation-default-explicit-priority", nil, selector("labels")),
		}, "propagation-high-explicit-priority"},
		{"implicit priority: namematch over labelselectormatch over emptymatch", []Policy{
			pp("propagation-emptymatch", nil, selector("kind")),
			pp("propagation-labelselectormatch", nil, selector("labels")),
			pp("propagation-namematch", nil, selector("name")),
		}, "propagation-namematch"},
		{"same explicit priority: explicit-namematch over explicit-labelselectormatch", []Policy{
			pp("propagation-explicit-labelselectormatch", prio(3), selector("labels")),
			pp("propagation-explicit-namematch", prio(3), selector("name")),
		}, "propagation-explicit-namematch"},
		{"explicit before implicit: a kind-only policy of priority 1 over a name match of 0", []Policy{
			pp("kind-priority-1", prio(1), selector("kind")),
			pp("name-priority-0", nil, selector("name")),
		}, "kind-priority-1"},
		{"all equal: a-lower-alphabetical over b-higher-alphabetical", []Policy{
			pp("propagation-b-higher-alphabetical", prio(3), selector("name")),
			pp("propagation-a-lower-alphabetical", prio(3), selector("name")),
		}, "propagation-a-lower-alphabetical"},
		{"a policy's best selector counts", []Policy{
			pp("labels-only", nil, selector("labels")),
			pp("kind-and-name", nil, selector("kind"), selector("name")),
		}, "kind-and-name"},
		{"no policy matches", []Policy{
			pp("statefulsets", nil, federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "StatefulSet"}),
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Best(nginx(), c.policies)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != c.want {
				t.Errorf("Best = %q, want %q", name, c.want)
			}
		})
	}
}

func TestSelectorPriority(t *testing.T) {
	other := federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	for _, c := range []struct {
		name      string
		sel       federationv1alpha1.ResourceSelector
		namespace string
		want      ImplicitPriority
	}{
		{"kind only", selector("kind"), "default", MatchAll},
		{"by labels", selector("labels"), "default", MatchLabelSelector},
		{"by name", selector("name"), "default", MatchName},
		{"other labels", other, "default", NoMatch},
		{"other apiVersion", federationv1alpha1.ResourceSelector{APIVersion: "apps/v1beta1", Kind: "Deployment"}, "default", NoMatch},
		{"a PropagationPolicy of another namespace", selector("name"), "team-a", NoMatch},
		{"a PropagationPolicy's selector naming another namespace",
			federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team-a"}, "default", NoMatch},
		{"a ClusterPropagationPolicy without namespace", selector("name"), "", MatchName},
		{"a ClusterPropagationPolicy naming the namespace",
			federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default"}, "", MatchAll},
		{"a ClusterPropagationPolicy naming another namespace",
			federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team-a"}, "", NoMatch},
		{"name and labels must both match", federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx",
			LabelSelector: other.LabelSelector}, "default", NoMatch},
	} {
		if got := SelectorPriority(nginx(), c.sel, c.namespace); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func always(p Policy) Policy {
	p.Spec.Preemption = federationv1alpha1.PreemptAlways
	return p
}

// Karmada's preemption rules: a claimed template stays with its policy unless a policy
// with preemption Always and more right to it selects it too.
func TestClaimed(t *testing.T) {
	kind := pp("by-kind", nil, selector("kind"))
	clusterKind := cpp("cluster-kind", prio(5), selector("kind"))
	for _, c := range []struct {
		name     string
		policies []Policy
		claimer  *Policy
		want     string
	}{
		{"nothing claimed it: the best", []Policy{kind, pp("by-name", nil, selector("name"))}, nil, "by-name"},
		{"a closer selector does not preempt", []Policy{kind, pp("by-name", nil, selector("name"))}, &kind, "by-kind"},
		{"a higher priority without Always does not preempt", []Policy{kind, pp("high", prio(3), selector("labels"))}, &kind, "by-kind"},
		{"a higher priority with Always preempts", []Policy{kind, always(pp("high", prio(3), selector("labels")))}, &kind, "high"},
		{"an equal priority with Always does not", []Policy{kind, always(pp("equal", nil, selector("name")))}, &kind, "by-kind"},
		{"a PropagationPolicy with Always preempts a ClusterPropagationPolicy of any priority",
			[]Policy{clusterKind, always(pp("low", prio(-1), selector("kind")))}, &clusterKind, "low"},
		{"a ClusterPropagationPolicy never preempts a PropagationPolicy",
			[]Policy{kind, always(cpp("cluster-high", prio(100), selector("name")))}, &kind, "by-kind"},
		{"the best of those that may preempt", []Policy{kind,
			always(pp("high-kind", prio(3), selector("kind"))), always(pp("high-name", prio(3), selector("name"))),
			pp("higher-never", prio(9), selector("name"))}, &kind, "high-name"},
		{"a claimer that no longer selects the template lets the best take it",
			[]Policy{pp("by-kind", nil, federationv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "StatefulSet"}), pp("by-name", nil, selector("name"))},
			&Policy{Namespace: "default", Name: "by-kind", Spec: &federationv1alpha1.PropagationSpec{ResourceSelectors: []federationv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "StatefulSet"}}}}, "by-name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Claimed(nginx(), c.policies, c.claimer)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != c.want {
				t.Errorf("Claimed = %q, want %q", name, c.want)
			}
		})
	}
}
