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
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
)

// Components reads the components of a workload that runs several pod templates: a
// customization's GetComponents for the kind, else fed's built-in knowledge (Apache
// Flink's FlinkDeployment). It returns nil for a workload of one pod template, which
// Replicas reads. Components that are not valid (no name, a name twice, negative
// replicas or requests) are an error that names them.
func (i *Interpreter) Components(obj *unstructured.Unstructured) ([]federationv1alpha1.Component, error) {
	by, fn, out, err := i.call(obj, OpComponentResource, 1, obj.Object)
	if err != nil {
		return nil, err
	}
	var components []federationv1alpha1.Component
	if by == "" {
		resp, err := i.hook(OpComponentResource, obj, nil)
		switch {
		case err != nil:
			return nil, err
		case resp != nil:
			components = resp.Components
			if err := checkComponents(components); err != nil {
				return nil, hookWrong(OpComponentResource, resp, "answered %v", err)
			}
			return components, nil
		}
		components = builtinComponents(obj)
	} else {
		switch v := out[0].(type) {
		case nil:
		case map[string]any:
			if len(v) > 0 {
				return nil, wrong(by, OpComponentResource, "%s returned a table with keys, want a list of components", fn)
			}
		default:
			if err := fromValue(v, &components); err != nil {
				return nil, wrong(by, OpComponentResource, "%s returned components fed cannot read: %v", fn, err)
			}
		}
	}
	if err := checkComponents(components); err != nil {
		if by == "" {
			return nil, fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		return nil, wrong(by, OpComponentResource, "%s returned %v", fn, err)
	}
	return components, nil
}

// Workload is what a template runs, as its binding carries it: its components, or, for a
// workload of one pod template, its replicas and what one needs.
func (i *Interpreter) Workload(obj *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, []federationv1alpha1.Component, error) {
	components, err := i.Components(obj)
	if err != nil || len(components) > 0 {
		return 0, nil, components, err
	}
	n, req, err := i.Replicas(obj)
	return n, req, nil, err
}

// checkComponents is the API's validation of a binding's components.
func checkComponents(components []federationv1alpha1.Component) error {
	if len(components) == 0 {
		return nil
	}
	internal := make([]federation.Component, len(components))
	for i := range components {
		if err := federationv1alpha1.Convert_v1alpha1_Component_To_federation_Component(&components[i], &internal[i], nil); err != nil {
			return err
		}
	}
	return validation.ValidateComponents(internal, field.NewPath("components")).ToAggregate()
}

// flinkDeployment is Apache Flink's operator's workload kind.
const flinkGroup, flinkDeploymentKind = "flink.apache.org", "FlinkDeployment"

// builtinComponents is fed's built-in knowledge of multi-component kinds: a
// FlinkDeployment (flink.apache.org) runs a jobmanager (spec.jobManager.replicas, 1 when
// unset) and taskmanagers (spec.taskManager.replicas; else the job's parallelism over
// the slots of one taskmanager, flinkConfiguration's taskmanager.numberOfTaskSlots,
// rounded up; else 1), each pod requesting its resource.cpu and resource.memory (Flink's
// memory sizes: 2048m is 2048 mebibytes), with the pod template's node selector and
// tolerations. Nil for other kinds.
func builtinComponents(obj *unstructured.Unstructured) []federationv1alpha1.Component {
	gvk := obj.GroupVersionKind()
	if gvk.Group != flinkGroup || gvk.Kind != flinkDeploymentKind {
		return nil
	}
	claim := flinkNodeClaim(obj.Object)
	component := func(name, field string, replicas int32) federationv1alpha1.Component {
		c := federationv1alpha1.Component{Name: name, Replicas: replicas}
		request := corev1.ResourceList{}
		if v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", field, "resource", "cpu"); found {
			if q, ok := flinkCPU(v); ok {
				request[corev1.ResourceCPU] = q
			}
		}
		if v, found, _ := unstructured.NestedString(obj.Object, "spec", field, "resource", "memory"); found {
			if q, ok := flinkMemory(v); ok {
				request[corev1.ResourceMemory] = q
			}
		}
		if len(request) > 0 || claim != nil {
			c.ReplicaRequirements = &federationv1alpha1.ReplicaRequirements{NodeClaim: claim}
			if len(request) > 0 {
				c.ReplicaRequirements.ResourceRequest = request
			}
		}
		return c
	}
	jobManagers := int32(1)
	if n, found := number(obj.Object, "spec", "jobManager", "replicas"); found {
		jobManagers = n
	}
	taskManagers := int32(1)
	if n, found := number(obj.Object, "spec", "taskManager", "replicas"); found {
		taskManagers = n
	} else if parallelism, found := number(obj.Object, "spec", "job", "parallelism"); found && parallelism > 0 {
		slots := int64(1)
		if s, found, _ := unstructured.NestedString(obj.Object, "spec", "flinkConfiguration", "taskmanager.numberOfTaskSlots"); found {
			if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32); err == nil && n > 0 {
				slots = n
			}
		}
		taskManagers = int32((int64(parallelism) + slots - 1) / slots)
	}
	return []federationv1alpha1.Component{component("jobmanager", "jobManager", jobManagers), component("taskmanager", "taskManager", taskManagers)}
}

// flinkNodeClaim is the node selector and tolerations of a FlinkDeployment's pod
// template, nil when it has neither.
func flinkNodeClaim(obj map[string]any) *federationv1alpha1.NodeClaim {
	spec, found, _ := unstructured.NestedMap(obj, "spec", "podTemplate", "spec")
	if !found {
		return nil
	}
	req, err := podRequirements(map[string]any{"nodeSelector": spec["nodeSelector"], "tolerations": spec["tolerations"]})
	if err != nil || req == nil {
		return nil
	}
	return req.NodeClaim
}

// flinkCPU reads a Flink resource's cpu: a number of cores (0.5, 1).
func flinkCPU(v any) (resource.Quantity, bool) {
	var cores float64
	switch n := v.(type) {
	case int64:
		cores = float64(n)
	case float64:
		cores = n
	default:
		return resource.Quantity{}, false
	}
	if cores < 0 || math.IsNaN(cores) || math.IsInf(cores, 0) {
		return resource.Quantity{}, false
	}
	return *resource.NewMilliQuantity(int64(math.Ceil(cores*1000)), resource.DecimalSI), true
}

// flinkSize is Flink's memory size syntax: a number and an optional unit.
var flinkSize = regexp.MustCompile(`^\s*([0-9]+)\s*([a-zA-Z]*)\s*$`)

// flinkMemory reads a Flink memory size ("2048m", "2g", "1024 mb", "512 mebibytes"),
// whose units are powers of 1024 (Flink's MemorySize), as a Kubernetes quantity.
func flinkMemory(s string) (resource.Quantity, bool) {
	m := flinkSize.FindStringSubmatch(s)
	if m == nil {
		return resource.Quantity{}, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return resource.Quantity{}, false
	}
	var shift uint
	switch strings.ToLower(m[2]) {
	case "", "b", "bytes":
	case "k", "kb", "kibibytes":
		shift = 10
	case "m", "mb", "mebibytes":
		shift = 20
	case "g", "gb", "gibibytes":
		shift = 30
	case "t", "tb", "tebibytes":
		shift = 40
	default:
		return resource.Quantity{}, false
	}
	if n > math.MaxInt64>>shift {
		return resource.Quantity{}, false
	}
	return *resource.NewQuantity(n<<shift, resource.BinarySI), true
}
