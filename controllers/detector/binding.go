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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Skipped says whether fed leaves a template where it is whatever the policies say: the
// fleet's kube-* namespaces, fed's own namespace and the execution namespaces, and what
// they hold, are not for members.
func Skipped(obj *unstructured.Unstructured) bool {
	ns := obj.GetNamespace()
	if ns == "" && obj.GetKind() == "Namespace" && obj.GetAPIVersion() == "v1" {
		ns = obj.GetName()
	}
	return strings.HasPrefix(ns, "kube-") || ns == clusterv1alpha1.FedNamespace ||
		strings.HasPrefix(ns, federationv1alpha1.ExecutionNamespacePrefix)
}

// BindingLabels are the labels naming the policy on a binding.
func BindingLabels(p *policy.Policy) map[string]string {
	if p.Namespace == "" {
		return map[string]string{federationv1alpha1.LabelClusterPolicy: p.Name}
	}
	return map[string]string{federationv1alpha1.LabelPolicyNamespace: p.Namespace, federationv1alpha1.LabelPolicyName: p.Name}
}

// BindingSpec is the spec of the binding of a template under a policy. Where the
// template goes (spec.clusters) is the scheduler's, and kept from the current binding.
func BindingSpec(obj *unstructured.Unstructured, p *policy.Policy) federationv1alpha1.ResourceBindingSpec {
	spec := p.Spec
	placement := spec.Placement.DeepCopy()
	out := federationv1alpha1.ResourceBindingSpec{
		Resource: federationv1alpha1.ObjectReference{
			APIVersion: obj.GetAPIVersion(),
			Kind:       obj.GetKind(),
			Namespace:  obj.GetNamespace(),
			Name:       obj.GetName(),
			UID:        obj.GetUID(),
		},
		PropagateDeps:               spec.PropagateDeps,
		Placement:                   placement,
		SchedulerName:               spec.SchedulerName,
		Failover:                    spec.Failover.DeepCopy(),
		ConflictResolution:          spec.ConflictResolution,
		Suspension:                  spec.Suspension.DeepCopy(),
		PreserveResourcesOnDeletion: spec.PreserveResourcesOnDeletion,
	}
	out.Replicas, out.ReplicaRequirements = Replicas(obj)
	return out
}

// Replicas reads how many replicas a workload template asks for and what one of them
// needs: spec.replicas (1 when unset, as the members default it) and the requests of its
// pod template's containers, for the kinds that have both; 0 and nil otherwise.
func Replicas(obj *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements) {
	podSpec, found, _ := unstructured.NestedMap(obj.Object, "spec", "template", "spec")
	if !found {
		return 0, nil
	}
	replicas := int32(1)
	if n, found := number(obj.Object, "spec", "replicas"); found {
		replicas = n
	} else if obj.GetKind() == "Job" {
		if n, found := number(obj.Object, "spec", "parallelism"); found {
			replicas = n
		}
	} else if obj.GetKind() == "DaemonSet" {
		return 0, nil // one per node: no replicas to divide
	}
	var pod corev1.PodSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(podSpec, &pod); err != nil {
		return replicas, nil
	}
	requests := corev1.ResourceList{}
	for _, c := range pod.Containers {
		for name, q := range c.Resources.Requests {
			sum := requests[name]
			sum.Add(q)
			requests[name] = sum
		}
	}
	// An init container runs before the others: a replica needs the larger of the two.
	for _, c := range pod.InitContainers {
		for name, q := range c.Resources.Requests {
			if cur, ok := requests[name]; !ok || q.Cmp(cur) > 0 {
				requests[name] = q.DeepCopy()
			}
		}
	}
	req := &federationv1alpha1.ReplicaRequirements{}
	if len(requests) > 0 {
		req.ResourceRequest = requests
	}
	if len(pod.NodeSelector) > 0 || len(pod.Tolerations) > 0 || pod.Affinity != nil && pod.Affinity.NodeAffinity != nil && pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		req.NodeClaim = &federationv1alpha1.NodeClaim{NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}
		if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil {
			req.NodeClaim.HardNodeAffinity = pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	if req.ResourceRequest == nil && req.NodeClaim == nil {
		return replicas, nil
	}
	return replicas, req
}

// number reads an integer field, whether decoded as int64 (from the API) or float64.
func number(obj map[string]any, fields ...string) (int32, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	switch n := v.(type) {
	case int64:
		return int32(n), found
	case float64:
		return int32(n), found
	}
	return 0, false
}
