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

package trim

import (
	"bytes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// keptWhole are the top-level fields a template keeps whole, owned or not: no default is
// ever filled in them, and a Secret's data is owned as the stringData it was written as.
var keptWhole = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "data": true, "binaryData": true, "stringData": true}

// WritersOnly makes tmpl's content only what some writer of it set, without the fields the
// fleet filled in itself (the host's defaults, a CustomResourceDefinition's), which every
// member fills in with its own; it then drops tmpl's managedFields. What a writer set is
// what tmpl's managedFields say some manager owns, whatever the operation; a template
// without managedFields, or with any it cannot read, is kept whole.
//
// fed's controllers see templates so (Templates keeps them so, and manifest.For makes
// them so): what the user wrote, as before the fleet stored defaults.
func WritersOnly(tmpl *unstructured.Unstructured) {
	defer tmpl.SetManagedFields(nil)
	owned, ok := ownedFields(tmpl.GetManagedFields())
	if !ok {
		return
	}
	kept := prune(tmpl.Object, owned).(map[string]any)
	for k := range keptWhole {
		if v, found := tmpl.Object[k]; found {
			kept[k] = v
		}
	}
	tmpl.Object = kept
}

// ownedFields is the union of what the managers of entries own; ok is false when there are
// none, or one cannot be read.
func ownedFields(entries []metav1.ManagedFieldsEntry) (*fieldpath.Set, bool) {
	if len(entries) == 0 {
		return nil, false
	}
	owned := &fieldpath.Set{}
	for _, e := range entries {
		if e.FieldsV1 == nil {
			return nil, false
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, false
		}
		owned = owned.Union(s)
	}
	return owned, true
}

// prune is v with only what owned holds of it: a child of owned pruned in turn, a member
// that is no child (a leaf, an atomic value) whole. Maps go by field name; lists by their
// items' keys, values or indexes, as managedFields name them, and an item keeps its key.
func prune(v any, owned *fieldpath.Set) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, item := range t {
			pe := fieldpath.FieldNameElement(k)
			if child, ok := owned.Children.Get(pe); ok {
				out[k] = prune(item, child)
			} else if owned.Members.Has(pe) {
				out[k] = item
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for i, item := range t {
			pe, child, ok := itemOwned(owned, i, item)
			switch {
			case !ok:
			case child == nil:
				out = append(out, item)
			default:
				pruned := prune(item, child)
				if m, isMap := pruned.(map[string]any); isMap && pe.Key != nil {
					for _, f := range *pe.Key {
						m[f.Name] = item.(map[string]any)[f.Name]
					}
				}
				out = append(out, pruned)
			}
		}
		return out
	default:
		return v
	}
}

// itemOwned finds the list item at index i in owned: the path element naming it, and its
// child set (nil when owned holds it whole); ok is false when owned does not hold it.
func itemOwned(owned *fieldpath.Set, i int, item any) (pe fieldpath.PathElement, child *fieldpath.Set, ok bool) {
	matches := func(pe fieldpath.PathElement) bool {
		switch {
		case pe.Index != nil:
			return *pe.Index == i
		case pe.Value != nil:
			return value.Equals(value.NewValueInterface(item), *pe.Value)
		case pe.Key != nil:
			m, isMap := item.(map[string]any)
			if !isMap {
				return false
			}
			for _, f := range *pe.Key {
				fv, found := m[f.Name]
				if !found || !value.Equals(value.NewValueInterface(fv), f.Value) {
					return false
				}
			}
			return true
		}
		return false
	}
	// Iterate, not All: the sets' iterators do not stop when a loop over them returns.
	var found *fieldpath.PathElement
	owned.Children.Iterate(func(pe fieldpath.PathElement) {
		if found == nil && matches(pe) {
			found = &pe
		}
	})
	if found != nil {
		c, _ := owned.Children.Get(*found)
		return *found, c, true
	}
	owned.Members.Iterate(func(pe fieldpath.PathElement) {
		if found == nil && matches(pe) {
			found = &pe
		}
	})
	if found != nil {
		return *found, nil, true
	}
	return fieldpath.PathElement{}, nil, false
}
