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

package tables

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// metaObject is the PartialObjectMetadata of a Table row.
func metaObject(ns, name string, labels map[string]string) runtime.Object {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("meta.k8s.io/v1")
	u.SetKind("PartialObjectMetadata")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func row(obj runtime.Object, cells ...any) metav1.TableRow {
	return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}
}

func TestTableMergerColumns(t *testing.T) {
	a := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Format: "name"}, {Name: "Ready"}, {Name: "Age"}}}
	b := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Format: "name"}, {Name: "Ready"}, {Name: "Status"}, {Name: "Age"}, {Name: "IP"}}}
	m := NewMerger([]*metav1.Table{a, b})
	var names []string
	for _, c := range m.Columns {
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, ","), "Name,Cluster,Ready,Status,Age,IP,Adoption"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	r := m.Row("member1", a.ColumnDefinitions, row(metaObject("ns", "x", nil), "x", "1/1", "5m"))
	if got := r.Cells; !reflect.DeepEqual(got, []any{"x", "member1", "1/1", "", "5m", "", "N"}) {
		t.Errorf("cells %v", got)
	}
}
