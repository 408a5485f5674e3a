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
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Skipped says whether fed leaves a template where it is whatever the policies say: the
// fleet's kube-* namespaces, fed's own namespace and the execution namespaces, and what
// they hold, are not for members, nor fed's records of a rollout (AnnotationView).
func Skipped(obj *unstructured.Unstructured) bool {
	ns := obj.GetNamespace()
	if ns == "" && obj.GetKind() == "Namespace" && obj.GetAPIVersion() == "v1" {
		ns = obj.GetName()
	}
	return strings.HasPrefix(ns, "kube-") || ns == clusterv1alpha1.FedNamespace ||
		strings.HasPrefix(ns, federationv1alpha1.ExecutionNamespacePrefix) || obj.GetAnnotations()[federationv1alpha1.AnnotationView] != ""
}

// BindingLabels are the labels naming the policy on a binding.
func BindingLabels(p *policy.Policy) map[string]string {
	if p.Namespace == "" {
		return map[string]string{federationv1alpha1.LabelClusterPolicy: p.Name}
	}
	return map[string]string{federationv1alpha1.LabelPolicyNamespace: p.Namespace, federationv1alpha1.LabelPolicyName: p.Name}
}

// BindingSpec is the spec of the binding of a template under a policy, with the
// template's replicas and what one needs (the interpreter says). Where the template goes
// (spec.clusters) is the scheduler's, and kept from the current binding.
func BindingSpec(obj *unstructured.Unstructured, p *policy.Policy, replicas int32, req *federationv1alpha1.ReplicaRequirements) federationv1alpha1.ResourceBindingSpec {
	spec := p.Spec
	placement := spec.Placement.DeepCopy()
	out := federationv1alpha1.ResourceBindingSpec{
		Resource:                    Reference(obj),
		PropagateDeps:               spec.PropagateDeps,
		Placement:                   placement,
		SchedulerName:               spec.SchedulerName,
		Failover:                    spec.Failover.DeepCopy(),
		ConflictResolution:          spec.ConflictResolution,
		Suspension:                  spec.Suspension.DeepCopy(),
		PreserveResourcesOnDeletion: spec.PreserveResourcesOnDeletion,
	}
	out.Replicas, out.ReplicaRequirements = replicas, req
	out.WorkloadAffinityGroups = WorkloadAffinityGroups(obj, placement.WorkloadAffinity)
	return out
}

// WorkloadAffinityGroups are the groups of a placement's workloadAffinity a template is
// in, each "key=value" of its label; nil when it is in none.
func WorkloadAffinityGroups(obj *unstructured.Unstructured, wa *federationv1alpha1.WorkloadAffinity) *federationv1alpha1.WorkloadAffinityGroups {
	if wa == nil {
		return nil
	}
	group := func(term *federationv1alpha1.WorkloadAffinityTerm) string {
		if term == nil {
			return ""
		}
		if v, ok := obj.GetLabels()[term.GroupByLabelKey]; ok {
			return term.GroupByLabelKey + "=" + v
		}
		return ""
	}
	g := federationv1alpha1.WorkloadAffinityGroups{AffinityGroup: group(wa.Affinity), AntiAffinityGroup: group(wa.AntiAffinity)}
	if g == (federationv1alpha1.WorkloadAffinityGroups{}) {
		return nil
	}
	return &g
}

// Reference names a template in its binding.
func Reference(obj *unstructured.Unstructured) federationv1alpha1.ObjectReference {
	return federationv1alpha1.ObjectReference{
		APIVersion: obj.GetAPIVersion(),
		Kind:       obj.GetKind(),
		Namespace:  obj.GetNamespace(),
		Name:       obj.GetName(),
		UID:        obj.GetUID(),
	}
}
