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

package interpreter

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	resourcehelper "k8s.io/component-helpers/resource"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
)

// Replicas is the built-in answer to how many replicas a workload template asks for and
// what one of them needs: spec.replicas (1 when unset, as the members default it; a
// Job's spec.parallelism) and, for the kinds with a pod template, the requests of one pod
// as the scheduler counts them (k8s.io/component-helpers' PodRequests: init and sidecar
// containers, pod overhead and pod-level resources) with its node constraints; 0 and nil
// for other kinds and for a DaemonSet (one per node: no replicas to divide).
func Replicas(obj *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements) {
	if obj == nil {
		return 0, nil
	}
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
	} else if obj.GroupVersionKind().GroupKind() == daemonSetKind {
		return 0, nil
	}
	req, err := podRequirements(podSpec)
	if err != nil {
		return replicas, nil
	}
	return replicas, req
}

// podRequirements is what one pod of a pod spec needs: nil when nothing.
func podRequirements(podSpec map[string]any) (*federationv1alpha1.ReplicaRequirements, error) {
	var pod corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(podSpec, &pod.Spec); err != nil {
		return nil, err
	}
	req := &federationv1alpha1.ReplicaRequirements{}
	if requests := resourcehelper.PodRequests(&pod, resourcehelper.PodResourcesOptions{}); len(requests) > 0 {
		req.ResourceRequest = requests
	}
	spec := &pod.Spec
	if len(spec.NodeSelector) > 0 || len(spec.Tolerations) > 0 || spec.Affinity != nil && spec.Affinity.NodeAffinity != nil && spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		req.NodeClaim = &federationv1alpha1.NodeClaim{NodeSelector: spec.NodeSelector, Tolerations: spec.Tolerations}
		if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil {
			req.NodeClaim.HardNodeAffinity = spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	if req.ResourceRequest == nil && req.NodeClaim == nil {
		return nil, nil
	}
	return req, nil
}

// replicaKinds count replicas in spec.replicas even when the template leaves it to its
// default.
var replicaKinds = map[schema.GroupKind]bool{deploymentKind: true, statefulSetKind: true, replicaSetKind: true}

// reviseReplica is the built-in way of setting a workload's replicas: spec.replicas, for
// an object that has it or a kind that defaults it.
func reviseReplica(obj *unstructured.Unstructured, n int32) {
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "replicas"); found || replicaKinds[obj.GroupVersionKind().GroupKind()] {
		_ = unstructured.SetNestedField(obj.Object, int64(n), "spec", "replicas")
	}
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

// helpers are the functions scripts find in their table kube (or require("kube")), as
// Karmada's scripts call them: kube.accuratePodRequirements(podTemplate) is what one pod
// of a pod template needs ({resourceRequest, nodeClaim}, as replicaResource returns it),
// kube.getPodDependencies(podTemplate, namespace) the references to what its pods need
// (namespace nil: "default"), kube.resourceAdd(q1, q2, ...) the sum of quantities (strings
// such as "250m", nil for none) as a quantity string, and kube.getResourceQuantity(q) a
// quantity as a number ("1500m" is 1.5).
var helpers = map[string]lua.Helper{
	"resourceAdd": func(args ...any) (any, error) {
		var sum resource.Quantity
		for i, a := range args {
			q, err := quantityArg(a, i)
			if err != nil {
				return nil, err
			}
			sum.Add(q)
		}
		return sum.String(), nil
	},
	"getResourceQuantity": func(args ...any) (any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("takes one quantity, got %d arguments", len(args))
		}
		q, err := quantityArg(args[0], 0)
		if err != nil {
			return nil, err
		}
		f := q.AsApproximateFloat64()
		if f < 0 || math.IsInf(f, 0) {
			return nil, fmt.Errorf("the quantity %s is negative or too large", q.String())
		}
		return f, nil
	},
	"accuratePodRequirements": func(args ...any) (any, error) {
		spec, err := podTemplateSpec(args)
		if err != nil {
			return nil, err
		}
		req, err := podRequirements(spec)
		if err != nil || req == nil {
			return nil, err
		}
		var out map[string]any
		return out, fromValue(req, &out)
	},
	"getPodDependencies": func(args ...any) (any, error) {
		spec, err := podTemplateSpec(args)
		if err != nil {
			return nil, err
		}
		ns, _ := argAt(args, 1).(string)
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": spec}}
		pod.SetNamespace(ns)
		var out []any
		return out, fromValue(Dependencies(pod), &out)
	},
}

// quantityArg reads the helper's argument i (from 0) as a quantity: a string kube
// parses, a number, or nil for zero.
func quantityArg(a any, i int) (resource.Quantity, error) {
	switch x := a.(type) {
	case nil:
		return resource.Quantity{}, nil
	case string:
		q, err := resource.ParseQuantity(x)
		if err != nil {
			return q, fmt.Errorf("argument %d, %q: %w", i+1, x, err)
		}
		return q, nil
	case int64:
		return *resource.NewQuantity(x, resource.DecimalSI), nil
	case float64:
		return *resource.NewMilliQuantity(int64(math.Round(x*1000)), resource.DecimalSI), nil
	}
	return resource.Quantity{}, fmt.Errorf("argument %d is %v, want a quantity such as \"250m\"", i+1, a)
}

func argAt(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// podTemplateSpec reads a helper's first argument, a pod template ({metadata, spec}).
func podTemplateSpec(args []any) (map[string]any, error) {
	tmpl, ok := argAt(args, 0).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the first argument is %v, want a pod template", argAt(args, 0))
	}
	spec, _ := tmpl["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	return spec, nil
}
