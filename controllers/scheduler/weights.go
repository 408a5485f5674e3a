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

package scheduler

import (
	"fmt"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// StaticWeights are the weights of clusters under a static weight list: a cluster takes the
// weight of the first entry whose target selects it, and 0 when none does.
func StaticWeights(clusters []*clusterv1alpha1.Cluster, list []federationv1alpha1.StaticClusterWeight) ([]Weight, error) {
	matchers := make([]*policy.AffinityMatcher, len(list))
	for i := range list {
		m, err := policy.NewAffinityMatcher(&list[i].TargetCluster)
		if err != nil {
			return nil, fmt.Errorf("weightPreference.staticWeightList[%d].targetCluster: %w", i, err)
		}
		matchers[i] = m
	}
	out := make([]Weight, 0, len(clusters))
	for _, c := range clusters {
		w := Weight{Cluster: c.Name}
		for i, m := range matchers {
			ok, err := m.Matches(c)
			if err != nil {
				return nil, fmt.Errorf("weightPreference.staticWeightList[%d].targetCluster: %w", i, err)
			}
			if ok {
				w.Weight = list[i].Weight
				break
			}
		}
		out = append(out, w)
	}
	return out, nil
}
