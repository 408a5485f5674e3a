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
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Column is one column of the table that `kubectl get` prints for a kind.
// Every table starts with Name and has Age after the columns that are not
// Wide; Wide columns follow, shown only by `kubectl get -o wide`.
type Column[T any] struct {
	// Name is the header; kubectl prints it in upper case.
	Name string
	// Type is the OpenAPI type of the cells: "string", "integer", ...
	Type        string
	Description string
	Wide        bool
	// Cell returns the cell of obj: a string, int64, float64, bool or nil,
	// the JSON values a metav1.TableRow can hold.
	Cell func(obj T) any
}

var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

type tableConvertor[T Object] struct {
	resource    schema.GroupResource
	definitions []metav1.TableColumnDefinition
	cells       []func(T) any
}

var _ rest.TableConvertor = &tableConvertor[Object]{}

// NewTableConvertor returns the server-side printer of a kind with the given
// columns between Name and Age (and after Age for Wide ones).
func NewTableConvertor[T Object](resource schema.GroupResource, columns []Column[T]) rest.TableConvertor {
	ordered := []Column[T]{{Name: "Name", Type: "string", Description: objectMetaDoc["name"],
		Cell: func(o T) any { return o.GetName() }}}
	for _, c := range columns {
		if !c.Wide {
			ordered = append(ordered, c)
		}
	}
	ordered = append(ordered, Column[T]{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"],
		Cell: func(o T) any { return Age(o.GetCreationTimestamp()) }})
	for _, c := range columns {
		if c.Wide {
			ordered = append(ordered, c)
		}
	}
	tc := &tableConvertor[T]{resource: resource}
	for _, c := range ordered {
		d := metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Description: c.Description}
		if c.Name == "Name" {
			d.Format = "name"
		}
		if c.Wide {
			d.Priority = 1
		}
		tc.definitions = append(tc.definitions, d)
		tc.cells = append(tc.cells, c.Cell)
	}
	return tc
}

// ConvertToTable prints one object or a list of them, one row each.
func (c *tableConvertor[T]) ConvertToTable(_ context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		table.ColumnDefinitions = slices.Clone(c.definitions)
	}
	addRow := func(obj runtime.Object) error {
		o, ok := obj.(T)
		if !ok {
			return fmt.Errorf("cannot print %T as a row of %s", obj, c.resource)
		}
		row := metav1.TableRow{Cells: make([]any, 0, len(c.cells)), Object: runtime.RawExtension{Object: obj}}
		for _, cell := range c.cells {
			row.Cells = append(row.Cells, cell(o))
		}
		table.Rows = append(table.Rows, row)
		return nil
	}
	if meta.IsListType(object) {
		if err := meta.EachListItem(object, addRow); err != nil {
			return nil, err
		}
	} else if err := addRow(object); err != nil {
		return nil, err
	}
	if l, err := meta.ListAccessor(object); err == nil {
		table.ResourceVersion = l.GetResourceVersion()
		table.Continue = l.GetContinue()
		table.RemainingItemCount = l.GetRemainingItemCount()
	} else if m, err := meta.CommonAccessor(object); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	return table, nil
}

// Age prints the time since t as kubectl does, "<unknown>" for no time.
func Age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}

// OrNone returns s, or "<none>" when s is empty, as kubectl prints an
// unset optional field.
func OrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// ConditionStatus returns the status of the condition of type condType:
// True, False, or Unknown when there is none.
func ConditionStatus(conditions []metav1.Condition, condType string) string {
	if c := meta.FindStatusCondition(conditions, condType); c != nil {
		return string(c.Status)
	}
	return string(metav1.ConditionUnknown)
}

// ResourceList prints a resource list as kubectl prints the lists of a
// ResourceQuota, "cpu: 4, memory: 8Gi", sorted by name; "<none>" when empty.
func ResourceList(list corev1.ResourceList) string {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	slices.Sort(names)
	items := make([]string, 0, len(names))
	for _, name := range names {
		q := list[corev1.ResourceName(name)]
		items = append(items, name+": "+q.String())
	}
	return OrNone(strings.Join(items, ", "))
}
