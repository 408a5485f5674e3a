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
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/kubectl/pkg/metricsutil"
	metricsapi "k8s.io/metrics/pkg/apis/metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// TopPodOptions are the inputs of `kubectl fed top pod`.
type TopPodOptions struct {
	TopOptions
	Namespace     string
	AllNamespaces bool
	Containers    bool
}

func newCmdTopPod(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TopPodOptions{TopOptions: TopOptions{IOStreams: streams, ConfigFlags: configFlags}}
	cmd := &cobra.Command{
		Use:     "pod [NAME | -l label]",
		Aliases: []string{"pods", "po"},
		Short:   "Display resource (CPU/memory) usage of pods of member clusters",
		Long: `Display the resource (CPU/memory) usage of pods of every member cluster, or of those of
-C/--clusters.

` + topLayout + `

Due to the metrics pipeline delay, a new pod's metrics may be unavailable for a minute.`,
		Example: `  # The pods of the current namespace in every member
  kubectl fed top pod

  # The pods of all namespaces in member1 and member2, by memory use
  kubectl fed top pod -A -C member1,member2 --sort-by memory

  # The containers of the pods labelled app=web
  kubectl fed top pod -l app=web --containers`,
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
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().BoolVar(&o.Containers, "containers", false, "If present, print usage of containers within a pod.")
	return cmd
}

// Complete takes the NAME, checks the selector and reads the namespace of the kubeconfig.
func (o *TopPodOptions) Complete(cmd *cobra.Command, args []string) error {
	if err := o.TopOptions.Complete(cmd, args); err != nil {
		return err
	}
	ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	o.Namespace = ns
	return nil
}

// Run reads the pod metrics of every member selected (every member by default) and prints
// them member by member.
func (o *TopPodOptions) Run(ctx context.Context) error {
	clusters, err := o.Clusters.Resolve(ctx, o.ConfigFlags, true)
	if err != nil {
		return err
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	results := fleet.FanOut(ctx, host, clusters, o.memberPods)
	failed := warnFailed(o.ErrOut, results)
	if failed == nil && !anyPodMetrics(results) {
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
	if err := printPodUsage(o.Out, results, o.Containers, o.AllNamespaces, o.NoHeaders, o.SortBy); err != nil {
		return err
	}
	return failed
}

// memberPods reads one member's pod metrics, converted to the types kubectl's printer takes.
func (o *TopPodOptions) memberPods(ctx context.Context, _ string, cfg *rest.Config) ([]metricsapi.PodMetrics, error) {
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns := o.Namespace
	if o.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	pods := mc.MetricsV1beta1().PodMetricses(ns)
	metrics := &metricsv1beta1.PodMetricsList{}
	if o.Name != "" {
		m, err := pods.Get(ctx, o.Name, metav1.GetOptions{})
		if objectNotFound(err, o.Name) {
			return nil, nil // a pod of another member
		}
		if err != nil {
			return nil, metricsError(err)
		}
		metrics.Items = []metricsv1beta1.PodMetrics{*m}
	} else if metrics, err = pods.List(ctx, metav1.ListOptions{LabelSelector: o.LabelSelector}); err != nil {
		return nil, metricsError(err)
	}
	return toPodMetrics(metrics)
}

// toPodMetrics converts pod metrics to the types kubectl's printer takes.
func toPodMetrics(metrics *metricsv1beta1.PodMetricsList) ([]metricsapi.PodMetrics, error) {
	list := &metricsapi.PodMetricsList{}
	if err := metricsv1beta1.Convert_v1beta1_PodMetricsList_To_metrics_PodMetricsList(metrics, list, nil); err != nil {
		return nil, err
	}
	return list.Items, nil
}

func anyPodMetrics(results []fleet.MemberResult[[]metricsapi.PodMetrics]) bool {
	for _, r := range results {
		if r.Err == nil && len(r.Value) > 0 {
			return true
		}
	}
	return false
}

// printPodUsage prints each member's pods (or their containers) with kubectl top pod's
// printer and sorters.
func printPodUsage(out io.Writer, results []fleet.MemberResult[[]metricsapi.PodMetrics], containers, withNamespace, noHeaders bool, sortBy string) error {
	return printMembers(out, results, func(pods []metricsapi.PodMetrics) bool { return len(pods) == 0 }, func(pods []metricsapi.PodMetrics) error {
		return metricsutil.NewTopCmdPrinter(out, false).PrintPodMetrics(pods, containers, withNamespace, noHeaders, sortBy, false)
	})
}
