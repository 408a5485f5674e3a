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

// Package metrics serves metrics.k8s.io/v1beta1 for the fleet: the PodMetrics and
// NodeMetrics of every member, read by the metricsadapter, each labelled with its cluster.
// fed-apiserver does not register it with the host (the host's own metrics.k8s.io stays
// the host's); the fleet API and the fleet proxy serve it, so that kubectl top pointed at
// either shows the whole fleet.
package metrics

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/metrics/pkg/apis/metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/fedhq/fed/metricsadapter"
)

// Source is what the storages read: the adapter.
type Source interface {
	PodMetrics(ctx context.Context, q metricsadapter.Query) (metricsadapter.Result[metricsv1beta1.PodMetrics], error)
	NodeMetrics(ctx context.Context, q metricsadapter.Query) (metricsadapter.Result[metricsv1beta1.NodeMetrics], error)
}

// Storages are the group's resources for v1beta1, converting with scheme.
func Storages(source Source, scheme *runtime.Scheme) map[string]rest.Storage {
	return map[string]rest.Storage{
		"pods":  &PodMetricsREST{source: source, scheme: scheme},
		"nodes": &NodeMetricsREST{source: source, scheme: scheme},
	}
}

// query is the adapter's query of a list's options.
func query(ctx context.Context, opts *metainternalversion.ListOptions) metricsadapter.Query {
	q := metricsadapter.Query{Namespace: genericapirequest.NamespaceValue(ctx)}
	if opts != nil {
		if opts.LabelSelector != nil && !opts.LabelSelector.Empty() {
			q.Labels = opts.LabelSelector
		}
		if opts.FieldSelector != nil && !opts.FieldSelector.Empty() {
			q.Fields = opts.FieldSelector
		}
	}
	return q
}

// warn passes the adapter's warnings on to the client (kubectl prints them).
func warn(ctx context.Context, warnings []string) {
	for _, w := range warnings {
		warning.AddWarning(ctx, "", w)
	}
}

// sourceError is the API error of a query no member answered.
func sourceError(err error, gr schema.GroupResource) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf("%s: %v", gr, err))
}

// named picks the item called name of items (in several members: the first, with a
// warning naming the others).
func named[T any](ctx context.Context, gr schema.GroupResource, name string, items []T, meta func(*T) *metav1.ObjectMeta) (*T, error) {
	if len(items) == 0 {
		return nil, apierrors.NewNotFound(gr, name)
	}
	if len(items) > 1 {
		var others []string
		for i := range items[1:] {
			others = append(others, meta(&items[i+1]).Labels[metricsadapter.LabelCluster])
		}
		first := meta(&items[0]).Labels[metricsadapter.LabelCluster]
		warning.AddWarning(ctx, "", fmt.Sprintf("%s %q is in clusters %s and %s: showing %s's (-l %s=CLUSTER picks one)",
			gr.Resource, name, first, strings.Join(others, ", "), first, metricsadapter.LabelCluster))
	}
	return &items[0], nil
}

// PodMetricsREST serves pods.metrics.k8s.io.
type PodMetricsREST struct {
	source Source
	scheme *runtime.Scheme
}

var (
	_ rest.KindProvider         = &PodMetricsREST{}
	_ rest.Storage              = &PodMetricsREST{}
	_ rest.Getter               = &PodMetricsREST{}
	_ rest.Lister               = &PodMetricsREST{}
	_ rest.Scoper               = &PodMetricsREST{}
	_ rest.SingularNameProvider = &PodMetricsREST{}
)

func (r *PodMetricsREST) New() runtime.Object            { return &metrics.PodMetrics{} }
func (r *PodMetricsREST) NewList() runtime.Object        { return &metrics.PodMetricsList{} }
func (r *PodMetricsREST) Destroy()                       {}
func (r *PodMetricsREST) Kind() string                   { return "PodMetrics" }
func (r *PodMetricsREST) NamespaceScoped() bool          { return true }
func (r *PodMetricsREST) GetSingularName() string        { return "podmetrics" }
func (r *PodMetricsREST) resource() schema.GroupResource { return metrics.Resource("pods") }

// List lists the pods' metrics of every member.
func (r *PodMetricsREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	res, err := r.source.PodMetrics(ctx, query(ctx, opts))
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, sourceError(err, r.resource())
	}
	in := &metricsv1beta1.PodMetricsList{Items: res.Items}
	out := &metrics.PodMetricsList{}
	if err := r.scheme.Convert(in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a pod's metrics.
func (r *PodMetricsREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	q := query(ctx, nil)
	q.Fields = fields.OneTermEqualSelector("metadata.name", name)
	res, err := r.source.PodMetrics(ctx, q)
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, sourceError(err, r.resource())
	}
	item, err := named(ctx, r.resource(), name, res.Items, func(p *metricsv1beta1.PodMetrics) *metav1.ObjectMeta { return &p.ObjectMeta })
	if err != nil {
		return nil, err
	}
	out := &metrics.PodMetrics{}
	if err := r.scheme.Convert(item, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertToTable prints NAME, CLUSTER, CPU, MEMORY and WINDOW, the pod's containers summed.
func (r *PodMetricsREST) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	var items []metrics.PodMetrics
	table := &metav1.Table{ColumnDefinitions: columns}
	switch o := obj.(type) {
	case *metrics.PodMetricsList:
		items = o.Items
		table.ResourceVersion = o.ResourceVersion
	case *metrics.PodMetrics:
		items = []metrics.PodMetrics{*o}
	default:
		return nil, fmt.Errorf("cannot print %T", obj)
	}
	for i := range items {
		p := &items[i]
		usage := corev1.ResourceList{}
		for _, c := range p.Containers {
			for name, q := range c.Usage {
				sum := usage[name]
				sum.Add(q)
				usage[name] = sum
			}
		}
		table.Rows = append(table.Rows, row(&p.ObjectMeta, usage, p.Window.Duration, p))
	}
	return table, nil
}

// NodeMetricsREST serves nodes.metrics.k8s.io.
type NodeMetricsREST struct {
	source Source
	scheme *runtime.Scheme
}

var (
	_ rest.KindProvider         = &NodeMetricsREST{}
	_ rest.Storage              = &NodeMetricsREST{}
	_ rest.Getter               = &NodeMetricsREST{}
	_ rest.Lister               = &NodeMetricsREST{}
	_ rest.Scoper               = &NodeMetricsREST{}
	_ rest.SingularNameProvider = &NodeMetricsREST{}
)

func (r *NodeMetricsREST) New() runtime.Object            { return &metrics.NodeMetrics{} }
func (r *NodeMetricsREST) NewList() runtime.Object        { return &metrics.NodeMetricsList{} }
func (r *NodeMetricsREST) Destroy()                       {}
func (r *NodeMetricsREST) Kind() string                   { return "NodeMetrics" }
func (r *NodeMetricsREST) NamespaceScoped() bool          { return false }
func (r *NodeMetricsREST) GetSingularName() string        { return "nodemetrics" }
func (r *NodeMetricsREST) resource() schema.GroupResource { return metrics.Resource("nodes") }

// List lists the nodes' metrics of every member.
func (r *NodeMetricsREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	res, err := r.source.NodeMetrics(ctx, query(ctx, opts))
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, sourceError(err, r.resource())
	}
	in := &metricsv1beta1.NodeMetricsList{Items: res.Items}
	out := &metrics.NodeMetricsList{}
	if err := r.scheme.Convert(in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a node's metrics.
func (r *NodeMetricsREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	q := query(ctx, nil)
	q.Fields = fields.OneTermEqualSelector("metadata.name", name)
	res, err := r.source.NodeMetrics(ctx, q)
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, sourceError(err, r.resource())
	}
	item, err := named(ctx, r.resource(), name, res.Items, func(n *metricsv1beta1.NodeMetrics) *metav1.ObjectMeta { return &n.ObjectMeta })
	if err != nil {
		return nil, err
	}
	out := &metrics.NodeMetrics{}
	if err := r.scheme.Convert(item, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertToTable prints NAME, CLUSTER, CPU, MEMORY and WINDOW.
func (r *NodeMetricsREST) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	var items []metrics.NodeMetrics
	table := &metav1.Table{ColumnDefinitions: columns}
	switch o := obj.(type) {
	case *metrics.NodeMetricsList:
		items = o.Items
		table.ResourceVersion = o.ResourceVersion
	case *metrics.NodeMetrics:
		items = []metrics.NodeMetrics{*o}
	default:
		return nil, fmt.Errorf("cannot print %T", obj)
	}
	for i := range items {
		n := &items[i]
		table.Rows = append(table.Rows, row(&n.ObjectMeta, n.Usage, n.Window.Duration, n))
	}
	return table, nil
}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "The name of the pod or node."},
	{Name: "Cluster", Type: "string", Description: "The member cluster it is in."},
	{Name: "CPU", Type: "string", Format: "", Description: "CPU usage, in cores."},
	{Name: "Memory", Type: "string", Format: "", Description: "Memory usage, in bytes."},
	{Name: "Window", Type: "string", Format: "", Description: "The time window the usage was measured over."},
}

func row(m *metav1.ObjectMeta, usage corev1.ResourceList, window time.Duration, obj runtime.Object) metav1.TableRow {
	cpu, memory := usage[corev1.ResourceCPU], usage[corev1.ResourceMemory]
	return metav1.TableRow{
		Cells:  []any{m.Name, m.Labels[metricsadapter.LabelCluster], formatQuantity(cpu, true), formatQuantity(memory, false), duration.HumanDuration(window)},
		Object: runtime.RawExtension{Object: obj},
	}
}

// formatQuantity prints CPU in millicores and memory in MiB, as kubectl top does.
func formatQuantity(q resource.Quantity, cpu bool) string {
	if cpu {
		return fmt.Sprintf("%dm", q.MilliValue())
	}
	return fmt.Sprintf("%dMi", q.Value()/(1024*1024))
}
