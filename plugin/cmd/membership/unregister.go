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

package membership

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/member"
)

// UnregisterOptions are the inputs of `kubectl fed unregister`.
type UnregisterOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	Name              string
	ClusterKubeconfig string
	ClusterContext    string

	fed    versioned.Interface
	member *member.Cluster
}

// NewCmdUnregister is `kubectl fed unregister NAME [--cluster-kubeconfig FILE]`.
func NewCmdUnregister(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UnregisterOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags("unregistered")}
	cmd := &cobra.Command{
		Use:                   "unregister NAME [--cluster-kubeconfig FILE [--cluster-context CONTEXT]]",
		DisableFlagsInUseLine: true,
		Short:                 "Remove a pull-mode member cluster from the fleet",
		Long: `Remove a member cluster that registered in pull mode ('kubectl fed register') from the fleet:
delete the Cluster NAME, after which fed deletes its agent's Lease, Role and RoleBinding in
the host. With the member's kubeconfig, also remove what register made in the member (the
Deployment, Secret, service account and ClusterRoleBinding fed-agent, and the namespace
fed-system when nothing else is in it) when the member answers. A cluster joined in push
mode is unjoined instead ('kubectl fed unjoin').

The agent's certificate stays valid until it expires (Kubernetes cannot revoke a certificate):
its Lease and Role in the host go with the Cluster, and fed narrows each agent to its own
cluster's objects, and refuses it everything once NAME is no pull cluster. Registering NAME again
(from the same member) makes it whole again.`,
		Example:           `  kubectl fed unregister edge-1 --cluster-kubeconfig edge-1.kubeconfig`,
		ValidArgsFunction: completing.ClusterArgs(configFlags, 1),
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
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVar(&o.ClusterKubeconfig, "cluster-kubeconfig", "", "Path to the kubeconfig of the member cluster, to clean it up too.")
	cmd.Flags().StringVar(&o.ClusterContext, "cluster-context", "", "Context of --cluster-kubeconfig to use; its current context by default.")
	return cmd
}

// Complete takes the name and makes the clients.
func (o *UnregisterOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return cmdline.UsageError(cmd, "exactly one NAME is required, got %d", len(args))
	}
	o.Name = args[0]
	var err error
	if o.ClusterKubeconfig != "" {
		if o.member, err = member.Load(o.ClusterKubeconfig, o.ClusterContext); err != nil {
			return err
		}
	}
	o.fed, err = fleet.FedClient(o.ConfigFlags)
	return err
}

// Validate has nothing to check beyond Complete.
func (o *UnregisterOptions) Validate() error { return nil }

// Run cleans up the member first, when it answers, and deletes the Cluster last, so that
// an unregister that fails half-way can be run again.
func (o *UnregisterOptions) Run(ctx context.Context) error {
	clusters := o.fed.ClusterV1alpha1().Clusters()
	c, err := clusters.Get(ctx, o.Name, metav1.GetOptions{})
	gone := apierrors.IsNotFound(err)
	switch {
	case gone && o.member == nil:
		return err
	case gone:
		cmdline.Progress(o.ErrOut, "cluster %s is not in the fleet; removing its agent from the member", o.Name)
	case err != nil:
		return err
	case c.Spec.SyncMode != clusterv1alpha1.Pull:
		return fmt.Errorf("cluster %s is joined in %s mode, not registered in pull mode; use 'kubectl fed unjoin %s'", o.Name, c.Spec.SyncMode, o.Name)
	}
	if m := o.member; m != nil {
		if err := o.cleanMember(ctx, m); err != nil {
			return err
		}
	} else {
		cmdline.Progress(o.ErrOut, "the member keeps its agent's objects (namespace %s: Deployment, Secret and service account %s; ClusterRoleBinding %s): "+
			"pass --cluster-kubeconfig to remove them", clusterv1alpha1.FedNamespace, member.AgentName, member.AgentName)
	}
	if gone {
		return nil
	}
	if err := clusters.Delete(ctx, o.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return cmdline.PrintCluster(o.PrintFlags, "unregistered", c, o.Out)
}

// cleanMember removes the agent from a member that answers and is the cluster's.
func (o *UnregisterOptions) cleanMember(ctx context.Context, m *member.Cluster) error {
	if err := m.Probe(ctx); err != nil {
		cmdline.Progress(o.ErrOut, "warning: %v; its agent's objects stay there (run unregister again with --cluster-kubeconfig once it answers)", err)
		return nil
	}
	registered, err := m.RegisteredAs(ctx)
	if err != nil {
		return err
	}
	if registered.Cluster != "" && registered.Cluster != o.Name {
		return fmt.Errorf("the cluster at %s is registered as %s, not %s; refusing to remove its agent", m.Endpoint, registered.Cluster, o.Name)
	}
	kept, err := m.UninstallAgent(ctx)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("member: removed deployment, secret, serviceaccount and clusterrolebinding %s", member.AgentName)
	if kept == "" {
		msg += " and namespace " + clusterv1alpha1.FedNamespace
	} else {
		msg += fmt.Sprintf("; namespace %s stays (%s)", clusterv1alpha1.FedNamespace, kept)
	}
	cmdline.Progress(o.ErrOut, "%s", msg)
	return nil
}
