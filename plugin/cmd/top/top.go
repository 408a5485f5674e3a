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
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/fedhq/fed/plugin/fleet"
)

// topLayout is how kubectl fed top prints, for the help of top, top pod and top node.
const topLayout = `Each member's usage is printed by kubectl top's own printer, as a table of its own under a
line "Cluster: NAME", a blank line between members, in the order of the members (by name,
or as -C lists them): kubectl's table has no CLUSTER column, and the same pod or node name
may be in several members. --sort-by sorts the rows of each member; --no-headers drops the
tables' headers, not the Cluster lines.`

// NewCmdTop is `kubectl fed top`, with the subcommands pod and node.
func NewCmdTop(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Display resource (CPU/memory) usage of the member clusters",
		Long: `Display the resource (CPU/memory) usage of pods or nodes of member clusters, as kubectl
top does.

` + topLayout + `

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

// TopOptions are the inputs top pod and top node share.
type TopOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	Clusters      fleet.ClusterFlags
	Name          string
	LabelSelector string
	SortBy        string
	NoHeaders     bool
}

func (o *TopOptions) addFlags(cmd *cobra.Command) {
	o.Clusters.AddFlags(cmd.Flags(), "Query every member cluster (the default).")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	cmd.Flags().StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort the list using specified field. The field can be either 'cpu' or 'memory'.")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "If present, print output without headers.")
}

// Complete takes the NAME and checks the selector's syntax.
func (o *TopOptions) Complete(_ *cobra.Command, args []string) error {
	if len(args) == 1 {
		o.Name = args[0]
	}
	if o.LabelSelector != "" {
		if _, err := labels.Parse(o.LabelSelector); err != nil {
			return err
		}
	}
	return nil
}

// Validate refuses a NAME with a selector and a --sort-by other than cpu or memory.
func (o *TopOptions) Validate() error {
	if o.Name != "" && o.LabelSelector != "" {
		return errors.New("only one of NAME or --selector can be provided")
	}
	switch o.SortBy {
	case "", "cpu", "memory":
		return nil
	}
	return errors.New("--sort-by accepts only cpu or memory")
}

// printMembers prints what each member answered, leaving out those that failed or have
// nothing to show: a line "Cluster: NAME" and the member's table as print writes it, a
// blank line between members.
func printMembers[T any](out io.Writer, results []fleet.MemberResult[T], empty func(T) bool, print func(T) error) error {
	printed := false
	for _, r := range results {
		if r.Err != nil || empty(r.Value) {
			continue
		}
		if printed {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "Cluster: %s\n", r.Cluster)
		if err := print(r.Value); err != nil {
			return err
		}
		printed = true
	}
	return nil
}

// warnFailed writes "Warning: cluster NAME: ..." for each member that failed and returns
// the command's error naming them, nil when none failed.
func warnFailed[T any](errOut io.Writer, results []fleet.MemberResult[T]) error {
	var names []string
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(errOut, "Warning: cluster %s: %v\n", r.Cluster, r.Err)
			names = append(names, r.Cluster)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("clusters not shown (see the warnings above): %s", strings.Join(names, ", "))
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
