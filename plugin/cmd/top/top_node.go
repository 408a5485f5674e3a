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

package top

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubectl/pkg/metricsutil"
	metricsapi "k8s.io/metrics/pkg/apis/metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// TopNodeOptions are the inputs of `kubectl fed top node`.
type TopNodeOptions struct {
	TopOptions
}

func newCmdTopNode(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TopNodeOptions{TopOptions{IOStreams: streams, ConfigFlags: configFlags}}
	cmd := &cobra.Command{
		Use:     "node [NAME | -l label]",
		Aliases: []string{"nodes", "no"},
		Short:   "Display resource (CPU/memory) usage of nodes of member clusters",
		Long: `Display the resource (CPU/memory) usage of the nodes of every member cluster, or of those
of -C/--clusters. CPU(%) and MEMORY(%) are of the node's allocatable resources.

` + topLayout,
		Example: `  # The nodes of every member
  kubectl fed top node

  # The nodes of member3, by CPU use
  kubectl fed top node -C member3 --sort-by cpu`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return cmdline.UsageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	return cmd
}

// nodeUsage is what kubectl top node's printer takes for one member: the nodes' metrics
// and their allocatable resources by name (a node without metrics is printed <unknown>).
type nodeUsage struct {
	Metrics     []metricsapi.NodeMetrics
	Allocatable map[string]corev1.ResourceList
}

// Run reads the node metrics of every member selected (every member by default) and prints
// them member by member.
func (o *TopNodeOptions) Run(ctx context.Context) error {
	clusters, err := o.Clusters.Resolve(ctx, o.ConfigFlags, true)
	if err != nil {
		return err
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	results := fleet.FanOut(ctx, host, clusters, o.memberNodes)
	failed := warnFailed(o.ErrOut, results)
	if failed == nil && !anyNodeMetrics(results) {
		if o.Name != "" {
			return apierrors.NewNotFound(metricsv1beta1.Resource("nodemetrics"), o.Name)
		}
		return errors.New("metrics not available yet")
	}
	if err := printNodeUsage(o.Out, results, o.NoHeaders, o.SortBy); err != nil {
		return err
	}
	return failed
}

// memberNodes reads one member's node metrics and its nodes' allocatable resources.
func (o *TopNodeOptions) memberNodes(ctx context.Context, _ string, cfg *rest.Config) (*nodeUsage, error) {
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	metrics := &metricsv1beta1.NodeMetricsList{}
	var nodes []corev1.Node
	if o.Name != "" {
		m, err := mc.MetricsV1beta1().NodeMetricses().Get(ctx, o.Name, metav1.GetOptions{})
		if objectNotFound(err, o.Name) {
			return &nodeUsage{}, nil // a node of another member
		}
		if err != nil {
			return nil, metricsError(err)
		}
		metrics.Items = []metricsv1beta1.NodeMetrics{*m}
		n, err := cs.CoreV1().Nodes().Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		if err == nil {
			nodes = []corev1.Node{*n}
		}
	} else {
		if metrics, err = mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector}); err != nil {
			return nil, metricsError(err)
		}
		nl, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector})
		if err != nil {
			return nil, err
		}
		nodes = nl.Items
	}
	return newNodeUsage(metrics, nodes)
}

// newNodeUsage converts a member's node metrics to the types kubectl's printer takes and
// keeps its nodes' allocatable resources.
func newNodeUsage(metrics *metricsv1beta1.NodeMetricsList, nodes []corev1.Node) (*nodeUsage, error) {
	list := &metricsapi.NodeMetricsList{}
	if err := metricsv1beta1.Convert_v1beta1_NodeMetricsList_To_metrics_NodeMetricsList(metrics, list, nil); err != nil {
		return nil, err
	}
	u := &nodeUsage{Metrics: list.Items, Allocatable: map[string]corev1.ResourceList{}}
	for _, n := range nodes {
		u.Allocatable[n.Name] = n.Status.Allocatable
	}
	return u, nil
}

func anyNodeMetrics(results []fleet.MemberResult[*nodeUsage]) bool {
	for _, r := range results {
		if r.Err == nil && len(r.Value.Metrics) > 0 {
			return true
		}
	}
	return false
}

// printNodeUsage prints each member's nodes with kubectl top node's printer and sorter.
func printNodeUsage(out io.Writer, results []fleet.MemberResult[*nodeUsage], noHeaders bool, sortBy string) error {
	return printMembers(out, results, func(u *nodeUsage) bool { return len(u.Metrics) == 0 }, func(u *nodeUsage) error {
		return metricsutil.NewTopCmdPrinter(out, false).PrintNodeMetrics(u.Metrics, u.Allocatable, noHeaders, sortBy)
	})
}
