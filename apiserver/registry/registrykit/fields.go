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

package registrykit

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
)

// Field is a field of T that field selectors can match.
type Field[T any] struct {
	// Label is the field's path in the served version, for example
	// "spec.syncMode".
	Label string
	Value func(obj T) string
}

// Fields are the fields of a kind that field selectors can match besides
// metadata.name and metadata.namespace.
type Fields[T Object] []Field[T]

// attrFunc returns the labels and selectable fields of an object.
func (fs Fields[T]) attrFunc(namespaced bool) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		o, ok := obj.(T)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected object of type %T", obj)
		}
		objectMeta, ok := o.GetObjectMeta().(*metav1.ObjectMeta)
		if !ok {
			return nil, nil, fmt.Errorf("%T does not embed metav1.ObjectMeta", obj)
		}
		set := generic.ObjectMetaFieldsSet(objectMeta, namespaced)
		for _, f := range fs {
			set[f.Label] = f.Value(o)
		}
		return labels.Set(o.GetLabels()), set, nil
	}
}

// ConvertFieldLabel accepts the labels of fs, metadata.name and
// metadata.namespace, unchanged: the internal field paths are the served
// ones. Register it in the scheme for the kind's served version so that
// field selectors on fs pass the request handler.
func (fs Fields[T]) ConvertFieldLabel(label, value string) (string, string, error) {
	supported := []string{"metadata.name", "metadata.namespace"}
	for _, f := range fs {
		supported = append(supported, f.Label)
	}
	if !slices.Contains(supported, label) {
		return "", "", fmt.Errorf("%q is not a known field selector: only %s", label, strings.Join(supported, ", "))
	}
	return label, value, nil
}
