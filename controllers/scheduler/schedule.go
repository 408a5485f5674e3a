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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Unschedulable is why a placement has no result; its Reason goes into the binding's
// Scheduled condition.
type Unschedulable struct {
	Reason  string
	Message string
}

func (u *Unschedulable) Error() string { return u.Message }

// Candidates are the clusters a placement may use: selected by its cluster affinity (the
// first of its clusterAffinities that selects any), and tolerating their NoSchedule and
// NoExecute taints. Clusters come back in name order.
func Candidates(clusters []*clusterv1alpha1.Cluster, placement *federationv1alpha1.Placement) ([]*clusterv1alpha1.Cluster, error) {
	var p federationv1alpha1.Placement
	if placement != nil {
		p = *placement
	}
	if p.ClusterAffinity != nil && len(p.ClusterAffinities) > 0 {
		return nil, &Unschedulable{Reason: "InvalidPlacement", Message: "clusterAffinity and clusterAffinities may not both be set"}
	}
	affinities := []*federationv1alpha1.ClusterAffinity{p.ClusterAffinity}
	if len(p.ClusterAffinities) > 0 {
		affinities = affinities[:0]
		for i := range p.ClusterAffinities {
			affinities = append(affinities, &p.ClusterAffinities[i].ClusterAffinity)
		}
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b *clusterv1alpha1.Cluster) int { return strings.Compare(a.Name, b.Name) })
	var tainted []string
	for _, affinity := range affinities {
		var out []*clusterv1alpha1.Cluster
		for _, c := range sorted {
			ok, err := MatchesAffinity(c, affinity)
			if err != nil {
				return nil, &Unschedulable{Reason: "InvalidPlacement", Message: err.Error()}
			}
			if !ok {
				continue
			}
			if !Tolerates(c.Spec.Taints, p.ClusterTolerations, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute) {
				tainted = append(tainted, c.Name)
				continue
			}
			out = append(out, c)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	msg := "no cluster matches the placement's cluster affinity"
	if len(tainted) > 0 {
		msg = fmt.Sprintf("no cluster matches the placement: %s have taints the placement does not tolerate", strings.Join(tainted, ", "))
	}
	return nil, &Unschedulable{Reason: "NoClusterFit", Message: msg}
}

// Assign gives the candidates their replicas by the placement's replica scheduling:
// Duplicated (the default) gives each all of them; Divided by static weights (or equal
// weights when none are listed) divides them, and clusters left with none are dropped.
func Assign(candidates []*clusterv1alpha1.Cluster, placement *federationv1alpha1.Placement, replicas int32) ([]federationv1alpha1.TargetCluster, error) {
	var strategy *federationv1alpha1.ReplicaSchedulingStrategy
	if placement != nil {
		strategy = placement.ReplicaScheduling
	}
	if strategy == nil || strategy.ReplicaSchedulingType != federationv1alpha1.ReplicaSchedulingTypeDivided || replicas == 0 {
		out := make([]federationv1alpha1.TargetCluster, len(candidates))
		for i, c := range candidates {
			out[i] = federationv1alpha1.TargetCluster{Name: c.Name, Replicas: replicas}
		}
		return out, nil
	}
	if strategy.ReplicaDivisionPreference != federationv1alpha1.ReplicaDivisionPreferenceWeighted ||
		strategy.WeightPreference != nil && strategy.WeightPreference.DynamicWeight != "" {
		return nil, &Unschedulable{Reason: "Unsupported", Message: fmt.Sprintf(
			"replicaDivisionPreference %q and dynamic weights are not implemented yet; use Weighted with a staticWeightList", strategy.ReplicaDivisionPreference)}
	}
	var weights []Weight
	if strategy.WeightPreference != nil && len(strategy.WeightPreference.StaticWeightList) > 0 {
		var err error
		if weights, err = StaticWeights(candidates, strategy.WeightPreference.StaticWeightList); err != nil {
			return nil, &Unschedulable{Reason: "InvalidPlacement", Message: err.Error()}
		}
	} else {
		for _, c := range candidates {
			weights = append(weights, Weight{Cluster: c.Name, Weight: 1})
		}
	}
	var out []federationv1alpha1.TargetCluster
	for _, a := range DivideByWeight(replicas, weights) {
		if a.Replicas > 0 {
			out = append(out, federationv1alpha1.TargetCluster{Name: a.Cluster, Replicas: a.Replicas})
		}
	}
	if len(out) == 0 {
		return nil, &Unschedulable{Reason: "NoClusterFit", Message: "the static weight list gives every candidate cluster weight 0"}
	}
	return out, nil
}

// Schedule is Candidates then Assign.
func Schedule(clusters []*clusterv1alpha1.Cluster, placement *federationv1alpha1.Placement, replicas int32) ([]federationv1alpha1.TargetCluster, error) {
	candidates, err := Candidates(clusters, placement)
	if err != nil {
		return nil, err
	}
	return Assign(candidates, placement, replicas)
}
