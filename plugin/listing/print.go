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

package listing

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/tables"
)

// memberItems returns the items of the results, each member item annotated with its
// cluster, sorted by namespace, name and cluster (templates first; the clusters of the
// search cache in the order of its members).
func memberItems(results []sourceResult) ([]*unstructured.Unstructured, error) {
	type keyed struct {
		ns, name    string
		order, rank int
		obj         *unstructured.Unstructured
	}
	var items []keyed
	for i, r := range results {
		if r.Err != nil {
			continue
		}
		for _, info := range r.Infos {
			var objs []runtime.Object
			if meta.IsListType(info.Object) {
				var err error
				if objs, err = meta.ExtractList(info.Object); err != nil {
					return nil, err
				}
			} else {
				objs = []runtime.Object{info.Object}
			}
			for _, obj := range objs {
				u, ok := obj.(*unstructured.Unstructured)
				if !ok {
					m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
					if err != nil {
						return nil, err
					}
					u = &unstructured.Unstructured{Object: m}
				}
				cluster := r.Source.clusterOf(u)
				fleet.SetCluster(u, cluster)
				rank := 0
				if r.Source.Cache != nil {
					if rank = slices.Index(r.Source.Cache.Members, cluster); rank < 0 {
						rank = len(r.Source.Cache.Members)
					}
				}
				items = append(items, keyed{u.GetNamespace(), u.GetName(), i, rank, u})
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		if a.name != b.name {
			return a.name < b.name
		}
		if a.order != b.order {
			return a.order < b.order
		}
		return a.rank < b.rank
	})
	out := make([]*unstructured.Unstructured, len(items))
	for i, k := range items {
		out[i] = k.obj
	}
	return out, nil
}

// printObjects prints the items of every source as one v1 List, as kubectl get -o does, or
// the single object asked for by name.
func (o *Options) printObjects(out io.Writer, results []sourceResult) (bool, error) {
	items, err := memberItems(results)
	if err != nil {
		return false, err
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return false, err
	}
	if len(items) == 0 && (o.IgnoreNotFound || o.named()) {
		// Nothing of what was asked by name: kubectl prints no empty List, only NotFound.
		return false, nil
	}
	if len(items) == 1 && o.singleItem() {
		return true, p.PrintObj(items[0], out)
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": ""},
	}}
	for _, u := range items {
		list.Items = append(list.Items, *u)
	}
	return len(items) > 0, p.PrintObj(list, out)
}

// named tells whether the arguments name objects (TYPE NAME..., or TYPE/NAME...).
func (o *Options) named() bool {
	return len(o.Args) > 1 || strings.Contains(o.Args[0], "/")
}

// singleItem tells whether the arguments name one object (TYPE NAME or TYPE/NAME), which
// kubectl prints alone rather than in a List.
func (o *Options) singleItem() bool {
	if strings.Contains(o.Args[0], "/") {
		return len(o.Args) == 1
	}
	return len(o.Args) == 2 && !strings.Contains(o.Args[0], ",")
}

// tableParts are the Tables the sources answered, for tables.Merge; those of the search
// cache split by cluster.
func tableParts(results []sourceResult) ([]tables.Part, error) {
	var parts []tables.Part
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		for _, info := range r.Infos {
			t, ok := info.Object.(*metav1.Table)
			if !ok {
				return nil, fmt.Errorf("%s: not a Table: %T", r.Source.label(), info.Object)
			}
			if r.Source.Cache != nil {
				split, err := tables.SplitByCluster(t, nil, info.Mapping, r.Source.Cache.Members)
				if err != nil {
					return nil, err
				}
				parts = append(parts, split...)
				continue
			}
			parts = append(parts, tables.Part{Cluster: r.Source.Cluster, Mapping: info.Mapping, Table: t})
		}
	}
	return parts, nil
}
