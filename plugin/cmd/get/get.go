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

package get

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/listing"
	"github.com/fedhq/fed/plugin/tables"
)

// GetOptions are the inputs of `kubectl fed get`.
type GetOptions struct {
	listing.Options
	// Cache reads member objects from the search cache when it holds them.
	Cache bool
}

// NewCmdGet is `kubectl fed get TYPE [NAME...]`.
func NewCmdGet(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &GetOptions{Options: listing.NewOptions(configFlags, streams), Cache: true}
	cmd := &cobra.Command{
		Use:   "get TYPE[.VERSION][.GROUP] [NAME...] [flags]",
		Short: "Display templates of the fleet and objects of member clusters",
		Long: fmt.Sprintf(`Display templates of the fleet API and the objects of member clusters in one table,
with a CLUSTER column after NAME (%q for a template) and an ADOPTION column: Y when the
member object is managed by fed (label %s=true), N when it is not, %q for a template.

For a kind that has templates, kubectl fed get shows the templates; --all-clusters or
-C/--clusters adds the objects of those members. For a kind that has no template, it
queries the members only, every joined member unless -C says which: a kind the fleet API
does not serve, or one the members make for themselves (pods, nodes, events, endpoints,
endpointslices, replicasets, controllerrevisions, leases).

The clusters are queried in parallel. The output formats are kubectl's; with -o json, yaml,
name, jsonpath, go-template or custom-columns the items of a member carry the annotation
%s naming their cluster (templates carry none).

Member objects are read from fed's search cache instead, in one request, when it holds the
kind for every member queried: a ResourceRegistry caches it there, synced and not stale, in
every namespace or in the one asked for (kubectl get resourceregistries shows them). Names,
selectors and -w work the same; objects from the cache carry its resourceVersion (not the
member's) and the annotation %s too. -v=1 says whether the cache or the members answered,
and why; --cache=false always asks the members. kubectl fed search reads the cache only.

A cluster that fails is reported as "Warning: cluster NAME: ..." on standard error and the
others are still shown; the exit code is then 1, as kubectl get exits 1 when one of the
objects it was asked for could not be read. A NAME found in some clusters only is not an
error; found nowhere, it is NotFound.`, tables.TemplateCluster, federationv1alpha1.LabelManaged, tables.TemplateCluster,
			fleet.AnnotationCluster, searchv1alpha1.AnnotationCluster),
		Example: `  # Deployment templates of the current namespace
  kubectl fed get deployments

  # The templates and the Deployments of every member, in all namespaces
  kubectl fed get deploy --all-clusters -A

  # The pods of member1 and member2, as YAML
  kubectl fed get pods -C member1,member2 -o yaml

  # Watch the pods of every member
  kubectl fed get pods -w

  # Say whether the pods come from the search cache or from the members, and ask the members
  kubectl fed get pods -A -v=1
  kubectl fed get pods -A --cache=false`,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completing.TypesAndNames(configFlags, &o.Clusters, !o.Clusters.Selected())(cmd, args, toComplete)
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
	o.AddFlags(cmd, "watch for changes in every cluster queried.")
	o.Clusters.AddFlags(cmd.Flags(), "Show the objects of every member cluster too.")
	completing.RegisterClustersFlag(cmd, configFlags)
	cmd.Flags().BoolVar(&o.Cache, "cache", o.Cache, "Read member objects from the search cache when it holds them for every member queried; false asks the members.")
	return cmd
}

// Complete takes the arguments and reads the namespace of the kubeconfig.
func (o *GetOptions) Complete(_ *cobra.Command, args []string) error {
	return o.Options.Complete(args)
}

// Validate needs a TYPE and, with -w, one kind.
func (o *GetOptions) Validate() error {
	return o.Options.Validate()
}

// Run queries the sources in parallel and prints what they answer.
func (o *GetOptions) Run(ctx context.Context) error {
	return o.Get(ctx, o.Cache)
}
