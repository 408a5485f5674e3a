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

// Package tables prints the fleet's templates of native kinds as the Tables
// kube-apiserver serves for them, so that `kubectl get` shows the columns it
// shows from a cluster. Templates are not defaulted; where a field the
// apiserver would default is unset, the cell shows the default (a Deployment
// with no replicas wants 1, a Service with no type is a ClusterIP, ...).
package tables

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/rest"
	sigsjson "sigs.k8s.io/json"
)

// For returns the table convertor for a native kind, or nil when the package does not know
// the kind (the caller then uses rest.NewDefaultTableConvertor: NAME, CREATED AT).
func For(gk schema.GroupKind) rest.TableConvertor {
	return convertors[gk]
}

// printer returns the row of one template, without its Object; fromJSON, where
// set, prints straight from an object's JSON and returns its metadata too.
type printer struct {
	fromMap  func(u *unstructured.Unstructured) (metav1.TableRow, error)
	fromJSON func(data []byte) (metav1.TableRow, *metav1.ObjectMeta, error)
}

// untyped returns the printer that reads the template's fields itself.
func untyped(print func(u *unstructured.Unstructured) (metav1.TableRow, error)) printer {
	return printer{fromMap: print}
}

// typed returns the printer that decodes an object into the native type T,
// which print prints.
func typed[T any, PT interface {
	*T
	GetObjectMeta() metav1.Object
}](print func(obj PT) metav1.TableRow) printer {
	return printer{
		fromMap: func(u *unstructured.Unstructured) (metav1.TableRow, error) {
			obj := PT(new(T))
			if err := decode(u, obj); err != nil {
				return metav1.TableRow{}, err
			}
			return print(obj), nil
		},
		// Decoding JSON into T at once costs a third of going through a map.
		fromJSON: func(data []byte) (metav1.TableRow, *metav1.ObjectMeta, error) {
			obj := PT(new(T))
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
				return metav1.TableRow{}, nil, fmt.Errorf("cannot print %T: %w", obj, err)
			}
			m, _ := obj.GetObjectMeta().(*metav1.ObjectMeta)
			return print(obj), m, nil
		},
	}
}

func decode(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("cannot print %s %q: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

// JSONPrinter is a convertor that also prints objects straight from their JSON, for
// callers that hold JSON rather than templates.
type JSONPrinter interface {
	rest.TableConvertor
	// Columns are the table's columns.
	Columns() []metav1.TableColumnDefinition
	// PrintJSON returns the row of one object, without its Object, and its metadata.
	PrintJSON(data []byte) (metav1.TableRow, *metav1.ObjectMeta, error)
}

// ForJSON returns the JSONPrinter of a native kind, or nil when there is none (For may
// still have a convertor of it).
func ForJSON(gk schema.GroupKind) JSONPrinter {
	if c, ok := convertors[gk].(*convertor); ok && c.print.fromJSON != nil {
		return c
	}
	return nil
}

// columns are the columns of a table, in order.
type columns = []metav1.TableColumnDefinition

// convertor prints the templates of one kind in its columns.
type convertor struct {
	columns columns
	print   printer
}

// newConvertor returns the convertor that prints in the concatenation of cols.
func newConvertor(print printer, cols ...columns) rest.TableConvertor {
	return &convertor{columns: slices.Concat(cols...), print: print}
}

// ConvertToTable prints an *unstructured.Unstructured or the items of an
// *unstructured.UnstructuredList, one row each.
func (c *convertor) ConvertToTable(_ context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	addRow := func(u *unstructured.Unstructured) error {
		row, err := c.print.fromMap(u)
		if err != nil {
			return err
		}
		row.Object = runtime.RawExtension{Object: u}
		table.Rows = append(table.Rows, row)
		return nil
	}
	switch o := object.(type) {
	case *unstructured.Unstructured:
		if err := addRow(o); err != nil {
			return nil, err
		}
		table.ResourceVersion = o.GetResourceVersion()
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			if err := addRow(&o.Items[i]); err != nil {
				return nil, err
			}
		}
		table.ResourceVersion = o.GetResourceVersion()
		table.Continue = o.GetContinue()
		table.RemainingItemCount = o.GetRemainingItemCount()
	default:
		return nil, fmt.Errorf("cannot print %T as a table of templates", object)
	}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		table.ColumnDefinitions = slices.Clone(c.columns)
	}
	return table, nil
}

// Columns are the table's columns.
func (c *convertor) Columns() []metav1.TableColumnDefinition {
	return slices.Clone(c.columns)
}

// PrintJSON returns the row of one object, without its Object, and its metadata.
func (c *convertor) PrintJSON(data []byte) (metav1.TableRow, *metav1.ObjectMeta, error) {
	return c.print.fromJSON(data)
}

// cells returns a row of the given cells.
func cells(cells ...any) metav1.TableRow {
	return metav1.TableRow{Cells: cells}
}

// column defines a column; kubectl prints name in upper case.
func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

// wide marks c as shown only by `kubectl get -o wide`.
func wide(c metav1.TableColumnDefinition) metav1.TableColumnDefinition {
	c.Priority = 1
	return c
}

var (
	objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

	nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name",
		Description: objectMetaDoc["name"]}
	ageColumn       = column("Age", "string", objectMetaDoc["creationTimestamp"])
	createdAtColumn = column("Created At", "date", objectMetaDoc["creationTimestamp"])
	// containerColumns are the wide Containers and Images of kinds with a
	// pod template, which containers prints.
	containerColumns = columns{
		wide(column("Containers", "string", "Names of each container in the template.")),
		wide(column("Images", "string", "Images referenced by each container in the template.")),
	}
)

// selectorColumn is the wide Selector column, described by doc.
func selectorColumn(doc string) metav1.TableColumnDefinition {
	return wide(column("Selector", "string", doc))
}

// age prints the time since t as kubectl does, "<unknown>" for no time.
func age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// containers returns the cells of containerColumns: the names and images of
// the containers of spec, comma-separated.
func containers(spec corev1.PodSpec) (names, images string) {
	n := make([]string, len(spec.Containers))
	i := make([]string, len(spec.Containers))
	for j, c := range spec.Containers {
		n[j], i[j] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}
