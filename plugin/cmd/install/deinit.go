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

package install

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/install"
)

// DeinitOptions are the inputs of `kubectl fed deinit`.
type DeinitOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	DeleteData  bool
	Wait        bool
	WaitTimeout time.Duration

	dryRun cmdutil.DryRunStrategy
	host   *install.Host
}

// NewCmdDeinit is `kubectl fed deinit`.
func NewCmdDeinit(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DeinitOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags(""), Wait: true, WaitTimeout: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:                   "deinit [--delete-data] [--dry-run=server|client] [--wait=false]",
		DisableFlagsInUseLine: true,
		Short:                 "Remove fed from the host cluster",
		Long: `Remove fed from the host cluster: the APIServices first (the host stops serving fed's APIs),
then fed-apiserver's StatefulSet or Deployment, its PodDisruptionBudget, Service, RBAC,
service account and the Secret of its serving certificate: every object of fed's chart
(artifacts/charts/fed), whichever storage mode installed it. Objects that do not exist are
skipped, so deinit can be run again. As kubectl delete does, deinit then waits until what it
deleted is gone (--wait-timeout; --wait=false does not), so that kubectl fed init can follow
at once.

deinit keeps fed's data: the namespace fed-system with the PersistentVolumeClaim of the
Badger database (templates, policies, clusters) and the members' credentials that
kubectl fed join stored there, so that kubectl fed init brings the fleet back as it was
(while fed is not running, nothing renews the members' tokens: a member whose token expired
meanwhile is joined again).
--delete-data deletes the namespace, and with it all of that. fed's objects in an etcd
(--storage=etcd3) are never touched.

The member clusters are not touched: what fed propagated there stays as it is, no longer
managed, and so does what join installed (the namespace fed-system, the service account fed
and its bindings). To remove that too, run kubectl fed unjoin NAME --cluster-kubeconfig
FILE for each member before deinit.`,
		Example: `  # What deinit would delete, checked by the host
  kubectl fed deinit --dry-run=server

  # Remove fed-apiserver, keeping fed's data
  kubectl fed deinit

  # Remove everything fed keeps in the host, its database and the members' credentials included
  kubectl fed deinit --delete-data`,
		ValidArgsFunction: cobra.NoFileCompletions,
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
	cmdutil.AddDryRunFlag(cmd)
	cmd.Flags().BoolVar(&o.DeleteData, "delete-data", false, "Also delete the namespace fed-system: the Badger database's volume and the members' credentials with it.")
	cmd.Flags().BoolVar(&o.Wait, "wait", o.Wait, "Wait until the objects deleted are gone (the namespace, once the host emptied it).")
	cmd.Flags().DurationVar(&o.WaitTimeout, "wait-timeout", o.WaitTimeout, "How long --wait waits.")
	return cmd
}

// Complete reads the dry-run strategy and makes the host's clients.
func (o *DeinitOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		return cmdline.UsageError(cmd, "deinit takes no arguments, got %q", args)
	}
	var err error
	if o.dryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	o.host, err = installHost(o.ConfigFlags)
	return err
}

// Validate checks the wait's timeout.
func (o *DeinitOptions) Validate() error {
	if o.Wait && o.WaitTimeout <= 0 {
		return fmt.Errorf("--wait-timeout must be positive")
	}
	return nil
}

// Run deletes the install's objects and says what it keeps.
func (o *DeinitOptions) Run(ctx context.Context) error {
	mode := map[cmdutil.DryRunStrategy]install.DryRun{cmdutil.DryRunNone: install.NoDryRun,
		cmdutil.DryRunServer: install.ServerDryRun, cmdutil.DryRunClient: install.ClientDryRun}[o.dryRun]
	what := "Removing fed from"
	if o.dryRun != cmdutil.DryRunNone {
		what = "What removing fed would delete in"
	}
	cmdline.Progress(o.ErrOut, "%s %s", what, describeHost(o.ConfigFlags))
	objs, err := install.InstalledObjects()
	if err != nil {
		return err
	}
	remains, err := o.host.Remaining(ctx, objs)
	if err != nil {
		return err
	}
	if o.DeleteData && remains.Namespace {
		objs = append(objs, install.NamespaceObject())
	}
	results, err := o.host.Delete(ctx, objs, mode)
	for _, r := range results {
		if perr := printResult(o.PrintFlags, nil, o.dryRun, r.Object, r.Operation, o.Out); perr != nil {
			return perr
		}
	}
	if err != nil {
		return err
	}
	if len(results) == 0 {
		cmdline.Progress(o.ErrOut, "No objects of fed's install found in %s", describeHost(o.ConfigFlags))
	}
	if o.Wait && o.dryRun == cmdutil.DryRunNone && len(results) > 0 {
		deleted := make([]*unstructured.Unstructured, len(results))
		for i, r := range results {
			deleted[i] = r.Object
		}
		cmdline.Progress(o.ErrOut, "Waiting up to %s for the deleted objects to be gone", o.WaitTimeout)
		ctx, cancel := context.WithTimeout(ctx, o.WaitTimeout)
		defer cancel()
		if err := o.host.WaitGone(ctx, deleted); err != nil {
			return fmt.Errorf("%w (kubectl get shows what it waits for; kubectl fed deinit --wait=false does not wait)", err)
		}
	}
	printKept(o.Out, remains, o.DeleteData)
	return nil
}

// printKept says what deinit leaves: fed's data in the host, unless deleted, and the members.
func printKept(out io.Writer, r *install.Remains, deleteData bool) {
	var data []string
	for _, v := range r.Volumes {
		data = append(data, "  persistentvolumeclaim/"+v+": fed's Badger database (templates, policies, clusters)")
	}
	if len(r.Secrets) > 0 {
		data = append(data, "  secret/"+strings.Join(r.Secrets, ", secret/")+": the members' credentials (kubectl fed join), and any other Secret put there")
	}
	switch {
	case r.Namespace && deleteData:
		if len(data) > 0 {
			fmt.Fprintf(out, "\nDeleted with the namespace %s:\n%s\n", install.Namespace, strings.Join(data, "\n"))
		}
	case r.Namespace:
		fmt.Fprintf(out, "\nKept (kubectl fed init uses them again; --delete-data deletes them):\n  namespace/%s\n", install.Namespace)
		for _, d := range data {
			fmt.Fprintln(out, d)
		}
	}
	if r.EtcdServers != "" {
		fmt.Fprintf(out, "Not touched: fed's objects in etcd (%s, prefix %s).\n", r.EtcdServers, r.EtcdPrefix)
	}
	fmt.Fprintf(out, `Not touched: the member clusters. What fed propagated there stays, no longer managed, and so
does what kubectl fed join installed there (namespace %s, service account fed and its
bindings); kubectl fed unjoin NAME --cluster-kubeconfig FILE, run before deinit, removes it.
`, install.Namespace)
}
