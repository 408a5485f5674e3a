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
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestHeldConditions(t *testing.T) {
	now := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	deployment := func(conditions ...any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}}
		if conditions != nil {
			_ = unstructured.SetNestedSlice(u.Object, conditions, "status", "conditions")
		}
		return u
	}
	other := map[string]any{"type": "Available", "status": "True"}
	held := map[string]any{"type": ConditionPropagated, "status": "False", "reason": ReasonDependentOverridesMissing,
		"message": "m", "lastTransitionTime": "2026-11-29T01:00:00Z"}
	for _, tc := range []struct {
		name    string
		tmpl    *unstructured.Unstructured
		held    string
		want    []any
		changed bool
	}{
		{"held, no status yet", deployment(), "m", []any{held}, true},
		{"held, other conditions kept", deployment(other), "m", []any{other, held}, true},
		{"held as it says", deployment(held), "m", nil, false},
		{"held for another reason", deployment(held), "n", []any{map[string]any{"type": ConditionPropagated, "status": "False",
			"reason": ReasonDependentOverridesMissing, "message": "n", "lastTransitionTime": "2026-11-29T01:00:00Z"}}, true},
		{"not held, had the condition", deployment(other, held), "", []any{other}, true},
		{"not held, never was", deployment(other), "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changed := heldConditions(tc.tmpl, tc.held, now)
			if changed != tc.changed {
				t.Fatalf("changed %v, want %v", changed, tc.changed)
			}
			if changed && !reflect.DeepEqual(out, tc.want) {
				t.Errorf("conditions %v, want %v", out, tc.want)
			}
		})
	}
}
