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

package override

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// applyStringMap runs a labelsOverrider or annotationsOverrider on metadata.<field>:
// addIfAbsent sets keys that are missing, add sets every key, replace sets keys that
// exist and ignores the others, remove drops the keys. An emptied map is removed.
func applyStringMap(obj *unstructured.Unstructured, field string, o federationv1alpha1.LabelAnnotationOverrider) error {
	switch o.Operator {
	case federationv1alpha1.OverriderOpAdd, federationv1alpha1.OverriderOpAddIfAbsent,
		federationv1alpha1.OverriderOpReplace, federationv1alpha1.OverriderOpRemove:
	default:
		return fmt.Errorf("operator %q is not add, addIfAbsent, replace or remove", o.Operator)
	}
	var metadata map[string]interface{}
	switch m := obj.Object["metadata"].(type) {
	case map[string]interface{}:
		metadata = m
	case nil:
		metadata = map[string]interface{}{}
	default:
		return fmt.Errorf("metadata is a %T, not an object", m)
	}
	var current map[string]interface{}
	switch m := metadata[field].(type) {
	case map[string]interface{}:
		current = m
	case nil:
		current = map[string]interface{}{}
	default:
		return fmt.Errorf("metadata.%s is a %T, not an object", field, m)
	}
	for key, value := range o.Value {
		old, exists := current[key]
		if _, ok := old.(string); exists && !ok {
			return fmt.Errorf("metadata.%s[%q] is a %T, not a string", field, key, old)
		}
		switch {
		case o.Operator == federationv1alpha1.OverriderOpRemove:
			delete(current, key)
		case o.Operator == federationv1alpha1.OverriderOpAdd,
			o.Operator == federationv1alpha1.OverriderOpAddIfAbsent && !exists,
			o.Operator == federationv1alpha1.OverriderOpReplace && exists:
			current[key] = value
		}
	}
	if len(current) == 0 {
		delete(metadata, field)
	} else {
		metadata[field] = current
	}
	if len(metadata) > 0 || obj.Object["metadata"] != nil {
		obj.Object["metadata"] = metadata
	}
	return nil
}

// applyReplicas runs a replicasOverrider: it sets spec.replicas. Built-in kinds without a
// replica count (Pod, DaemonSet, Job, CronJob) are an error rather than getting a field
// their API server would reject.
func applyReplicas(obj *unstructured.Unstructured, o federationv1alpha1.ReplicasOverrider) error {
	if o.Value < 0 {
		return fmt.Errorf("replicas %d is negative", o.Value)
	}
	if _, workload := podSpecPointer(obj); workload {
		switch kind := obj.GetKind(); kind {
		case "Pod", "DaemonSet", "Job", "CronJob":
			return fmt.Errorf("a %s has no replica count", kind)
		}
	}
	var spec map[string]interface{}
	switch s := obj.Object["spec"].(type) {
	case map[string]interface{}:
		spec = s
	case nil:
		spec = map[string]interface{}{}
		obj.Object["spec"] = spec
	default:
		return fmt.Errorf("spec is a %T, not an object", s)
	}
	spec["replicas"] = int64(o.Value)
	return nil
}
