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

// Package policy says what fed's policies select: which templates a resource selector
// names and how closely, which policy wins, which clusters an affinity selects and which
// taints tolerations tolerate. The detector, the scheduler and the override engine read
// the API the same way through it.
package policy

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Object is what the matcher needs of a template.
type Object interface {
	GetAPIVersion() string
	GetKind() string
	GetNamespace() string
	GetName() string
	GetLabels() map[string]string
}

// Policy is a PropagationPolicy (Namespace set) or a ClusterPropagationPolicy.
type Policy struct {
	Namespace string
	Name      string
	Spec      *federationv1alpha1.PropagationSpec
}

// ImplicitPriority is how closely a resource selector names an object; the closer, the
// higher.
type ImplicitPriority int

const (
	// NoMatch: the selector does not select the object.
	NoMatch ImplicitPriority = iota
	// MatchAll: the selector names only the apiVersion and kind.
	MatchAll
	// MatchLabelSelector: the selector selects the object by its labels.
	MatchLabelSelector
	// MatchName: the selector names the object.
	MatchName
)

// SelectorPriority tells how a resource selector of a policy in policyNamespace ("" for a
// ClusterPropagationPolicy) selects obj. A PropagationPolicy selects only objects of its
// own namespace, whatever its selector says; a ClusterPropagationPolicy's selector without
// a namespace selects in every namespace.
func SelectorPriority(obj Object, sel federationv1alpha1.ResourceSelector, policyNamespace string) ImplicitPriority {
	if sel.APIVersion != obj.GetAPIVersion() || sel.Kind != obj.GetKind() {
		return NoMatch
	}
	namespace := sel.Namespace
	if policyNamespace != "" {
		if obj.GetNamespace() != policyNamespace || namespace != "" && namespace != policyNamespace {
			return NoMatch
		}
	} else if namespace != "" && namespace != obj.GetNamespace() {
		return NoMatch
	}
	if sel.LabelSelector != nil {
		selector, err := metav1.LabelSelectorAsSelector(sel.LabelSelector)
		if err != nil || !selector.Matches(labels.Set(obj.GetLabels())) {
			return NoMatch
		}
	}
	switch {
	case sel.Name != "" && sel.Name != obj.GetName():
		return NoMatch
	case sel.Name != "":
		return MatchName
	case sel.LabelSelector != nil:
		return MatchLabelSelector
	}
	return MatchAll
}

// PolicyPriority is the highest priority of a policy's selectors for obj.
func PolicyPriority(obj Object, p Policy) ImplicitPriority {
	best := NoMatch
	for _, sel := range p.Spec.ResourceSelectors {
		best = max(best, SelectorPriority(obj, sel, p.Namespace))
	}
	return best
}

// Best chooses the policy that propagates obj, or nil: a PropagationPolicy of the object's
// namespace before any ClusterPropagationPolicy; among several, the highest spec.priority
// (unset is 0), then the highest implicit priority (a name before a label selector before
// the kind alone), then the first name in alphabetical order.
func Best(obj Object, policies []Policy) *Policy {
	type candidate struct {
		p        *Policy
		implicit ImplicitPriority
	}
	var namespaced, cluster []candidate
	for i := range policies {
		p := &policies[i]
		implicit := PolicyPriority(obj, *p)
		if implicit == NoMatch {
			continue
		}
		if p.Namespace != "" {
			namespaced = append(namespaced, candidate{p, implicit})
		} else {
			cluster = append(cluster, candidate{p, implicit})
		}
	}
	candidates := namespaced
	if len(candidates) == 0 {
		candidates = cluster
	}
	if len(candidates) == 0 {
		return nil
	}
	best := slices.MinFunc(candidates, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(explicit(b.p), explicit(a.p)),
			cmp.Compare(b.implicit, a.implicit),
			cmp.Compare(a.p.Name, b.p.Name),
		)
	})
	return best.p
}

func explicit(p *Policy) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// Claimed chooses the policy that propagates obj when claimer (nil when none) already
// propagates it. A claimer that still selects obj keeps it, unless policies that may
// preempt it (Preempts) select obj too: then the best of those. Without a claimer, or
// when the claimer no longer selects obj, Best of all.
func Claimed(obj Object, policies []Policy, claimer *Policy) *Policy {
	if claimer == nil || PolicyPriority(obj, *claimer) == NoMatch {
		return Best(obj, policies)
	}
	var preempting []Policy
	for _, p := range policies {
		if Preempts(&p, claimer) {
			preempting = append(preempting, p)
		}
	}
	if best := Best(obj, preempting); best != nil {
		return best
	}
	return claimer
}

// Preempts says whether p may take a template from the policy that claimed it: p's
// preemption is Always, and p is a PropagationPolicy where the claimer is a
// ClusterPropagationPolicy, or both are of one scope and p's spec.priority is higher.
func Preempts(p, claimer *Policy) bool {
	if p.Spec.Preemption != federationv1alpha1.PreemptAlways || p.Namespace == claimer.Namespace && p.Name == claimer.Name {
		return false
	}
	if (p.Namespace == "") != (claimer.Namespace == "") {
		return p.Namespace != ""
	}
	return explicit(p) > explicit(claimer)
}
