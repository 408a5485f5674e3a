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

package registrytest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/search"
)

// ResourceRegistry is the test case of resourceregistries.
func ResourceRegistry() Case[*search.ResourceRegistry] {
	return Case[*search.ResourceRegistry]{
		Valid: func() *search.ResourceRegistry {
			return &search.ResourceRegistry{ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: search.ResourceRegistrySpec{
					TargetCluster:     federation.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
					ResourceSelectors: []search.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}},
				}}
		},
		ChangeSpec: func(r *search.ResourceRegistry) {
			r.Spec.ResourceSelectors = append(r.Spec.ResourceSelectors, search.ResourceSelector{APIVersion: "v1", Kind: "Pod"})
		},
		ChangeStatus: func(r *search.ResourceRegistry) {
			r.Status.Conditions = []metav1.Condition{condition(search.ResourceRegistryConditionReady, metav1.ConditionFalse)}
			r.Status.Caches = []search.CacheStatus{
				{Cluster: "member1", APIVersion: "apps/v1", Kind: "Deployment", Synced: true, Objects: 3},
				{Cluster: "member1", APIVersion: "v1", Kind: "Pod", Synced: true, Objects: 9},
				{Cluster: "member2", APIVersion: "apps/v1", Kind: "Deployment", Synced: true, Objects: 2, Stale: true,
					Message: "member2 cannot be reached"},
				{Cluster: "member2", APIVersion: "v1", Kind: "Pod", Message: "member2 cannot be reached"},
			}
		},
		BreakSpec:         func(r *search.ResourceRegistry) { r.Spec.ResourceSelectors[0].Kind = "" },
		BrokenSpecField:   "spec.resourceSelectors[0].kind",
		BreakStatus:       func(r *search.ResourceRegistry) { r.Status.Caches[0].Objects = -1 },
		BrokenStatusField: "status.caches[0].objects",
		Columns:           []string{"Name", "Kinds", "Clusters", "Synced", "Objects", "Age", "Ready", "Stale"},
		Row: map[string]any{"Name": Name, "Kinds": "Deployment.apps,Pod", "Clusters": int64(2), "Synced": "3/4",
			"Objects": int64(14), "Ready": "False", "Stale": int64(1)},
	}
}
