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
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var cacheColumns = []metav1.TableColumnDefinition{{Name: "Cluster"}, {Name: "Name", Format: "name"}, {Name: "Status"}}

// summary is "cluster: name,name" of each part, and the column names of the first part.
func summary(parts []Part) string {
	var out []string
	for _, p := range parts {
		var names []string
		for _, r := range p.Table.Rows {
			names = append(names, fmt.Sprint(r.Cells...))
		}
		out = append(out, p.Cluster+":"+strings.Join(names, ","))
	}
	if len(parts) > 0 {
		var cols []string
		for _, c := range parts[0].Table.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		out = append(out, "cols "+strings.Join(cols, ","))
	}
	return strings.Join(out, " | ")
}

func TestSplitByCluster(t *testing.T) {
	rows := []metav1.TableRow{
		row(metaObject("ns", "a", nil), "member1", "a", "Running"),
		row(metaObject("ns", "b", nil), "member1", "b", "Pending"),
		row(metaObject("ns", "a", nil), "member3", "a", "Running"),
	}
	for _, tc := range []struct {
		name     string
		table    *metav1.Table
		cols     []metav1.TableColumnDefinition
		clusters []string
		want     string
		err      string
	}{
		{name: "rows of two clusters", table: &metav1.Table{ColumnDefinitions: cacheColumns, Rows: rows},
			want: "member1:aRunning,bPending | member3:aRunning | cols Name,Status"},
		{name: "the clusters asked for first, empty ones kept", table: &metav1.Table{ColumnDefinitions: cacheColumns, Rows: rows},
			clusters: []string{"member3", "member2"},
			want:     "member3:aRunning | member2: | member1:aRunning,bPending | cols Name,Status"},
		{name: "a watch event: the columns of the list", table: &metav1.Table{Rows: rows[2:]}, cols: cacheColumns,
			want: "member3:aRunning | cols Name,Status"},
		{name: "nothing found: one part with the columns", table: &metav1.Table{ColumnDefinitions: cacheColumns},
			want: ": | cols Name,Status"},
		{name: "not a cache Table", table: &metav1.Table{ColumnDefinitions: cacheColumns[1:], Rows: rows},
			err: "without its Cluster column first"},
		{name: "a row without its cluster", table: &metav1.Table{ColumnDefinitions: cacheColumns, Rows: []metav1.TableRow{row(nil, "", "a", "x")}},
			err: "without its cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fmt.Sprint(tc.table.Rows)
			parts, err := SplitByCluster(tc.table, tc.cols, nil, tc.clusters)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(parts); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if after := fmt.Sprint(tc.table.Rows); after != before {
				t.Errorf("the cache's Table changed: %s, was %s", after, before)
			}
		})
	}
}

// A split cache Table merges into the table the members' own answers make.
func TestSplitMergesLikeMembers(t *testing.T) {
	cols := cacheColumns[1:]
	pods := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Scope: meta.RESTScopeNamespace}
	members := []Part{
		{Cluster: "member1", Mapping: pods, Table: &metav1.Table{ColumnDefinitions: cols, Rows: []metav1.TableRow{row(metaObject("ns", "a", nil), "a", "Running")}}},
		{Cluster: "member2", Mapping: pods, Table: &metav1.Table{ColumnDefinitions: cols, Rows: []metav1.TableRow{row(metaObject("ns", "a", nil), "a", "Pending")}}},
	}
	cache := &metav1.Table{ColumnDefinitions: cacheColumns, Rows: []metav1.TableRow{
		row(metaObject("ns", "a", nil), "member1", "a", "Running"),
		row(metaObject("ns", "a", nil), "member2", "a", "Pending"),
	}}
	parts, err := SplitByCluster(cache, nil, pods, []string{"member1", "member2"})
	if err != nil {
		t.Fatal(err)
	}
	got, want := Merge(parts), Merge(members)
	if !reflect.DeepEqual(got[0].Table, want[0].Table) {
		t.Errorf("from the cache %+v\nfrom the members %+v", got[0].Table, want[0].Table)
	}
}
