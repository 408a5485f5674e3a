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

// Package completing is the shell completion of kubectl fed's arguments and flags: the
// fleet's cluster names (arguments and -C/--clusters), and TYPE and NAME as kubectl get
// completes them, from the fleet API or a member.
package completing

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"

	"github.com/fedhq/fed/plugin/fleet"
)

// ClusterNames completes the names of the fleet's clusters for shell completion.
func ClusterNames(configFlags *genericclioptions.ConfigFlags, toComplete string) []string {
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

// ClusterArgs is a ValidArgsFunction completing cluster names, at most max of
// them (any number when max is 0).
func ClusterArgs(configFlags *genericclioptions.ConfigFlags, max int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return ClusterNames(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// RegisterClustersFlag completes the member names of -C/--clusters, the last of a
// comma-separated list.
func RegisterClustersFlag(cmd *cobra.Command, configFlags *genericclioptions.ConfigFlags) {
	_ = cmd.RegisterFlagCompletionFunc("clusters", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		prefix, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
		}
		var comps []string
		for _, name := range ClusterNames(configFlags, last) {
			comps = append(comps, prefix+name)
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	})
}

// TypesAndNames completes TYPE and NAME as kubectl get does, from the discovery and
// the objects of the fleet API when fleetAPI, else of the first member -C names (the first
// joined member without -C).
func TypesAndNames(configFlags *genericclioptions.ConfigFlags, clusters *fleet.ClusterFlags, fleetAPI bool) cobra.CompletionFunc {
	if fleetAPI {
		return completion.ResourceTypeAndNameCompletionFunc(cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(fleet.NewFleetGetter(configFlags))))
	}
	return completion.ResourceTypeAndNameCompletionFunc(fleet.NewMemberFactory(configFlags, func() string {
		if len(clusters.Clusters) > 0 {
			return clusters.Clusters[0]
		}
		if names, err := fleet.Members(context.Background(), configFlags); err == nil && len(names) > 0 {
			return names[0]
		}
		return ""
	}))
}
