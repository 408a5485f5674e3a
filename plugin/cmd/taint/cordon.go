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

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/taints"
)

// CordonOptions are the inputs of `kubectl fed cordon` and `uncordon`.
type CordonOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	// Cordon is true for cordon, false for uncordon.
	Cordon bool
	Names  []string

	client versioned.Interface
}

// NewCmdCordon is `kubectl fed cordon NAME...`.
func NewCmdCordon(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdCordon(configFlags, streams, true)
}

// NewCmdUncordon is `kubectl fed uncordon NAME...`.
func NewCmdUncordon(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdCordon(configFlags, streams, false)
}

func newCmdCordon(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, cordon bool) *cobra.Command {
	o := &CordonOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags(""), Cordon: cordon}
	cmd := &cobra.Command{
		Use:   "cordon NAME...",
		Short: "Mark member clusters as unschedulable",
		Long: fmt.Sprintf(`Mark member clusters as unschedulable: fed places no new workloads there. Workloads
already placed stay. Cordoning adds the taint %s:%s.`, taints.Cordon.Key, taints.Cordon.Effect),
		Example:           "  kubectl fed cordon member1",
		ValidArgsFunction: completing.ClusterArgs(configFlags, 0),
	}
	if !cordon {
		cmd.Use = "uncordon NAME..."
		cmd.Short = "Mark member clusters as schedulable"
		cmd.Long = fmt.Sprintf("Mark member clusters as schedulable again: remove the taint %s:%s.", taints.Cordon.Key, taints.Cordon.Effect)
		cmd.Example = "  kubectl fed uncordon member1"
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return cmdline.UsageError(cmd, "%s", err.Error())
		}
		return o.Run(cmd.Context())
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Complete takes the cluster names and makes the client.
func (o *CordonOptions) Complete(_ *cobra.Command, args []string) error {
	o.Names = args
	var err error
	o.client, err = fleet.FedClient(o.ConfigFlags)
	return err
}

// Validate needs at least one name.
func (o *CordonOptions) Validate() error {
	if len(o.Names) == 0 {
		return fmt.Errorf("at least one cluster name must be specified")
	}
	return nil
}

// Run adds or removes the cordon taint of each cluster.
func (o *CordonOptions) Run(ctx context.Context) error {
	clusters := o.client.ClusterV1alpha1().Clusters()
	for _, name := range o.Names {
		var op string
		c, err := fleet.UpdateCluster(ctx, clusters, name, func(c *clusterv1alpha1.Cluster) (bool, error) {
			var changed bool
			op, c.Spec.Taints, changed = taints.SetCordoned(c.Spec.Taints, o.Cordon)
			return changed, nil
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
