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

package registrytest

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

func propagationSpec() federation.PropagationSpec {
	return federation.PropagationSpec{
		ResourceSelectors:  []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}},
		Placement:          federation.Placement{ClusterAffinity: &federation.ClusterAffinity{ClusterNames: []string{"member1"}}},
		Priority:           ptr.To[int32](0),
		Preemption:         federation.PreemptNever,
		ConflictResolution: federation.ConflictAbort,
		SchedulerName:      "default-scheduler",
	}
}

// propagationCase is the test case of a propagation policy, namespaced or
// not, whose spec spec returns.
func propagationCase[T registrykit.Object](valid func() T, spec func(T) *federation.PropagationSpec) Case[T] {
	return Case[T]{
		Valid: valid,
		ChangeSpec: func(p T) {
			spec(p).Priority = ptr.To[int32](7)
			spec(p).ConflictResolution = federation.ConflictOverwrite
		},
		BreakSpec:       func(p T) { spec(p).Preemption = "Sometimes" },
		BrokenSpecField: "spec.preemption",
		Columns:         []string{"Name", "Conflict-Resolution", "Priority", "Age"},
		Row:             map[string]any{"Name": Name, "Conflict-Resolution": "Overwrite", "Priority": int64(7)},
	}
}

// PropagationPolicy is the test case of propagationpolicies.
func PropagationPolicy() Case[*federation.PropagationPolicy] {
	return propagationCase(func() *federation.PropagationPolicy {
		return &federation.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace}, Spec: propagationSpec()}
	}, func(p *federation.PropagationPolicy) *federation.PropagationSpec { return &p.Spec })
}

// ClusterPropagationPolicy is the test case of clusterpropagationpolicies.
func ClusterPropagationPolicy() Case[*federation.ClusterPropagationPolicy] {
	return propagationCase(func() *federation.ClusterPropagationPolicy {
		return &federation.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: Name}, Spec: propagationSpec()}
	}, func(p *federation.ClusterPropagationPolicy) *federation.PropagationSpec { return &p.Spec })
}

func overrideSpec() federation.OverrideSpec {
	return federation.OverrideSpec{
		ResourceSelectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}},
		OverrideRules: []federation.RuleWithCluster{{
			TargetCluster: &federation.ClusterAffinity{ClusterNames: []string{"member1"}},
			Overriders: federation.Overriders{Plaintext: []federation.PlaintextOverrider{{
				Path: "/spec/replicas", Operator: federation.OverriderOpReplace, Value: &apiextensionsv1.JSON{Raw: []byte("2")},
			}}},
		}},
	}
}

// overrideCase is the test case of an override policy, namespaced or not,
// whose spec spec returns.
func overrideCase[T registrykit.Object](valid func() T, spec func(T) *federation.OverrideSpec) Case[T] {
	return Case[T]{
		Valid: valid,
		ChangeSpec: func(p T) {
			spec(p).OverrideRules = append(spec(p).OverrideRules, federation.RuleWithCluster{Overriders: federation.Overriders{
				LabelsOverrider: []federation.LabelAnnotationOverrider{{Operator: federation.OverriderOpAdd, Value: map[string]string{"tier": "web"}}},
			}})
		},
		BreakSpec:       func(p T) { spec(p).OverrideRules[0].Overriders.Plaintext[0].Path = "spec" },
		BrokenSpecField: "spec.overrideRules[0].overriders.plaintext[0].path",
		Columns:         []string{"Name", "Age", "Rules"},
		Row:             map[string]any{"Name": Name, "Rules": int64(2)},
	}
}

// OverridePolicy is the test case of overridepolicies.
func OverridePolicy() Case[*federation.OverridePolicy] {
	return overrideCase(func() *federation.OverridePolicy {
		return &federation.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace}, Spec: overrideSpec()}
	}, func(p *federation.OverridePolicy) *federation.OverrideSpec { return &p.Spec })
}

// ClusterOverridePolicy is the test case of clusteroverridepolicies.
func ClusterOverridePolicy() Case[*federation.ClusterOverridePolicy] {
	return overrideCase(func() *federation.ClusterOverridePolicy {
		return &federation.ClusterOverridePolicy{ObjectMeta: metav1.ObjectMeta{Name: Name}, Spec: overrideSpec()}
	}, func(p *federation.ClusterOverridePolicy) *federation.OverrideSpec { return &p.Spec })
}
