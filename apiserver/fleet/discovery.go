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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apiserver/scheme"
)

// servedSet is everything the fleet serves at one time; a refresh replaces it whole.
type servedSet struct {
	resources map[schema.GroupVersionResource]*served
	order     []*served
	fedGroups map[string]bool
	// fedDiscovery are fed's own groups, listed in the fleet's /apis.
	fedDiscovery []metav1.APIGroup

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
		if r.scale != nil {
			scale := base
			scale.Name += "/scale"
			scale.SingularName = ""
			scale.Group, scale.Version, scale.Kind = "autoscaling", "v1", "Scale"
			scale.Verbs = []string{"get", "patch", "update"}
			list = append(list, scale)
		}
		byGV[gv] = list
	}

	s.legacyRoot = discovery.NewLegacyRootAPIHandler(discovery.DefaultAddresses{}, scheme.Codecs, "/api")
	root := discovery.NewRootAPIsHandler(discovery.DefaultAddresses{}, scheme.Codecs)
	s.groups = map[string]http.Handler{}
	s.versions = map[schema.GroupVersion]http.Handler{}
	groups := map[string]*metav1.APIGroup{}
	var groupOrder []string
	for _, gv := range gvs {
		resources := byGV[gv]
		s.versions[gv] = discovery.NewAPIVersionHandler(scheme.Codecs, gv, discovery.APIResourceListerFunc(func() []metav1.APIResource { return resources }))
		if gv.Group == "" {
			continue
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
	s.root = root
}

// fedDiscovery asks fed-apiserver's own handler for its groups.
func (f *Fleet) fedDiscovery() []metav1.APIGroup {
	if f.cfg.Fed == nil {
		return nil
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", "application/json")
	f.cfg.Fed.ServeHTTP(rec, req)
	var list metav1.APIGroupList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		klog.ErrorS(err, "Reading fed-apiserver's own API groups", "status", rec.Code)
		return nil
	}
	var out []metav1.APIGroup
	for _, g := range list.Groups {
		if f.fedGroups[g.Name] {
			out = append(out, g)
		}
	}
	return out
}
