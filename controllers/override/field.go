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
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// patchValue decodes the value of an add or replace; remove takes none.
func patchValue(op federationv1alpha1.OverriderOperator, v *apiextensionsv1.JSON) (interface{}, error) {
	empty := v == nil || len(v.Raw) == 0
	if op == federationv1alpha1.OverriderOpRemove {
		if !empty && string(v.Raw) != "null" {
			return nil, fmt.Errorf("remove takes no value")
		}
		return nil, nil
	}
	if empty {
		return nil, fmt.Errorf("%s needs a value", op)
	}
	var out interface{}
	if err := utiljson.Unmarshal(v.Raw, &out); err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	return out, nil
}

// applyPlaintext runs a plaintext overrider: one JSON-patch operation on the object.
func applyPlaintext(obj *unstructured.Unstructured, o federationv1alpha1.PlaintextOverrider) error {
	value, err := patchValue(o.Operator, o.Value)
	if err != nil {
		return err
	}
	out, err := patchPointer(obj.Object, o.Operator, o.Path, value)
	if err != nil {
		return err
	}
	object, ok := out.(map[string]interface{})
	if !ok {
		return fmt.Errorf("path %q: the object would become a %T", o.Path, out)
	}
	obj.Object = object
	return nil
}

// applyField runs a fieldOverrider: it decodes the JSON or YAML document held in the
// string at fieldPath, patches it, and writes it back in the same format. YAML comes back
// with keys sorted and comments dropped.
func applyField(obj *unstructured.Unstructured, o federationv1alpha1.FieldOverrider) error {
	value, found, err := getPointer(obj.Object, o.FieldPath)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("fieldPath %q does not exist", o.FieldPath)
	}
	text, ok := value.(string)
	if !ok {
		return fmt.Errorf("fieldPath %q holds a %T, not a string", o.FieldPath, value)
	}
	type op struct {
		subPath  string
		operator federationv1alpha1.OverriderOperator
		value    *apiextensionsv1.JSON
	}
	var ops []op
	var raw []byte
	isYAML := len(o.YAML) > 0
	switch {
	case len(o.JSON) > 0 && isYAML:
		return fmt.Errorf("only one of json and yaml may be set")
	case isYAML:
		for _, p := range o.YAML {
			ops = append(ops, op{p.SubPath, p.Operator, p.Value})
		}
		if raw, err = yaml.YAMLToJSON([]byte(text)); err != nil {
			return fmt.Errorf("fieldPath %q is not YAML: %w", o.FieldPath, err)
		}
	case len(o.JSON) > 0:
		for _, p := range o.JSON {
			ops = append(ops, op{p.SubPath, p.Operator, p.Value})
		}
		raw = []byte(text)
	default:
		return fmt.Errorf("one of json and yaml must be set")
	}
	var doc interface{}
	if err := utiljson.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("fieldPath %q is not JSON: %w", o.FieldPath, err)
	}
	for i, p := range ops {
		v, err := patchValue(p.operator, p.value)
		if err == nil {
			doc, err = patchPointer(doc, p.operator, p.subPath, v)
		}
		if err != nil {
			return fmt.Errorf("fieldPath %q: operation %d: %w", o.FieldPath, i, err)
		}
	}
	out, err := json.Marshal(doc)
	if err == nil && isYAML {
		out, err = yaml.JSONToYAML(out)
	}
	if err != nil {
		return fmt.Errorf("fieldPath %q: %w", o.FieldPath, err)
	}
	_, err = patchPointer(obj.Object, federationv1alpha1.OverriderOpReplace, o.FieldPath, string(out))
	return err
}
