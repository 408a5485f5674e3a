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
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/scheme"
	"github.com/fedhq/fed/plugin/fleet"
)

// newPrintFlags are kubectl's -o flags, printing "cluster.cluster.fedhq.io/NAME <operation>"
// by default.
func newPrintFlags(operation string) *genericclioptions.PrintFlags {
	return genericclioptions.NewPrintFlags(operation).WithTypeSetter(scheme.Scheme)
}

// printCluster prints a Cluster with the printer the -o flags chose, reporting operation.
func printCluster(pf *genericclioptions.PrintFlags, operation string, c *clusterv1alpha1.Cluster, out io.Writer) error {
	pf.NamePrintFlags.Operation = operation
	p, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(c.DeepCopy(), out)
}

// completeClusterNames completes the names of the fleet's clusters for shell completion.
func completeClusterNames(configFlags *genericclioptions.ConfigFlags, toComplete string) []string {
	all, err := fleet.Members(context.Background(), configFlags)
	if err != nil {
		return nil
	}
	var names []string
	for _, name := range all {
		if strings.HasPrefix(name, toComplete) {
			names = append(names, name)
		}
	}
	return names
}

// clusterNamesCompletion is a ValidArgsFunction completing cluster names, at most max of
// them (any number when max is 0).
func clusterNamesCompletion(configFlags *genericclioptions.ConfigFlags, max int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeClusterNames(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// registerClustersCompletion completes the member names of -C/--clusters, the last of a
// comma-separated list.
func registerClustersCompletion(cmd *cobra.Command, configFlags *genericclioptions.ConfigFlags) {
	_ = cmd.RegisterFlagCompletionFunc("clusters", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		prefix, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
		}
		var comps []string
		for _, name := range completeClusterNames(configFlags, last) {
			comps = append(comps, prefix+name)
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	})
}
