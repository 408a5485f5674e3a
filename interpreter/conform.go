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
	"reflect"
	"strings"
)

// Lua has one kind of table for lists and objects: an empty table a script makes ({})
// comes back as an empty object. Where the result is read into a Go type, conform makes
// each empty object or list what the type's field expects; where it is an object of a
// kind (a retained or revised object, a status), conformLike makes it what the objects
// the script was given hold at the same path, and drops it where they hold nothing there.
// A list or object the script was given and returned keeps what it was.

// jsonUnmarshaler is a type that reads its own JSON (a Quantity, a Time, a RawExtension):
// its values are left as they are.
var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// conform returns v, as JSON decodes it, with its empty objects and lists made what t,
// the type it is to be read into, expects at their place.
func conform(v any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Slice:
			if len(x) == 0 {
				return []any{}
			}
		case reflect.Map:
			for k, e := range x {
				x[k] = conform(e, t.Elem())
			}
		case reflect.Struct:
			fields := jsonFields(t)
			for k, e := range x {
				if f, ok := fields[k]; ok {
					x[k] = conform(e, f)
				}
			}
		}
	case []any:
		switch t.Kind() {
		case reflect.Struct, reflect.Map:
			if len(x) == 0 {
				return map[string]any{}
			}
		case reflect.Slice, reflect.Array:
			for i, e := range x {
				x[i] = conform(e, t.Elem())
			}
		}
	}
	return v
}

// jsonFields are the types of a struct's fields by their JSON names, those of embedded
// and inlined structs with them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
			for k, v := range jsonFields(ft) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// conformLike returns v with each empty object or list made what refs hold at the same
// path: a list where one of them holds a list there, an object where one holds an
// object; dropped where none holds anything (a field the script added empty). The
// elements of a list are matched with every element of the references' lists there.
func conformLike(v any, refs ...any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return v
		}
		for k, e := range x {
			var at []any
			for _, r := range refs {
				if m, ok := r.(map[string]any); ok {
					if re, ok := m[k]; ok {
						at = append(at, re)
					}
				}
			}
			if empty(e) {
				switch kind := emptyKind(at); kind {
				case "":
					delete(x, k)
				case "list":
					x[k] = []any{}
				case "object":
					x[k] = map[string]any{}
				}
				continue
			}
			x[k] = conformLike(e, at...)
		}
	case []any:
		var elems []any
		for _, r := range refs {
			if l, ok := r.([]any); ok {
				elems = append(elems, l...)
			}
		}
		for i, e := range x {
			if !empty(e) {
				x[i] = conformLike(e, elems...)
			}
		}
	}
	return v
}

// empty tells whether v is an empty object or list.
func empty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// emptyKind is what the references at one path are: "list" if any is a list, else
// "object" if any is an object, else "" (none is there, or only other values).
func emptyKind(refs []any) string {
	kind := ""
	for _, r := range refs {
		switch r.(type) {
		case []any:
			return "list"
		case map[string]any:
			kind = "object"
		}
	}
	return kind
}
