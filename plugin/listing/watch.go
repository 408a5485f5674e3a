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
	"context"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/tables"
	"github.com/fedhq/fed/plugin/watching"
)

// watch watches every source that answered and prints the changes as they come.
func (o *Options) watch(ctx context.Context, results []sourceResult, human bool) error {
	var mu sync.Mutex
	w := printers.GetNewTabWriter(o.Out)
	var printTable func(cluster string, cols []metav1.TableColumnDefinition, t *metav1.Table) error
	var printer printers.ResourcePrinter
	if human {
		parts, err := tableParts(results)
		if err != nil {
			return err
		}
		groups := tables.Merge(parts)
		if len(groups) == 0 {
			return nil
		}
		g := groups[0]
		if printer, err = tables.Printer(o.PrintFlags, g.Mapping, o.AllNamespaces, false); err != nil {
			return err
		}
		if !o.WatchOnly {
			if err := printer.PrintObj(g.Table, w); err != nil {
				return err
			}
			w.Flush()
		}
		printTable = func(cluster string, cols []metav1.TableColumnDefinition, t *metav1.Table) error {
			if len(t.ColumnDefinitions) > 0 {
				cols = t.ColumnDefinitions
			}
			merged := &metav1.Table{ColumnDefinitions: g.Merger.Columns}
			for _, row := range t.Rows {
				merged.Rows = append(merged.Rows, g.Merger.Row(cluster, cols, row))
			}
			return printer.PrintObj(merged, w)
		}
	} else {
		var err error
		if printer, err = o.PrintFlags.ToPrinter(); err != nil {
			return err
		}
		if !o.WatchOnly {
			items, err := memberItems(results)
			if err != nil {
				return err
			}
			for _, u := range items {
				if err := printer.PrintObj(u, w); err != nil {
					return err
				}
			}
			w.Flush()
		}
	}

	var wg sync.WaitGroup
	errs := make([]error, len(results))
	for i, r := range results {
		if r.Err != nil || len(r.Infos) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = o.watchSource(ctx, r, human, func(obj runtime.Object) error {
				mu.Lock()
				defer mu.Unlock()
				defer w.Flush()
				if human {
					t, err := tables.Decode(obj)
					if err != nil {
						return err
					}
					var cols []metav1.TableColumnDefinition
					if first, ok := r.Infos[0].Object.(*metav1.Table); ok {
						cols = first.ColumnDefinitions
					}
					if r.Source.Cache == nil {
						return printTable(r.Source.Cluster, cols, t)
					}
					// The cache's Table has the cluster first: split as its list was.
					parts, err := tables.SplitByCluster(t, cols, nil, nil)
					if err != nil {
						return err
					}
					for _, p := range parts {
						if len(p.Table.Rows) == 0 {
							continue
						}
						if err := printTable(p.Cluster, p.Table.ColumnDefinitions, p.Table); err != nil {
							return err
						}
					}
					return nil
				}
				u, ok := obj.(*unstructured.Unstructured)
				if ok {
					fleet.SetCluster(u, r.Source.clusterOf(u))
				}
				return printer.PrintObj(obj, w)
			})
			if errs[i] != nil {
				mu.Lock()
				fmt.Fprintf(o.ErrOut, "Warning: %s: %v\n", r.Source.label(), errs[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var names []string
	for i, err := range errs {
		if err != nil {
			names = append(names, results[i].Source.label())
		}
	}
	if len(names) > 0 {
		return fmt.Errorf("watch ended with errors: %s", strings.Join(names, ", "))
	}
	return nil
}

// watchSource watches one source from the resourceVersion of its list. The search cache's
// watch is resumed from where it was each time the host ends it (at its request timeout).
func (o *Options) watchSource(ctx context.Context, r sourceResult, human bool, print func(runtime.Object) error) error {
	rv := watching.From(r.Infos[0].Object)
	var b *resource.Builder
	if r.Source.Cache != nil {
		b = o.cacheBuilder(r.Source, r.Source.Cache.Queries[0], human)
	} else {
		var transforms []resource.RequestTransform
		if human {
			transforms = append(transforms, tables.AcceptTable)
		}
		b = o.newBuilder(r.Source.Getter, r.Source.Args, o.FieldSelector, transforms...)
	}
	res := b.SingleResourceType().Do()
	if err := res.Err(); err != nil {
		return err
	}
	if r.Source.Cache != nil {
		return watching.Resume(ctx, rv, res.Watch, print)
	}
	w, err := res.Watch(rv)
	if err != nil {
		return err
	}
	return watching.Each(ctx, w, print)
}
