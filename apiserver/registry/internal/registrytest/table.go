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

package registrytest

import (
	"context"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// CheckColumns tests, without a server, the table that columns print for
// c.Changed().
func CheckColumns[T registrykit.Object](t *testing.T, columns []registrykit.Column[T], c Case[T]) {
	t.Helper()
	table, err := registrykit.NewTableConvertor(schema.GroupResource{}, columns).ConvertToTable(context.Background(), c.Changed(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.CheckTable(t, table)
}

// CheckTable checks that table has the columns of c, wide ones after Age,
// and one row with the cells of c.Row.
func (c Case[T]) CheckTable(t *testing.T, table *metav1.Table) {
	t.Helper()
	var headers []string
	wide := false
	for _, d := range table.ColumnDefinitions {
		headers = append(headers, d.Name)
		if (d.Priority == 1) != wide {
			t.Errorf("column %s has priority %d", d.Name, d.Priority)
		}
		wide = wide || d.Name == "Age"
	}
	if !slices.Equal(headers, c.Columns) {
		t.Errorf("columns: got %q, want %q", headers, c.Columns)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(headers) {
		t.Fatalf("want one row of %d cells, got %#v", len(headers), table.Rows)
	}
	got := map[string]any{}
	for i, h := range headers {
		got[h] = table.Rows[0].Cells[i]
	}
	if age, ok := got["Age"].(string); !ok || age == "" {
		t.Errorf("Age: got %#v", got["Age"])
	}
	delete(got, "Age")
	if !apiequality.Semantic.DeepEqual(got, c.Row) {
		t.Errorf("row:\n got  %#v\n want %#v", got, c.Row)
	}
	if table.Rows[0].Object.Object == nil {
		t.Error("the row does not hold its object")
	}
	_ = table.DeepCopy() // panics unless every cell is a JSON value
}
