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
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// memberOnlyFields are status fields that describe a member's own copy of an object
// and mean nothing next to the template: the names and hash collisions of its
// ControllerRevisions. Health has already compared them where it matters.
var memberOnlyFields = map[schema.GroupKind][]string{
	deploymentKind:  {"collisionCount"},
	statefulSetKind: {"collisionCount", "currentRevision", "updateRevision"},
	daemonSetKind:   {"collisionCount"},
}

// generationKinds count status.observedGeneration in the member's own generations, which
// mean nothing next to the template's. Their reflected status says instead which
// generation of the template the member has observed: the one fed stamped on the copy
// (AnnotationTemplateGeneration) once the member's controller observed the copy, and none
// before.
var generationKinds = map[schema.GroupKind]bool{
	deploymentKind: true, statefulSetKind: true, daemonSetKind: true, replicaSetKind: true, pdbKind: true,
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
	gk := obj.GroupVersionKind().GroupKind()
	drop := memberOnlyFields[gk]
	kept := make(map[string]any, len(status))
	for k, v := range status {
		if !slices.Contains(drop, k) {
			kept[k] = v
		}
	}
	if generationKinds[gk] {
		delete(kept, "observedGeneration")
		if g, ok := templateGenerationObserved(obj); ok {
			kept["observedGeneration"] = g
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

// templateGenerationObserved is the template's generation a member's copy was made from,
// once the member's controller has observed the copy.
func templateGenerationObserved(obj *unstructured.Unstructured) (int64, bool) {
	observed, found, err := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	if !found || err != nil || observed < obj.GetGeneration() {
		return 0, false
	}
	g, err := strconv.ParseInt(obj.GetAnnotations()[federationv1alpha1.AnnotationTemplateGeneration], 10, 64)
	return g, err == nil && g > 0
}
