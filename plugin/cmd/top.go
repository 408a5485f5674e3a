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

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/fedhq/fed/plugin/fleet"
)

// TopOptions are the flags of `kubectl fed top pod|node`.
type TopOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	Clusters      fleet.ClusterFlags
	Name          string
	Namespace     string
	AllNamespaces bool
	LabelSelector string
	Containers    bool
	SortBy        string
	NoHeaders     bool
}

// NewCmdTop is `kubectl fed top`, with the subcommands pod and node.
func NewCmdTop(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Display resource (CPU/memory) usage of the member clusters",
		Long: `Display the resource (CPU/memory) usage of pods or nodes of member clusters, as kubectl
top does, in one table with a CLUSTER column after NAME.

Every member cluster is queried in parallel through fed's cluster proxy, each for its own
metrics.k8s.io (a metrics-server in the member); -C/--clusters selects some. A member
whose metrics cannot be read is reported as "Warning: cluster NAME: ..." on standard
error, the others are still shown, and the exit code is then 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdTopPod(configFlags, streams), newCmdTopNode(configFlags, streams))
	return cmd
}

func (o *TopOptions) addFlags(cmd *cobra.Command) {
	o.Clusters.AddFlags(cmd.Flags(), "Query every member cluster (the default).")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	cmd.Flags().StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort the list using specified field. The field can be either 'cpu' or 'memory'.")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "If present, print output without headers.")
}

func newCmdTopPod(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TopOptions{IOStreams: streams, ConfigFlags: configFlags}
	cmd := &cobra.Command{
		Use:     "pod [NAME | -l label]",
		Aliases: []string{"pods", "po"},
		Short:   "Display resource (CPU/memory) usage of pods of member clusters",
		Long: `Display the resource (CPU/memory) usage of pods of every member cluster, or of those of
-C/--clusters, with a CLUSTER column after NAME.

Due to the metrics pipeline delay, a new pod's metrics may be unavailable for a minute.`,
		Example: `  # The pods of the current namespace in every member
  kubectl fed top pod

  # The pods of all namespaces in member1 and member2, by memory use
  kubectl fed top pod -A -C member1,member2 --sort-by memory

  # The containers of the pods labelled app=web
  kubectl fed top pod -l app=web --containers`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(cmd, args); err != nil {
				return err
			}
			return o.runPods(cmd.Context())
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().BoolVar(&o.Containers, "containers", false, "If present, print usage of containers within a pod.")
	return cmd
}

func newCmdTopNode(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TopOptions{IOStreams: streams, ConfigFlags: configFlags}
	cmd := &cobra.Command{
		Use:     "node [NAME | -l label]",
		Aliases: []string{"nodes", "no"},
		Short:   "Display resource (CPU/memory) usage of nodes of member clusters",
		Long: `Display the resource (CPU/memory) usage of the nodes of every member cluster, or of those
of -C/--clusters, with a CLUSTER column after NAME. CPU(%) and MEMORY(%) are of the node's
allocatable resources.`,
		Example: `  # The nodes of every member
  kubectl fed top node

  # The nodes of member3, by CPU use
  kubectl fed top node -C member3 --sort-by cpu`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(cmd, args); err != nil {
				return err
			}
			return o.runNodes(cmd.Context())
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (o *TopOptions) complete(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		o.Name = args[0]
		if o.LabelSelector != "" {
			return usageError(cmd, "only one of NAME or --selector can be provided")
		}
	}
	if o.LabelSelector != "" {
		if _, err := labels.Parse(o.LabelSelector); err != nil {
			return err
		}
	}
	switch o.SortBy {
	case "", "cpu", "memory":
	default:
		return usageError(cmd, "--sort-by accepts only cpu or memory")
	}
	ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	o.Namespace = ns
	return nil
}

// members resolves the selected clusters (every member by default) and the host's config.
func (o *TopOptions) members(ctx context.Context) ([]string, *rest.Config, error) {
	clusters, err := o.Clusters.Resolve(ctx, o.ConfigFlags, true)
	if err != nil {
		return nil, nil, err
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	return clusters, host, err
}

// nodeRow is one node of one member: its usage, or none when its metrics are missing.
type nodeRow struct {
	Cluster     string
	Name        string
	Usage       corev1.ResourceList // nil: no metrics for the node
	Allocatable corev1.ResourceList
}

// podRow is the usage of one pod of one member, by container.
type podRow struct {
	Cluster    string
	Metrics    metricsv1beta1.PodMetrics
	totalUsage corev1.ResourceList
}

func (o *TopOptions) runNodes(ctx context.Context) error {
	clusters, host, err := o.members(ctx)
	if err != nil {
		return err
	}
	results := fleet.FanOut(ctx, host, clusters, func(ctx context.Context, cluster string, cfg *rest.Config) ([]nodeRow, error) {
		return o.memberNodes(ctx, cluster, cfg)
	})
	rows, failed := fleet.Collect(results)
	o.warn(failedClusters(failed))
	if len(rows) == 0 && len(failed) == 0 {
		if o.Name != "" {
			return apierrors.NewNotFound(metricsv1beta1.Resource("nodemetrics"), o.Name)
		}
		return errors.New("metrics not available yet")
	}
	if err := printNodeTable(o.Out, rows, o.NoHeaders, o.SortBy); err != nil {
		return err
	}
	return topFailed(failed)
}

// memberNodes reads one member's node metrics and its nodes' allocatable resources.
func (o *TopOptions) memberNodes(ctx context.Context, cluster string, cfg *rest.Config) ([]nodeRow, error) {
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var metrics []metricsv1beta1.NodeMetrics
	var nodes []corev1.Node
	if o.Name != "" {
		m, err := mc.MetricsV1beta1().NodeMetricses().Get(ctx, o.Name, metav1.GetOptions{})
		if objectNotFound(err, o.Name) {
			return nil, nil // a node of another member
		}
		if err != nil {
			return nil, metricsError(err)
		}
		metrics = []metricsv1beta1.NodeMetrics{*m}
		n, err := cs.CoreV1().Nodes().Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		if err == nil {
			nodes = []corev1.Node{*n}
		}
	} else {
		list, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector})
		if err != nil {
			return nil, metricsError(err)
		}
		metrics = list.Items
		nl, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector})
		if err != nil {
			return nil, err
		}
		nodes = nl.Items
	}
	return nodeRows(cluster, metrics, nodes), nil
}

// nodeRows joins a member's node metrics with its nodes: a node without metrics is a row
// of <unknown>, as in kubectl top node.
func nodeRows(cluster string, metrics []metricsv1beta1.NodeMetrics, nodes []corev1.Node) []nodeRow {
	allocatable := map[string]corev1.ResourceList{}
	for _, n := range nodes {
		allocatable[n.Name] = n.Status.Allocatable
	}
	var rows []nodeRow
	seen := map[string]bool{}
	for _, m := range metrics {
		seen[m.Name] = true
		rows = append(rows, nodeRow{Cluster: cluster, Name: m.Name, Usage: m.Usage, Allocatable: allocatable[m.Name]})
	}
	for _, n := range nodes {
		if !seen[n.Name] {
			rows = append(rows, nodeRow{Cluster: cluster, Name: n.Name, Allocatable: n.Status.Allocatable})
		}
	}
	return rows
}

func (o *TopOptions) runPods(ctx context.Context) error {
	clusters, host, err := o.members(ctx)
	if err != nil {
		return err
	}
	ns := o.Namespace
	if o.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	results := fleet.FanOut(ctx, host, clusters, func(ctx context.Context, cluster string, cfg *rest.Config) ([]podRow, error) {
		mc, err := metricsclient.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		pods := mc.MetricsV1beta1().PodMetricses(ns)
		var items []metricsv1beta1.PodMetrics
		if o.Name != "" {
			m, err := pods.Get(ctx, o.Name, metav1.GetOptions{})
			if objectNotFound(err, o.Name) {
				return nil, nil // a pod of another member
			}
			if err != nil {
				return nil, metricsError(err)
			}
			items = []metricsv1beta1.PodMetrics{*m}
		} else {
			list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector})
			if err != nil {
				return nil, metricsError(err)
			}
			items = list.Items
		}
		rows := make([]podRow, len(items))
		for i := range items {
			rows[i] = podRow{Cluster: cluster, Metrics: items[i]}
		}
		return rows, nil
	})
	rows, failed := fleet.Collect(results)
	o.warn(failedClusters(failed))
	if len(rows) == 0 && len(failed) == 0 {
		if o.Name != "" {
			return apierrors.NewNotFound(metricsv1beta1.Resource("podmetrics"), o.Name)
		}
		if o.AllNamespaces {
			fmt.Fprintln(o.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.Namespace)
		}
		return nil
	}
	if err := printPodTable(o.Out, rows, o.AllNamespaces, o.Containers, o.NoHeaders, o.SortBy); err != nil {
		return err
	}
	return topFailed(failed)
}

// objectNotFound tells whether err is the NotFound of the object name (not of the API).
func objectNotFound(err error, name string) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Name == name
}

// metricsError says what a member's missing metrics.k8s.io means.
func metricsError(err error) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("Metrics API not available (is a metrics-server running in the member?): %w", err)
	}
	if apierrors.IsServiceUnavailable(err) {
		return fmt.Errorf("Metrics API not available: %w", err)
	}
	return err
}

type failure struct {
	Cluster string
	Err     error
}

func failedClusters[T any](failed []fleet.MemberResult[T]) []failure {
	out := make([]failure, len(failed))
	for i, f := range failed {
		out[i] = failure{Cluster: f.Cluster, Err: f.Err}
	}
	return out
}

func (o *TopOptions) warn(failures []failure) {
	for _, f := range failures {
		fmt.Fprintf(o.ErrOut, "Warning: cluster %s: %v\n", f.Cluster, f.Err)
	}
}

// topFailed is the command's error when some members failed.
func topFailed[T any](failed []fleet.MemberResult[T]) error {
	if len(failed) == 0 {
		return nil
	}
	names := make([]string, len(failed))
	for i, f := range failed {
		names[i] = f.Cluster
	}
	return fmt.Errorf("clusters not shown (see the warnings above): %s", strings.Join(names, ", "))
}

var measured = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// printNodeTable prints kubectl top node's table with a CLUSTER column after NAME, sorted
// by name and cluster, or by usage (highest first) with sortBy cpu or memory.
func printNodeTable(out io.Writer, rows []nodeRow, noHeaders bool, sortBy string) error {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if c := compareUsage(a.Usage, b.Usage, sortBy); c != 0 {
			return c > 0
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Cluster < b.Cluster
	})
	w := printers.GetNewTabWriter(out)
	if !noHeaders {
		printCells(w, "NAME", "CLUSTER", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)")
	}
	for _, r := range rows {
		cells := []string{r.Name, r.Cluster}
		for _, res := range measured {
			if r.Usage == nil {
				cells = append(cells, "<unknown>", "<unknown>")
				continue
			}
			q := r.Usage[res]
			cells = append(cells, formatUsage(res, q), percent(q, r.Allocatable, res))
		}
		printCells(w, cells...)
	}
	return w.Flush()
}

// percent is usage as a share of allocatable, as kubectl top prints it.
func percent(q resource.Quantity, allocatable corev1.ResourceList, res corev1.ResourceName) string {
	available, ok := allocatable[res]
	if !ok {
		return "<unknown>"
	}
	fraction := 0.0
	if !available.IsZero() {
		fraction = float64(q.MilliValue()) / float64(available.MilliValue()) * 100
	}
	return fmt.Sprintf("%d%%", int64(fraction))
}

// printPodTable prints kubectl top pod's table with a CLUSTER column after NAME (the
// container's name with --containers), sorted by namespace, name and cluster, or by usage.
func printPodTable(out io.Writer, rows []podRow, withNamespace, containers, noHeaders bool, sortBy string) error {
	for i := range rows {
		rows[i].totalUsage = podUsage(rows[i].Metrics)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if c := compareUsage(a.totalUsage, b.totalUsage, sortBy); c != 0 {
			return c > 0
		}
		if withNamespace && a.Metrics.Namespace != b.Metrics.Namespace {
			return a.Metrics.Namespace < b.Metrics.Namespace
		}
		if a.Metrics.Name != b.Metrics.Name {
			return a.Metrics.Name < b.Metrics.Name
		}
		return a.Cluster < b.Cluster
	})
	w := printers.GetNewTabWriter(out)
	if !noHeaders {
		var header []string
		if withNamespace {
			header = append(header, "NAMESPACE")
		}
		if containers {
			header = append(header, "POD")
		}
		printCells(w, append(header, "NAME", "CLUSTER", "CPU(cores)", "MEMORY(bytes)")...)
	}
	for _, r := range rows {
		var lead []string
		if withNamespace {
			lead = append(lead, r.Metrics.Namespace)
		}
		if !containers {
			printCells(w, append(lead, r.Metrics.Name, r.Cluster, formatUsage(corev1.ResourceCPU, r.totalUsage[corev1.ResourceCPU]), formatUsage(corev1.ResourceMemory, r.totalUsage[corev1.ResourceMemory]))...)
			continue
		}
		cs := append([]metricsv1beta1.ContainerMetrics(nil), r.Metrics.Containers...)
		sort.SliceStable(cs, func(i, j int) bool {
			if c := compareUsage(cs[i].Usage, cs[j].Usage, sortBy); c != 0 {
				return c > 0
			}
			return cs[i].Name < cs[j].Name
		})
		for _, c := range cs {
			printCells(w, append(append(lead[:len(lead):len(lead)], r.Metrics.Name), c.Name, r.Cluster, formatUsage(corev1.ResourceCPU, c.Usage[corev1.ResourceCPU]), formatUsage(corev1.ResourceMemory, c.Usage[corev1.ResourceMemory]))...)
		}
	}
	return w.Flush()
}

// podUsage sums a pod's containers.
func podUsage(m metricsv1beta1.PodMetrics) corev1.ResourceList {
	total := corev1.ResourceList{}
	for _, res := range measured {
		q := resource.MustParse("0")
		for _, c := range m.Containers {
			q.Add(c.Usage[res])
		}
		total[res] = q
	}
	return total
}

// compareUsage orders by the usage sortBy names: >0 when a uses more, 0 when equal or
// sortBy is empty.
func compareUsage(a, b corev1.ResourceList, sortBy string) int {
	var x, y int64
	switch sortBy {
	case "cpu":
		x, y = a.Cpu().MilliValue(), b.Cpu().MilliValue()
	case "memory":
		x, y = a.Memory().Value(), b.Memory().Value()
	default:
		return 0
	}
	switch {
	case x > y:
		return 1
	case x < y:
		return -1
	}
	return 0
}

// formatUsage prints CPU in millicores and memory in MiB, as kubectl top does.
func formatUsage(res corev1.ResourceName, q resource.Quantity) string {
	if res == corev1.ResourceCPU {
		return fmt.Sprintf("%vm", q.MilliValue())
	}
	return fmt.Sprintf("%vMi", q.Value()/(1024*1024))
}

// printCells writes one row, each cell followed by a tab as kubectl top's printer does.
func printCells(w io.Writer, cells ...string) {
	for _, c := range cells {
		fmt.Fprintf(w, "%s\t", c)
	}
	fmt.Fprintln(w)
}
