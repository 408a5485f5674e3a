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
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TemplateCluster is the CLUSTER and the ADOPTION of a template, which lives in the fleet
// API, not in a member.
const TemplateCluster = "-"

// Part is the Table of one kind that one cluster answered.
type Part struct {
	// Cluster is the member's name, "" for the fleet's templates.
	Cluster string
	Mapping *meta.RESTMapping
	Table   *metav1.Table
}

// Group is the merged table of one kind.
type Group struct {
	Mapping *meta.RESTMapping
	Table   *metav1.Table
	// Merger maps the rows of each cluster into Table's columns.
	Merger *Merger
}

// Merge merges the parts into one table per kind, in the order the kinds first appear.
// The rows are sorted by namespace and name, those of one object in the order of the parts.
func Merge(parts []Part) []*Group {
	var order []schema.GroupResource
	mappings := map[schema.GroupResource]*meta.RESTMapping{}
	indexes := map[schema.GroupResource][]int{}
	for i, p := range parts {
		gr := p.Mapping.Resource.GroupResource()
		if _, seen := mappings[gr]; !seen {
			order = append(order, gr)
			mappings[gr] = p.Mapping
		}
		indexes[gr] = append(indexes[gr], i)
	}
	var groups []*Group
	for _, gr := range order {
		var tables []*metav1.Table
		for _, i := range indexes[gr] {
			tables = append(tables, parts[i].Table)
		}
		m := NewMerger(tables)
		merged := &metav1.Table{ColumnDefinitions: m.Columns}
		type keyed struct {
			ns, name string
			order    int
			row      metav1.TableRow
		}
		var rows []keyed
		for _, i := range indexes[gr] {
			p := parts[i]
			for _, row := range p.Table.Rows {
				ns, name := rowKey(p.Table, row)
				rows = append(rows, keyed{ns, name, i, m.Row(p.Cluster, p.Table.ColumnDefinitions, row)})
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
		groups = append(groups, &Group{Mapping: mappings[gr], Table: merged, Merger: m})
	}
	return groups
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

// Merger holds the columns of a merged table: the union of the sources' columns, by
// name, in their order, with CLUSTER after the name column and ADOPTION last.
type Merger struct {
	Columns []metav1.TableColumnDefinition
	index   map[string]int
	cluster int
}

// NewMerger merges the columns of tables.
func NewMerger(tables []*metav1.Table) *Merger {
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
	m := &Merger{cluster: name + 1}
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
func (m *Merger) Row(cluster string, cols []metav1.TableColumnDefinition, row metav1.TableRow) metav1.TableRow {
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
	adoption := TemplateCluster
	if cluster == "" {
		cells[m.cluster] = TemplateCluster
	} else {
		cells[m.cluster] = cluster
		adoption = "N"
		if row.Object.Object != nil {
			if acc, err := meta.Accessor(row.Object.Object); err == nil && acc.GetLabels()[federationv1alpha1.LabelManaged] == "true" {
				adoption = "Y"
			}
		}
	}
	cells[len(cells)-1] = adoption
	return metav1.TableRow{Cells: cells, Conditions: row.Conditions, Object: row.Object}
}
