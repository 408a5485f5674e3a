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
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedhq/fed/apis/cluster"
)

var testColumns = []Column[*cluster.Cluster]{
	{Name: "Region", Type: "string", Wide: true, Cell: func(c *cluster.Cluster) any { return OrNone(c.Spec.Region) }},
	{Name: "Ready", Type: "string", Cell: func(c *cluster.Cluster) any {
		return ConditionStatus(c.Status.Conditions, cluster.ClusterConditionReady)
	}},
}

func testCluster(name string, created time.Time) *cluster.Cluster {
	return &cluster.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "7", CreationTimestamp: metav1.NewTime(created)}}
}

func TestConvertToTable(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour)
	ready := testCluster("b", hourAgo)
	ready.Spec.Region = "eu"
	ready.Status.Conditions = []metav1.Condition{{Type: cluster.ClusterConditionReady, Status: metav1.ConditionTrue}}
	list := &cluster.ClusterList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next"},
		Items: []cluster.Cluster{*testCluster("a", time.Time{}), *ready}}
	tests := []struct {
		name        string
		object      runtime.Object
		options     runtime.Object
		wantHeaders []string
		wantCells   [][]any
		wantRV      string
	}{
		{name: "object", object: ready, wantHeaders: []string{"Name", "Ready", "Age", "Region"},
			wantCells: [][]any{{"b", "True", "60m", "eu"}}, wantRV: "7"},
		{name: "list", object: list, options: &metav1.TableOptions{}, wantHeaders: []string{"Name", "Ready", "Age", "Region"},
			wantCells: [][]any{{"a", "Unknown", "<unknown>", "<none>"}, {"b", "True", "60m", "eu"}}, wantRV: "9"},
		{name: "no headers", object: ready, options: &metav1.TableOptions{NoHeaders: true},
			wantCells: [][]any{{"b", "True", "60m", "eu"}}, wantRV: "7"},
	}
	convertor := NewTableConvertor(cluster.Resource("clusters"), testColumns)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table, err := convertor.ConvertToTable(context.Background(), tc.object, tc.options)
			if err != nil {
				t.Fatal(err)
			}
			var headers []string
			for i, d := range table.ColumnDefinitions {
				headers = append(headers, d.Name)
				if wide := i == 3; (d.Priority == 1) != wide {
					t.Errorf("column %s: priority %d", d.Name, d.Priority)
				}
			}
			if !slices.Equal(headers, tc.wantHeaders) {
				t.Errorf("headers: got %q, want %q", headers, tc.wantHeaders)
			}
			var cells [][]any
			for _, row := range table.Rows {
				cells = append(cells, row.Cells)
				if row.Object.Object == nil {
					t.Error("row without its object")
				}
			}
			if !slices.EqualFunc(cells, tc.wantCells, slices.Equal) {
				t.Errorf("cells: got %v, want %v", cells, tc.wantCells)
			}
			if table.ResourceVersion != tc.wantRV {
				t.Errorf("resourceVersion: got %q, want %q", table.ResourceVersion, tc.wantRV)
			}
			_ = table.DeepCopy()
		})
	}
}

func TestConvertToTableOfAnotherKind(t *testing.T) {
	convertor := NewTableConvertor[*cluster.Cluster](cluster.Resource("clusters"), nil)
	if _, err := convertor.ConvertToTable(context.Background(), &metav1.Status{}, nil); err == nil {
		t.Error("want an error for a Status")
	}
}

func TestResourceList(t *testing.T) {
	tests := map[string]struct {
		list corev1.ResourceList
		want string
	}{
		"none":  {want: "<none>"},
		"empty": {list: corev1.ResourceList{}, want: "<none>"},
		"sorted, as given": {list: corev1.ResourceList{
			"requests.memory": resource.MustParse("8Gi"), "cpu": resource.MustParse("4"), "example.com/gpu": resource.MustParse("2"),
			"requests.cpu": resource.MustParse("1500m"), "pods": resource.MustParse("10"),
		}, want: "cpu: 4, example.com/gpu: 2, pods: 10, requests.cpu: 1500m, requests.memory: 8Gi"},
	}
	for name, tc := range tests {
		if got := ResourceList(tc.list); got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}
