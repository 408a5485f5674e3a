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
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/searching"
)

// SearchOptions are the inputs of `kubectl fed search`.
type SearchOptions struct {
	listOptions
	ConfigFlags *genericclioptions.ConfigFlags
	Clusters    fleet.ClusterFlags
}

// NewCmdSearch is `kubectl fed search TYPE [NAME...]`.
func NewCmdSearch(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &SearchOptions{listOptions: newListOptions(streams), ConfigFlags: configFlags}
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
			return completeTypesAndNames(configFlags, &o.Clusters, false)(cmd, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return usageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd, "watch for changes in the search cache.")
	o.Clusters.AddFlags(cmd.Flags(), "Search every member cluster (the default without -C).")
	registerClustersCompletion(cmd, configFlags)
	return cmd
}

// Complete takes the arguments and reads the namespace of the kubeconfig.
func (o *SearchOptions) Complete(_ *cobra.Command, args []string) error {
	return o.complete(o.ConfigFlags, args)
}

// Validate needs a TYPE and, with -w, one kind.
func (o *SearchOptions) Validate() error {
	return o.validate()
}

// Run asks the search cache, and prints its answer as kubectl fed get prints the members'.
func (o *SearchOptions) Run(ctx context.Context) error {
	st, err := readHost(ctx, o.ConfigFlags, true)
	// Searching needs the search roles only (fed:search-view): without the right to list
	// Clusters, the members are those the registries cache, and kinds resolve through the
	// fleet proxy's discovery rather than a member's.
	byRegistries := apierrors.IsForbidden(err) && st.RegistriesErr == nil
	switch {
	case byRegistries:
		st.Members = cachedClusters(st.Registries)
		klog.V(1).Infof("you may not list clusters: searching the clusters the ResourceRegistries cache (%s)", strings.Join(st.Members, ", "))
	case err != nil:
		return err
	}
	all := st.Members
	if len(all) == 0 {
		return fmt.Errorf("no member cluster has joined the fleet (kubectl get clusters lists them, kubectl fed join adds one)")
	}
	names, failures := selectMembers(all, o.Clusters.Clusters)
	first := all[0]
	if len(names) > 0 {
		first = names[0]
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	cfg, err := fleet.MemberConfig(host, first)
	if byRegistries {
		cfg, err = fleet.ProxyConfig(host)
	}
	if err != nil {
		return err
	}
	member := fleet.NewConfigGetter(o.ConfigFlags, cfg)
	mapper, err := member.ToRESTMapper()
	if err != nil {
		return err
	}
	queries, err := cacheQueries(o.Args, mapper)
	if err != nil {
		return fmt.Errorf("%w (types resolve with the discovery of %s, the first member searched; -C names others)", err, first)
	}
	var sources []source
	if len(names) > 0 {
		var clusters []string
		if len(o.Clusters.Clusters) > 0 {
			clusters = names
		}
		sources = append(sources, source{Getter: fleet.NewCacheGetter(o.ConfigFlags, member), Args: o.Args,
			Cache: &cacheSource{Clusters: clusters, Members: names, Queries: queries}})
		o.warnGaps(o.ErrOut, queries, names, st.Registries, st.RegistriesErr)
	}
	return o.show(ctx, sources, failures)
}

// warnGaps warns about what the cache may lack for the queries, from the registries'
// status, and says at -v=1 what is read. A kind no registry caches is left to the cache's
// answer, which is the command's error.
func (o *SearchOptions) warnGaps(out io.Writer, queries []cacheQuery, clusters []string, registries []searchv1alpha1.ResourceRegistry, regErr error) {
	seen := map[string]bool{}
	for _, q := range queries {
		resource := resourceName(q.Mapping)
		if seen[resource] {
			continue
		}
		seen[resource] = true
		klog.V(1).Infof("reading %s of %s from the search cache", resource, clusterList(clusters))
		if regErr != nil {
			klog.V(1).Infof("not checking what the search cache holds: %v", regErr)
			continue
		}
		ns := o.Namespace
		if o.AllNamespaces || q.Mapping.Scope.Name() == meta.RESTScopeNameRoot {
			ns = ""
		}
		gap := searching.Gaps(registries, q.Mapping.GroupVersionKind, resource, clusters, ns)
		if gap != "" && gap != searching.Uncached(resource) {
			fmt.Fprintf(out, "Warning: the search cache may lack %s: %s\n", resource, gap)
		}
	}
}

// cachedClusters are the clusters the registries' status says they cache, in order.
func cachedClusters(registries []searchv1alpha1.ResourceRegistry) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range registries {
		for _, c := range r.Status.Caches {
			if !seen[c.Cluster] {
				seen[c.Cluster] = true
				out = append(out, c.Cluster)
			}
		}
	}
	slices.Sort(out)
	return out
}
