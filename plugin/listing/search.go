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

package listing

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/searching"
)

// Search asks the search cache for the objects of the arguments, and prints its answer as
// Get prints the members'.
func (o *Options) Search(ctx context.Context) error {
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
func (o *Options) warnGaps(out io.Writer, queries []cacheQuery, clusters []string, registries []searchv1alpha1.ResourceRegistry, regErr error) {
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
