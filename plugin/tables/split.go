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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cacheClusterColumn is the first column of the search cache's Tables.
const cacheClusterColumn = "Cluster"

// SplitByCluster splits a Table of the search cache, whose first column names the cluster
// of each row, into one Part per cluster without that column, the shape a member's own
// answer has: first one per name of clusters (without rows when the cache had none of that
// cluster), then one per other cluster, in the order their rows come. cols are the columns
// of the first Table of the same list or watch, for a Table that has none (a watch's events
// after the first). A Table without rows and without clusters is one Part of cluster "",
// so that its columns are known.
func SplitByCluster(t *metav1.Table, cols []metav1.TableColumnDefinition, mapping *meta.RESTMapping, clusters []string) ([]Part, error) {
	if len(t.ColumnDefinitions) > 0 {
		cols = t.ColumnDefinitions
	}
	if len(cols) == 0 || cols[0].Name != cacheClusterColumn {
		return nil, fmt.Errorf("a Table of the search cache without its %s column first", cacheClusterColumn)
	}
	var parts []Part
	index := map[string]int{}
	add := func(cluster string) int {
		i, ok := index[cluster]
		if !ok {
			i = len(parts)
			index[cluster] = i
			parts = append(parts, Part{Cluster: cluster, Mapping: mapping, Table: &metav1.Table{
				TypeMeta: t.TypeMeta, ListMeta: t.ListMeta, ColumnDefinitions: cols[1:],
			}})
		}
		return i
	}
	for _, c := range clusters {
		add(c)
	}
	for _, row := range t.Rows {
		if len(row.Cells) == 0 {
			return nil, fmt.Errorf("a row of the search cache without cells")
		}
		cluster, ok := row.Cells[0].(string)
		if !ok || cluster == "" {
			return nil, fmt.Errorf("a row of the search cache without its cluster: %v", row.Cells[0])
		}
		p := parts[add(cluster)].Table
		row.Cells = row.Cells[1:]
		p.Rows = append(p.Rows, row)
	}
	if len(parts) == 0 {
		add("")
	}
	return parts, nil
}
