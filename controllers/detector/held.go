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
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// ConditionPropagated, on a template no binding propagates yet, is False while the
	// policy that selects it waits for its dependentOverrides; it goes when the template
	// propagates, whose status is then the members' (package bindingstatus).
	ConditionPropagated = "Propagated"
	// ReasonDependentOverridesMissing is the reason of that condition and of its event.
	ReasonDependentOverridesMissing = "DependentOverridesMissing"
)

// showHeld writes, on a template with no binding, the Propagated=False condition that
// says why it waits (held), or removes it (held ""). The detector is the one writer of a
// template's status while no binding exists; a kind without a status subresource (a
// ConfigMap) shows the event alone.
func (c *Controller) showHeld(ctx context.Context, gvr schema.GroupVersionResource, tmpl *unstructured.Unstructured, held string) error {
	out, changed := heldConditions(tmpl, held, time.Now())
	if !changed {
		return nil
	}
	u := tmpl.DeepCopy()
	if len(out) == 0 {
		unstructured.RemoveNestedField(u.Object, "status", "conditions")
	} else if err := unstructured.SetNestedSlice(u.Object, out, "status", "conditions"); err != nil {
		return err
	}
	_, err := c.templates.Client.Resource(gvr).Namespace(tmpl.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return nil // deleted meanwhile, or a kind without status
	}
	return err
}

// heldConditions computes a template's status.conditions with the Propagated condition
// for held, and whether they changed.
func heldConditions(tmpl *unstructured.Unstructured, held string, now time.Time) (out []any, changed bool) {
	current, _, _ := unstructured.NestedSlice(tmpl.Object, "status", "conditions")
	out = make([]any, 0, len(current)+1)
	had, same := false, false
	for _, x := range current {
		if m, ok := x.(map[string]any); ok && m["type"] == ConditionPropagated {
			had, same = true, m["message"] == held && m["status"] == string(metav1.ConditionFalse)
			continue
		}
		out = append(out, x)
	}
	if held == "" && !had || held != "" && same {
		return nil, false
	}
	if held != "" {
		out = append(out, map[string]any{
			"type": ConditionPropagated, "status": string(metav1.ConditionFalse), "reason": ReasonDependentOverridesMissing,
			"message": held, "lastTransitionTime": now.UTC().Format(time.RFC3339),
		})
	}
	return out, true
}
