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

package search

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/listing"
)

// SearchOptions are the inputs of `kubectl fed search`.
type SearchOptions struct {
	listing.Options
}

// NewCmdSearch is `kubectl fed search TYPE [NAME...]`.
func NewCmdSearch(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &SearchOptions{Options: listing.NewOptions(configFlags, streams)}
	cmd := &cobra.Command{
		Use:   "search TYPE[.VERSION][.GROUP] [NAME...] [flags]",
		Short: "Search the objects of every member cluster in fed's search cache",
		Long: fmt.Sprintf(`Search the objects of the member clusters in fed's search cache: one request to the host
answers for every member, from what fed-apiserver keeps of the kinds ResourceRegistries
name (kubectl get resourceregistries shows them, with their clusters and how many objects
each holds). The members themselves are not asked: a kind no registry caches is an error
that says how to cache it (kubectl fed get reads the members).

The output is kubectl fed get's: one table with a CLUSTER column after NAME and an ADOPTION
column (Y when fed manages the object), or kubectl's -o formats, whose items carry the
annotations %s and %s naming their cluster. Objects carry the cache's resourceVersion,
not the member's.

-l and --field-selector filter as kube-apiserver does (metadata.name, metadata.namespace
and the fields the kind supports, such as status.phase or spec.nodeName for pods); -C
limits the search to some members; a NAME is looked up in every member, and is NotFound
when none has it. -w follows the cache's watch. TYPE resolves with the discovery of the
first member searched.

Objects of a member that the cache cannot reach are shown as it last saw them, with a
warning; objects the cache may lack (a member not yet synced, a kind cached in some
namespaces only) are warned about too. -v=1 says what is read.`, searchv1alpha1.AnnotationCluster, fleet.AnnotationCluster),
		Example: `  # The pods of every member cluster, in the current namespace
  kubectl fed search pods

  # The deployments labelled app=web in all namespaces of member1 and member2
  kubectl fed search deploy -A -l app=web -C member1,member2

  # The pods that are not running, everywhere, with their nodes
  kubectl fed search pods -A --field-selector status.phase!=Running -o wide

  # The pod web-0 in whichever member has it, as YAML
  kubectl fed search pod web-0 -o yaml

  # Watch the pods of every member
  kubectl fed search pods -w`,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completing.TypesAndNames(configFlags, &o.Clusters, false)(cmd, args, toComplete)
		},
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
	o.AddFlags(cmd, "watch for changes in the search cache.")
	o.Clusters.AddFlags(cmd.Flags(), "Search every member cluster (the default without -C).")
	completing.RegisterClustersFlag(cmd, configFlags)
	return cmd
}

// Complete takes the arguments and reads the namespace of the kubeconfig.
func (o *SearchOptions) Complete(_ *cobra.Command, args []string) error {
	return o.Options.Complete(args)
}

// Validate needs a TYPE and, with -w, one kind.
func (o *SearchOptions) Validate() error {
	return o.Options.Validate()
}

// Run asks the search cache, and prints its answer as kubectl fed get prints the members'.
func (o *SearchOptions) Run(ctx context.Context) error {
	return o.Search(ctx)
}
