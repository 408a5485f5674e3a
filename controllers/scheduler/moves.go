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
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// applyMoves is where a binding's replicas are once the moves other controllers asked for
// (spec.replicaMoves) are made: each takes up to its replicas from its cluster and gives
// them to its destination, or to no cluster (the schedule then places them as a scale-up).
// A move from a cluster that is not a target does nothing; a cluster left without replicas
// is dropped. The scheduler alone writes the result into spec.clusters.
func applyMoves(clusters []federationv1alpha1.TargetCluster, moves []federationv1alpha1.ReplicaMoveRequest) []federationv1alpha1.TargetCluster {
	if len(moves) == 0 {
		return clusters
	}
	out := make([]federationv1alpha1.TargetCluster, len(clusters))
	copy(out, clusters)
	index := func(name string) int {
		for i := range out {
			if out[i].Name == name {
				return i
			}
		}
		return -1
	}
	for _, m := range moves {
		from := index(m.FromCluster)
		if from < 0 || m.Replicas <= 0 || out[from].Replicas == 0 {
			continue
		}
		n := min(m.Replicas, out[from].Replicas)
		out[from].Replicas -= n
		if m.ToCluster == "" {
			continue
		}
		if to := index(m.ToCluster); to >= 0 {
			out[to].Replicas += n
		} else {
			out = append(out, federationv1alpha1.TargetCluster{Name: m.ToCluster, Replicas: n})
		}
	}
	kept := out[:0]
	for _, t := range out {
		if t.Replicas > 0 {
			kept = append(kept, t)
		}
	}
	return kept
}
