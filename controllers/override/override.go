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

// Package override applies OverridePolicies and ClusterOverridePolicies to a resource
// template for one member cluster. It is a pure function of its inputs: no client, no
// cache.
package override

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Policy is an OverridePolicy (Namespace set) or a ClusterOverridePolicy (Namespace "").
type Policy struct {
	Namespace string
	Name      string
	Spec      *federationv1alpha1.OverrideSpec
}

// String names the policy as "ClusterOverridePolicy/<name>" or
// "OverridePolicy/<namespace>/<name>"; Apply reports applied policies and errors in this
// form.
func (p Policy) String() string {
	if p.Namespace == "" {
		return "ClusterOverridePolicy/" + p.Name
	}
	return "OverridePolicy/" + p.Namespace + "/" + p.Name
}

// Selects tells whether the policy applies to template: an OverridePolicy only to
// templates of its namespace, and then when one of its resource selectors selects the
// template, or always when it has none.
func (p Policy) Selects(template *unstructured.Unstructured) bool {
	if p.Spec == nil || p.Namespace != "" && p.Namespace != template.GetNamespace() {
		return false
	}
	if len(p.Spec.ResourceSelectors) == 0 {
		return true
	}
	for _, sel := range p.Spec.ResourceSelectors {
		if policy.SelectorPriority(template, sel, p.Namespace) != policy.NoMatch {
			return true
		}
	}
	return false
}

// Apply returns a copy of template with the rules of the policies that select it and
// target cluster applied; template itself is not changed. ClusterOverridePolicies apply
// first, then OverridePolicies, each group in name order, so a later, more local policy
// wins over an earlier one. A policy's rules apply in order, and within a rule the kinds
// of overriders in the order documented on RuleWithCluster.
//
// Policies are chosen by the template as given, not as earlier policies changed it.
//
// It also returns the names (Policy.String) of the policies that had at least one rule for
// the cluster. An overrider that cannot apply fails the whole call with an error naming
// the policy, the rule and the overrider.
func Apply(template *unstructured.Unstructured, cluster *clusterv1alpha1.Cluster, policies []Policy) (*unstructured.Unstructured, []string, error) {
	if template == nil || template.Object == nil {
		return nil, nil, fmt.Errorf("no template")
	}
	if cluster == nil {
		return nil, nil, fmt.Errorf("no cluster")
	}
	obj, err := copyTemplate(template)
	if err != nil {
		return nil, nil, err
	}
	ordered := slices.Clone(policies)
	slices.SortStableFunc(ordered, func(a, b Policy) int {
		return cmp.Or(
			cmp.Compare(scope(a), scope(b)),
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Namespace, b.Namespace),
		)
	})
	var applied []string
	for _, p := range ordered {
		if !p.Selects(template) {
			continue
		}
		used := false
		for i := range p.Spec.OverrideRules {
			rule := &p.Spec.OverrideRules[i]
			ok, err := policy.MatchesAffinity(cluster, rule.TargetCluster)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: overrideRules[%d].targetCluster: %w", p, i, err)
			}
			if !ok {
				continue
			}
			used = true
			if err := applyRule(obj, &rule.Overriders); err != nil {
				return nil, nil, fmt.Errorf("%s: overrideRules[%d].overriders.%w", p, i, err)
			}
		}
		if used {
			applied = append(applied, p.String())
		}
	}
	return obj, applied, nil
}

// scope orders ClusterOverridePolicies (0) before OverridePolicies (1).
func scope(p Policy) int {
	if p.Namespace == "" {
		return 0
	}
	return 1
}

// copyTemplate deep-copies template, turning the panic DeepCopy raises on a value that is
// not a JSON type into an error.
func copyTemplate(template *unstructured.Unstructured) (out *unstructured.Unstructured, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("template holds a value that is not JSON: %v", r)
		}
	}()
	return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(template.Object)}, nil
}

// applyRule runs the overriders of one rule on obj. Errors start with the overrider, as
// in "imageOverrider[1]: ...".
func applyRule(obj *unstructured.Unstructured, o *federationv1alpha1.Overriders) error {
	for i, x := range o.ImageOverrider {
		if err := applyImage(obj, x); err != nil {
			return fmt.Errorf("imageOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.CommandOverrider {
		if err := applyCommandArgs(obj, "command", x); err != nil {
			return fmt.Errorf("commandOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.ArgsOverrider {
		if err := applyCommandArgs(obj, "args", x); err != nil {
			return fmt.Errorf("argsOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.LabelsOverrider {
		if err := applyStringMap(obj, "labels", x); err != nil {
			return fmt.Errorf("labelsOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.AnnotationsOverrider {
		if err := applyStringMap(obj, "annotations", x); err != nil {
			return fmt.Errorf("annotationsOverrider[%d]: %w", i, err)
		}
	}
	if len(o.ReplicasOverrider) > 1 {
		return fmt.Errorf("replicasOverrider: has %d entries, at most one is allowed", len(o.ReplicasOverrider))
	}
	for i, x := range o.ReplicasOverrider {
		if err := applyReplicas(obj, x); err != nil {
			return fmt.Errorf("replicasOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.ResourcesOverrider {
		if err := applyResources(obj, x); err != nil {
			return fmt.Errorf("resourcesOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.FieldOverrider {
		if err := applyField(obj, x); err != nil {
			return fmt.Errorf("fieldOverrider[%d]: %w", i, err)
		}
	}
	for i, x := range o.Plaintext {
		if err := applyPlaintext(obj, x); err != nil {
			return fmt.Errorf("plaintext[%d]: %w", i, err)
		}
	}
	return nil
}
