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

package taint

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/taints"
)

// TaintOptions are the inputs of `kubectl fed taint clusters`.
type TaintOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	Names     []string
	TaintArgs []string
	Overwrite bool

	add, remove []corev1.Taint
	client      versioned.Interface
}

// NewCmdTaint is `kubectl fed taint clusters NAME... KEY[=VALUE]:EFFECT... [KEY[:EFFECT]-...]`.
func NewCmdTaint(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TaintOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags(taints.OpTainted)}
	cmd := &cobra.Command{
		Use:                   "taint clusters NAME... KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N",
		DisableFlagsInUseLine: true,
		Short:                 "Update the taints on one or more member clusters",
		Long: `Update the taints on one or more member clusters, as 'kubectl taint nodes' does for nodes.

* A taint is key=value:effect; the value is optional.
* The effect must be NoSchedule (fed places nothing new there) or NoExecute (fed also moves
  placements away unless their policy tolerates the taint).
* Adding a key:effect the cluster already has needs --overwrite; removing one it does not
  have is an error.`,
		Example: `  # Keep new workloads off cluster member1 unless they tolerate dedicated=gpu
  kubectl fed taint clusters member1 dedicated=gpu:NoSchedule

  # Change the value of that taint
  kubectl fed taint clusters member1 dedicated=ml:NoSchedule --overwrite

  # Remove it, or every taint with key dedicated
  kubectl fed taint clusters member1 dedicated:NoSchedule-
  kubectl fed taint clusters member1 dedicated-`,
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"clusters"}, cobra.ShellCompDirectiveNoFileComp
			}
			return completing.ClusterNames(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().BoolVar(&o.Overwrite, "overwrite", false, "If true, allow taints to be overwritten, otherwise reject taint updates that overwrite existing taints.")
	return cmd
}

// Complete splits the arguments into cluster names and taint changes and parses the latter.
func (o *TaintOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmdline.UsageError(cmd, "one or more resources must be specified as <resource> <name>")
	}
	switch args[0] {
	case "clusters", "cluster", "clusters.cluster.fedhq.io", "cluster.cluster.fedhq.io":
	default:
		return cmdline.UsageError(cmd, "invalid resource type %s, only clusters are supported", args[0])
	}
	o.Names, o.TaintArgs = nil, nil
	for _, a := range args[1:] {
		switch {
		case taints.IsChange(a):
			o.TaintArgs = append(o.TaintArgs, a)
		case len(o.TaintArgs) > 0:
			return cmdline.UsageError(cmd, "all resources must be specified before taint changes: %s", a)
		default:
			o.Names = append(o.Names, a)
		}
	}
	if len(o.TaintArgs) == 0 {
		return cmdline.UsageError(cmd, "at least one taint update is required")
	}
	var err error
	if o.add, o.remove, err = taints.Parse(o.TaintArgs); err != nil {
		return cmdline.UsageError(cmd, "%s", err.Error())
	}
	o.client, err = fleet.FedClient(o.ConfigFlags)
	return err
}

// Validate checks the names and that no taint is both added and removed.
func (o *TaintOptions) Validate() error {
	if len(o.Names) == 0 {
		return fmt.Errorf("at least one cluster name must be specified")
	}
	return taints.Conflicts(o.add, o.remove)
}

// Run changes the taints of each cluster and prints what it did.
func (o *TaintOptions) Run(ctx context.Context) error {
	clusters := o.client.ClusterV1alpha1().Clusters()
	for _, name := range o.Names {
		var op string
		c, err := fleet.UpdateCluster(ctx, clusters, name, func(c *clusterv1alpha1.Cluster) (bool, error) {
			var changed []corev1.Taint
			var err error
			op, changed, err = taints.Apply(c.Name, c.Spec.Taints, o.add, o.remove, o.Overwrite, time.Now())
			if err != nil {
				return false, err
			}
			c.Spec.Taints = changed
			return true, nil
		})
		if err != nil {
			return err
		}
		if err := cmdline.PrintCluster(o.PrintFlags, op, c, o.Out); err != nil {
			return err
		}
	}
	return nil
}
