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
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// memberOnlyFields are status fields that describe a member's own copy of an object
// and mean nothing next to the template: generations the member counted itself, and
// the names and hash collisions of its ControllerRevisions. Health has already
// compared them where it matters.
var memberOnlyFields = map[schema.GroupKind][]string{
	deploymentKind:  {"observedGeneration", "collisionCount"},
	statefulSetKind: {"observedGeneration", "collisionCount", "currentRevision", "updateRevision"},
	daemonSetKind:   {"observedGeneration", "collisionCount"},
	replicaSetKind:  {"observedGeneration"},
	pdbKind:         {"observedGeneration"},
}

// ReflectStatus is the part of a member object's status to record in its binding: the
// whole .status less the member-only fields of its kind. It is nil when the object has
// no status, an empty one, or one that is not an object.
func ReflectStatus(obj *unstructured.Unstructured) *runtime.RawExtension {
	if obj == nil {
		return nil
	}
	raw, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "status")
	status, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	drop := memberOnlyFields[obj.GroupVersionKind().GroupKind()]
	kept := make(map[string]any, len(status))
	for k, v := range status {
		if !slices.Contains(drop, k) {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return nil
	}
	// Marshalling sorts the keys, so an unchanged status gives the same bytes.
	data, err := json.Marshal(kept)
	if err != nil {
		return nil
	}
	return &runtime.RawExtension{Raw: data}
}
