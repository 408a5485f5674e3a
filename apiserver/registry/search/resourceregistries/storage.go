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

package resourceregistries

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*search.ResourceRegistry]{
	{Name: "Kinds", Type: "string", Description: "The kinds the registry caches, as kind.group.",
		Cell: func(r *search.ResourceRegistry) any { return kinds(r.Spec.ResourceSelectors) }},
	{Name: "Clusters", Type: "integer", Description: "How many member clusters the cache holds objects of.",
		Cell: func(r *search.ResourceRegistry) any { return int64(clusters(r.Status.Caches)) }},
	{Name: "Synced", Type: "string", Description: "How many caches (one per cluster and resource selector) are synced, of how many.",
		Cell: func(r *search.ResourceRegistry) any { return synced(r.Status.Caches) }},
	{Name: "Objects", Type: "integer", Description: "How many objects the caches hold in all.",
		Cell: func(r *search.ResourceRegistry) any { return objects(r.Status.Caches) }},
	{Name: "Ready", Type: "string", Wide: true, Description: "The status of the Ready condition.",
		Cell: func(r *search.ResourceRegistry) any {
			return registrykit.ConditionStatus(r.Status.Conditions, search.ResourceRegistryConditionReady)
		}},
	{Name: "Stale", Type: "integer", Wide: true, Description: "How many caches are of a member that cannot be reached.",
		Cell: func(r *search.ResourceRegistry) any { return stale(r.Status.Caches) }},
}

// kinds prints the selected kinds as kubectl names them, kind.group (kind
// alone for the core group), each once and in the order of the selectors:
// "Deployment.apps,Pod".
func kinds(selectors []search.ResourceSelector) string {
	var out []string
	seen := sets.New[string]()
	for _, rs := range selectors {
		gk := schema.FromAPIVersionAndKind(rs.APIVersion, rs.Kind).GroupKind().String()
		if !seen.Has(gk) {
			seen.Insert(gk)
			out = append(out, gk)
		}
	}
	return registrykit.OrNone(strings.Join(out, ","))
}

// clusters counts the distinct clusters of the caches.
func clusters(caches []search.CacheStatus) int {
	names := sets.New[string]()
	for _, c := range caches {
		names.Insert(c.Cluster)
	}
	return names.Len()
}

// synced prints the synced caches over all caches: "5/6".
func synced(caches []search.CacheStatus) string {
	n := 0
	for _, c := range caches {
		if c.Synced {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(caches))
}

func objects(caches []search.CacheStatus) int64 {
	var n int64
	for _, c := range caches {
		n += c.Objects
	}
	return n
}

func stale(caches []search.CacheStatus) int64 {
	var n int64
	for _, c := range caches {
		if c.Stale {
			n++
		}
	}
	return n
}

// NewStorage returns the storage of resourceregistries and resourceregistries/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*search.ResourceRegistry]{
		Resource:   search.Resource("resourceregistries"),
		Singular:   "resourceregistry",
		NewList:    func() runtime.Object { return &search.ResourceRegistryList{} },
		Strategy:   Strategy,
		ShortNames: []string{"rr"},
		Columns:    columns,
	})
}
