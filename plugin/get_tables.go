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

package plugin

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"
)

// tableRequest asks the server for a Table, as kubectl get does.
func tableRequest(req *rest.Request) {
	req.SetHeader("Accept", strings.Join([]string{
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1.SchemeGroupVersion.Version, metav1.GroupName),
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1beta1.SchemeGroupVersion.Version, metav1beta1.GroupName),
		"application/json",
	}, ","))
}

// decodeTable turns a server's answer into a Table whose rows carry their objects
// (metadata only, by default). An answer that is no Table gets one with the names.
func decodeTable(obj runtime.Object) (*metav1.Table, error) {
	if t, ok := obj.(*metav1.Table); ok {
		return t, nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	gvk := obj.GetObjectKind().GroupVersionKind()
	if ok && gvk.Kind == "Table" && (gvk.GroupVersion() == metav1.SchemeGroupVersion || gvk.GroupVersion() == metav1beta1.SchemeGroupVersion) {
		t := &metav1.Table{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, t); err != nil {
			return nil, err
		}
		for i := range t.Rows {
			row := &t.Rows[i]
			if row.Object.Raw == nil || row.Object.Object != nil {
				continue
			}
			o, err := runtime.Decode(unstructured.UnstructuredJSONScheme, row.Object.Raw)
			if err != nil {
				return nil, err
			}
			row.Object.Object = o
		}
		return t, nil
	}
	// No Table from this server: the objects' names and ages.
	var items []runtime.Object
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
	} else {
		items = []runtime.Object{obj}
	}
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Age", Type: "string"},
	}}
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), translateAge(m.GetCreationTimestamp())},
			Object: runtime.RawExtension{Object: item},
		})
	}
	return t, nil
}

func translateAge(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

// tableGroup is the merged table of one kind.
type tableGroup struct {
	Mapping *meta.RESTMapping
	Table   *metav1.Table
	// Merger maps the rows of each source into Table's columns.
	Merger *tableMerger
}

// mergeResults merges the Tables of every source, one table per kind in the order the
// kinds first appear.
func mergeResults(results []sourceResult) ([]*tableGroup, error) {
	type part struct {
		template bool
		cluster  string
		order    int
		table    *metav1.Table
	}
	var order []schema.GroupResource
	mappings := map[schema.GroupResource]*meta.RESTMapping{}
	parts := map[schema.GroupResource][]part{}
	for i, r := range results {
		if r.Err != nil {
			continue
		}
		for _, info := range r.Infos {
			t, ok := info.Object.(*metav1.Table)
			if !ok {
				return nil, fmt.Errorf("%s: not a Table: %T", r.Source.label(), info.Object)
			}
			gr := info.Mapping.Resource.GroupResource()
			if _, seen := mappings[gr]; !seen {
				order = append(order, gr)
				mappings[gr] = info.Mapping
			}
			parts[gr] = append(parts[gr], part{r.Source.template(), r.Source.Cluster, i, t})
		}
	}
	var groups []*tableGroup
	for _, gr := range order {
		var tables []*metav1.Table
		for _, p := range parts[gr] {
			tables = append(tables, p.table)
		}
		m := newTableMerger(tables)
		merged := &metav1.Table{ColumnDefinitions: m.Columns}
		type keyed struct {
			ns, name string
			order    int
			row      metav1.TableRow
		}
		var rows []keyed
		for _, p := range parts[gr] {
			for _, row := range p.table.Rows {
				ns, name := rowKey(p.table, row)
				rows = append(rows, keyed{ns, name, p.order, m.Row(p.cluster, p.table.ColumnDefinitions, row)})
			}
		}
		sort.SliceStable(rows, func(i, j int) bool {
			a, b := rows[i], rows[j]
			if a.ns != b.ns {
				return a.ns < b.ns
			}
			if a.name != b.name {
				return a.name < b.name
			}
			return a.order < b.order
		})
		for _, r := range rows {
			merged.Rows = append(merged.Rows, r.row)
		}
		groups = append(groups, &tableGroup{Mapping: mappings[gr], Table: merged, Merger: m})
	}
	return groups, nil
}

// rowKey is the namespace and name of a row, from its object or else its name cell.
func rowKey(t *metav1.Table, row metav1.TableRow) (string, string) {
	if row.Object.Object != nil {
		if m, err := meta.Accessor(row.Object.Object); err == nil {
			return m.GetNamespace(), m.GetName()
		}
	}
	if i := nameColumn(t.ColumnDefinitions); i >= 0 && i < len(row.Cells) {
		return "", fmt.Sprint(row.Cells[i])
	}
	return "", ""
}

// nameColumn is the index of the name column, -1 if none.
func nameColumn(cols []metav1.TableColumnDefinition) int {
	for i, c := range cols {
		if c.Format == "name" {
			return i
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, "name") {
			return i
		}
	}
	return -1
}

// tableMerger holds the columns of a merged table: the union of the sources' columns, by
// name, in their order, with CLUSTER after the name column and ADOPTION last.
type tableMerger struct {
	Columns []metav1.TableColumnDefinition
	index   map[string]int
	cluster int
}

// newTableMerger merges the columns of tables.
func newTableMerger(tables []*metav1.Table) *tableMerger {
	var cols []metav1.TableColumnDefinition
	pos := map[string]int{}
	for _, t := range tables {
		prev := -1 // position in cols of this table's previous column
		for _, c := range t.ColumnDefinitions {
			if p, ok := pos[c.Name]; ok {
				prev = p
				continue
			}
			at := prev + 1
			cols = append(cols[:at], append([]metav1.TableColumnDefinition{c}, cols[at:]...)...)
			for n, p := range pos {
				if p >= at {
					pos[n] = p + 1
				}
			}
			pos[c.Name] = at
			prev = at
		}
	}
	name := nameColumn(cols)
	if name < 0 {
		cols = append([]metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}}, cols...)
		name = 0
	}
	m := &tableMerger{cluster: name + 1}
	m.Columns = append(m.Columns, cols[:name+1]...)
	m.Columns = append(m.Columns, metav1.TableColumnDefinition{Name: "Cluster", Type: "string",
		Description: "The member cluster of the object, - for a template of the fleet."})
	m.Columns = append(m.Columns, cols[name+1:]...)
	m.Columns = append(m.Columns, metav1.TableColumnDefinition{Name: "Adoption", Type: "string",
		Description: "Y when fed manages the member object, N when it does not, - for a template."})
	m.index = map[string]int{}
	for i, c := range m.Columns[:len(m.Columns)-1] {
		if i != m.cluster {
			m.index[c.Name] = i
		}
	}
	return m
}

// Row maps a row of a source (cluster "" for the fleet) whose table has cols into the
// merged columns. Cells of columns the source lacks are empty.
func (m *tableMerger) Row(cluster string, cols []metav1.TableColumnDefinition, row metav1.TableRow) metav1.TableRow {
	cells := make([]any, len(m.Columns))
	for i := range cells {
		cells[i] = ""
	}
	nameIdx := nameColumn(cols)
	for i, c := range cols {
		if i >= len(row.Cells) {
			break
		}
		if j, ok := m.index[c.Name]; ok {
			cells[j] = row.Cells[i]
		}
	}
	if nameIdx < 0 && row.Object.Object != nil {
		if acc, err := meta.Accessor(row.Object.Object); err == nil {
			cells[m.cluster-1] = acc.GetName()
		}
	}
	adoption := templateCluster
	if cluster == "" {
		cells[m.cluster] = templateCluster
	} else {
		cells[m.cluster] = cluster
		adoption = "N"
		if row.Object.Object != nil {
			if acc, err := meta.Accessor(row.Object.Object); err == nil && acc.GetLabels()[LabelManagedBy] == "true" {
				adoption = "Y"
			}
		}
	}
	cells[len(cells)-1] = adoption
	return metav1.TableRow{Cells: cells, Conditions: row.Conditions, Object: row.Object}
}

// printTables prints the merged tables with kubectl's table printer, a blank line between
// kinds, and tells whether it printed a row.
func (o *GetOptions) printTables(out io.Writer, groups []*tableGroup) (bool, error) {
	withKind := len(groups) > 1
	w := printers.GetNewTabWriter(out)
	defer w.Flush()
	printed := false
	for _, g := range groups {
		if len(g.Table.Rows) == 0 {
			continue
		}
		p, err := o.tablePrinter(g.Mapping, withKind)
		if err != nil {
			return printed, err
		}
		if printed {
			w.Flush()
			w.SetRememberedWidths(nil)
			if !*o.PrintFlags.NoHeaders {
				fmt.Fprintln(w)
			}
		}
		if err := p.PrintObj(g.Table, w); err != nil {
			return printed, err
		}
		printed = true
	}
	return printed, nil
}

// tablePrinter is kubectl's table printer for a kind.
func (o *GetOptions) tablePrinter(mapping *meta.RESTMapping, withKind bool) (printers.ResourcePrinter, error) {
	pf := o.PrintFlags.Copy()
	human := *pf.HumanReadableFlags
	pf.HumanReadableFlags = &human
	if mapping != nil {
		pf.SetKind(mapping.GroupVersionKind.GroupKind())
	}
	if o.AllNamespaces && (mapping == nil || mapping.Scope.Name() != meta.RESTScopeNameRoot) {
		if err := pf.EnsureWithNamespace(); err != nil {
			return nil, err
		}
	}
	if withKind {
		if err := pf.EnsureWithKind(); err != nil {
			return nil, err
		}
	}
	return pf.ToPrinter()
}
