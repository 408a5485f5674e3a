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
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/member"
)

// UnjoinOptions are the inputs of `kubectl fed unjoin`.
type UnjoinOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	Name              string
	ClusterKubeconfig string
	ClusterContext    string
	Timeout           time.Duration

	fed    versioned.Interface
	host   kubernetes.Interface
	member *member.Cluster
}

// NewCmdUnjoin is `kubectl fed unjoin NAME [--cluster-kubeconfig FILE]`.
func NewCmdUnjoin(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UnjoinOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags("unjoined"), Timeout: 2 * time.Minute}
	cmd := &cobra.Command{
		Use:                   "unjoin NAME [--cluster-kubeconfig FILE [--cluster-context CONTEXT]]",
		DisableFlagsInUseLine: true,
		Short:                 "Remove a member cluster from the fleet",
		Long: `Remove a member cluster from the fleet: delete the Cluster NAME, wait until fed has removed
from the member what it propagated there (a member not Ready, or not cleaned up within a
minute, keeps what is left) and the Cluster is gone, then delete its credentials Secret in
the host cluster. With the member's kubeconfig, also remove what join created in the
member (the ClusterRoleBinding fed, the service account fed, which revokes every token of
it, and the namespace fed-system); the member must be the one the Cluster names (same
kube-system UID). Run again, it finishes an unjoin that stopped half-way.`,
		Example:           `  kubectl fed unjoin member1 --cluster-kubeconfig member1.kubeconfig`,
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
	cmd.Flags().DurationVar(&o.Timeout, "timeout", o.Timeout, "How long to wait for fed to clean the member up and the Cluster to go.")
	return cmd
}

// Complete takes the name and makes the clients.
func (o *UnjoinOptions) Complete(cmd *cobra.Command, args []string) error {
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
	o.fed, o.host, err = fleet.HostClients(o.ConfigFlags)
	return err
}

// Validate checks the timeout.
func (o *UnjoinOptions) Validate() error {
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

// Run deletes the Cluster and waits until it is gone (fed cleans the member up meanwhile,
// with the credentials join gave it), then removes the credentials: the host's Secret and,
// with the member's kubeconfig, what join made there. Run again after a failure, it
// finishes what is left, the Cluster being gone already.
func (o *UnjoinOptions) Run(ctx context.Context) error {
	clusters := o.fed.ClusterV1alpha1().Clusters()
	c, err := clusters.Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && o.member != nil {
		cmdline.Progress(o.ErrOut, "cluster %s is not in the fleet; removing what join made for it", o.Name)
		c, err = &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: o.Name},
			Spec: clusterv1alpha1.ClusterSpec{SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: clusterv1alpha1.FedNamespace, Name: o.Name}}}, nil
	}
	if err != nil {
		return err
	}
	if m := o.member; m != nil {
		if err := m.Probe(ctx); err != nil {
			return err
		}
		if c.Spec.ID != "" && c.Spec.ID != m.ID {
			return fmt.Errorf("the cluster at %s (kube-system UID %s) is not cluster %s (id %s); refusing to remove fed from it",
				m.Endpoint, m.ID, o.Name, c.Spec.ID)
		}
	}
	if c.UID != "" {
		if err := o.deleteCluster(ctx, c); err != nil {
			return err
		}
	}
	if m := o.member; m != nil {
		if err := m.Uninstall(ctx); err != nil {
			return err
		}
		cmdline.Progress(o.ErrOut, "member: removed clusterrolebinding %s, serviceaccount %s and namespace %s",
			member.ClusterRoleBinding, clusterv1alpha1.MemberServiceAccount, clusterv1alpha1.FedNamespace)
	}
	// Only the Secret join made is deleted; a secretRef set by hand may point at a shared one.
	if ref := c.Spec.SecretRef; ref != nil && ref.Namespace == clusterv1alpha1.FedNamespace && ref.Name == c.Name {
		if err := o.host.CoreV1().Secrets(ref.Namespace).Delete(ctx, ref.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("in the host: %w", err)
		}
	}
	return cmdline.PrintCluster(o.PrintFlags, "unjoined", c, o.Out)
}

// deleteCluster deletes the Cluster and waits until it is gone: fed removes from the member
// what it propagated there first.
func (o *UnjoinOptions) deleteCluster(ctx context.Context, c *clusterv1alpha1.Cluster) error {
	uid := c.UID
	err := o.fed.ClusterV1alpha1().Clusters().Delete(ctx, o.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	cmdline.Progress(o.ErrOut, "waiting up to %s for fed to remove its objects from %s and the Cluster to go", o.Timeout, o.Name)
	if err := waitGone(ctx, o.fed, o.Name, uid, o.Timeout); err != nil {
		return fmt.Errorf("cluster %s is still being deleted after %s: fed is removing from it what it propagated there "+
			"(see 'kubectl get works -n %s'); run kubectl fed unjoin %s again to wait longer: %w",
			o.Name, o.Timeout, federationv1alpha1.ExecutionNamespace(o.Name), o.Name, err)
	}
	return nil
}
