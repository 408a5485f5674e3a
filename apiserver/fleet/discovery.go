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

package fleet

import (
	"net/http"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apiserver/scheme"
)

// servedSet is everything the fleet serves at one time; a refresh replaces it whole.
type servedSet struct {
	resources map[schema.GroupVersionResource]*served
	order     []*served
	fedGroups map[string]bool
	// fedDiscovery are fed's own groups, listed in the fleet's /apis, and fedAggregated the
	// same in aggregated discovery.
	fedDiscovery  []metav1.APIGroup
	fedAggregated []apidiscoveryv2.APIGroupDiscovery

	legacyRoot http.Handler
	root       http.Handler
	groups     map[string]http.Handler
	versions   map[schema.GroupVersion]http.Handler
}

// buildDiscovery makes the discovery documents of the set: /api, /apis, and one per group
// and group version, in the order the host listed its kinds, fed's groups last.
func (s *servedSet) buildDiscovery() {
	byGV := map[schema.GroupVersion][]metav1.APIResource{}
	var gvs []schema.GroupVersion
	for _, sv := range s.order {
		r := sv.r
		gv := r.gvr.GroupVersion()
		if _, ok := byGV[gv]; !ok {
			gvs = append(gvs, gv)
		}
		base := metav1.APIResource{Name: r.gvr.Resource, SingularName: r.singular, Namespaced: r.namespaced, Kind: r.kind}
		if r.fromCRD {
			// The apiextensions-apiserver names a custom resource's group and version.
			base.Group, base.Version = gv.Group, gv.Version
		}
		main := base
		main.Verbs = r.verbs
		main.ShortNames = r.shortNames
		main.Categories = r.categories
		list := append(byGV[gv], main)
		if r.status {
			status := base
			status.Name += "/status"
			status.SingularName = ""
			status.Verbs = []string{"get", "patch", "update"}
			list = append(list, status)
		}
		if r.gvr == namespacesGVR {
			finalize := base
			finalize.Name += "/finalize"
			finalize.SingularName = ""
			finalize.Verbs = []string{"update"}
			list = append(list, finalize)
		}
		if r.scale {
			scale := base
			scale.Name += "/scale"
			scale.SingularName = ""
			scale.Group, scale.Version, scale.Kind = "autoscaling", "v1", "Scale"
			scale.Verbs = []string{"get", "patch", "update"}
			list = append(list, scale)
		}
		byGV[gv] = list
	}
	for _, list := range byGV {
		// By name, subresources after their resource, as kube-apiserver lists them.
		sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	}

	legacyRoot := discovery.NewLegacyRootAPIHandler(discovery.DefaultAddresses{}, scheme.Codecs, "/api")
	root := discovery.NewRootAPIsHandler(discovery.DefaultAddresses{}, scheme.Codecs)
	aggregatedCore, aggregatedGroups := aggregated.NewResourceManager("api"), aggregated.NewResourceManager("apis")
	var groupsDiscovery []apidiscoveryv2.APIGroupDiscovery
	groupIndex := map[string]int{}
	s.groups = map[string]http.Handler{}
	s.versions = map[schema.GroupVersion]http.Handler{}
	groups := map[string]*metav1.APIGroup{}
	var groupOrder []string
	for _, gv := range gvs {
		resources := byGV[gv]
		s.versions[gv] = discovery.NewAPIVersionHandler(scheme.Codecs, gv, discovery.APIResourceListerFunc(func() []metav1.APIResource { return resources }))
		version := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Resources: aggregatedResources(resources), Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
		if gv.Group == "" {
			aggregatedCore.SetGroups([]apidiscoveryv2.APIGroupDiscovery{{Versions: []apidiscoveryv2.APIVersionDiscovery{version}}})
			continue
		}
		if i, ok := groupIndex[gv.Group]; ok {
			groupsDiscovery[i].Versions = append(groupsDiscovery[i].Versions, version)
		} else {
			groupIndex[gv.Group] = len(groupsDiscovery)
			groupsDiscovery = append(groupsDiscovery, apidiscoveryv2.APIGroupDiscovery{
				ObjectMeta: metav1.ObjectMeta{Name: gv.Group}, Versions: []apidiscoveryv2.APIVersionDiscovery{version}})
		}
		g, ok := groups[gv.Group]
		if !ok {
			version := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
			g = &metav1.APIGroup{Name: gv.Group, PreferredVersion: version}
			groups[gv.Group] = g
			groupOrder = append(groupOrder, gv.Group)
		}
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version})
	}
	for _, name := range groupOrder {
		g := *groups[name]
		sort.SliceStable(g.Versions, func(i, j int) bool { return g.Versions[i].Version == g.PreferredVersion.Version })
		root.AddGroup(g)
		s.groups[name] = discovery.NewAPIGroupHandler(scheme.Codecs, g)
	}
	for _, g := range s.fedDiscovery {
		root.AddGroup(g)
	}
	// The host's order: groups by their position in its discovery, fed's last.
	all := append(groupsDiscovery, s.fedAggregated...)
	aggregatedGroups.SetGroups(all)
	for i, g := range all {
		for j, v := range g.Versions {
			aggregatedGroups.SetGroupVersionPriority(metav1.GroupVersion{Group: g.Name, Version: v.Version}, len(all)-i, len(g.Versions)-j)
		}
	}
	s.legacyRoot = aggregated.WrapAggregatedDiscoveryToHandler(legacyRoot, aggregatedCore, nil)
	s.root = aggregated.WrapAggregatedDiscoveryToHandler(root, aggregatedGroups, nil)
}

// aggregatedResources lists a group version's resources for aggregated discovery, each
// with its subresources.
func aggregatedResources(resources []metav1.APIResource) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	index := map[string]int{}
	for _, r := range resources {
		scope := apidiscoveryv2.ScopeCluster
		if r.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		parent, sub, isSub := strings.Cut(r.Name, "/")
		// The group and version of a native kind of the resource's own group version are
		// left empty, as kube-apiserver leaves them (a scale's are autoscaling/v1).
		kind := &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if !isSub {
			index[parent] = len(out)
			out = append(out, apidiscoveryv2.APIResourceDiscovery{
				Resource: r.Name, ResponseKind: kind, Scope: scope, SingularResource: r.SingularName,
				Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
			})
			continue
		}
		if i, ok := index[parent]; ok {
			out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: sub, ResponseKind: kind, Verbs: r.Verbs})
		}
	}
	return out
}

// fedDiscovery asks fed-apiserver's own handler for its groups, in both discovery forms.
func (f *Fleet) fedDiscovery() ([]metav1.APIGroup, []apidiscoveryv2.APIGroupDiscovery) {
	if f.cfg.Fed == nil {
		return nil, nil
	}
	var list metav1.APIGroupList
	if err := f.fedDo(http.MethodGet, "/apis", "", "application/json", &list); err != nil {
		klog.ErrorS(err, "Reading fed-apiserver's own API groups")
	}
	var groups []metav1.APIGroup
	for _, g := range list.Groups {
		if f.fedGroups[g.Name] {
			groups = append(groups, g)
		}
	}
	var agg apidiscoveryv2.APIGroupDiscoveryList
	if err := f.fedDo(http.MethodGet, "/apis", "", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", &agg); err != nil {
		klog.ErrorS(err, "Reading fed-apiserver's own API groups (aggregated discovery)")
	}
	var aggGroups []apidiscoveryv2.APIGroupDiscovery
	for _, g := range agg.Items {
		if f.fedGroups[g.Name] {
			aggGroups = append(aggGroups, g)
		}
	}
	return groups, aggGroups
}
