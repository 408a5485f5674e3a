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

package federation

import corev1 "k8s.io/api/core/v1"

// Placement says which member clusters a resource goes to and how its
// replicas are shared among them.
type Placement struct {
	// ClusterAffinity restricts the clusters the resource may be scheduled to.
	// Without it (and without ClusterAffinities) every cluster is a candidate.
	// Cannot be set together with ClusterAffinities.
	ClusterAffinity *ClusterAffinity

	// ClusterAffinities are groups of clusters in order of preference. The
	// scheduler tries each group in turn and uses the first one that can hold
	// the resource; if none can, scheduling fails. Cannot be set together with
	// ClusterAffinity.
	ClusterAffinities []ClusterAffinityTerm

	// ClusterTolerations let the resource be scheduled to clusters with
	// matching taints.
	ClusterTolerations []corev1.Toleration

	// SpreadConstraints spread the resource over groups of clusters, such as
	// regions or zones.
	SpreadConstraints []SpreadConstraint

	// ReplicaScheduling says how the replicas of a workload are shared among
	// the selected clusters. When unset every selected cluster runs the full
	// replica count, as with Duplicated.
	ReplicaScheduling *ReplicaSchedulingStrategy

	// WorkloadAffinity places the resource by where other templates of its
	// namespace are placed: with those of its affinity group, away from those
	// of its anti-affinity group.
	WorkloadAffinity *WorkloadAffinity
}

// WorkloadAffinity groups templates by a label of theirs; both terms, when set,
// must hold.
type WorkloadAffinity struct {
	// Affinity places the resource only on clusters where a template of its
	// group is placed; the first of a group is placed freely.
	Affinity *WorkloadAffinityTerm

	// AntiAffinity keeps the resource off clusters where a template of its
	// group is placed.
	AntiAffinity *WorkloadAffinityTerm
}

// WorkloadAffinityTerm names the label whose value groups templates.
type WorkloadAffinityTerm struct {
	// GroupByLabelKey is the label key on templates: templates of one
	// namespace with the same value of it form a group. A template without the
	// label is in no group and placed as if the term were not there.
	GroupByLabelKey string
}

// SpreadFieldValue is a Cluster field clusters can be grouped by.
type SpreadFieldValue string

const (
	// SpreadByFieldCluster makes every cluster a group of its own.
	SpreadByFieldCluster SpreadFieldValue = "cluster"
	// SpreadByFieldRegion groups clusters by spec.region.
	SpreadByFieldRegion SpreadFieldValue = "region"
	// SpreadByFieldZone groups clusters by spec.zone.
	SpreadByFieldZone SpreadFieldValue = "zone"
	// SpreadByFieldProvider groups clusters by spec.provider.
	SpreadByFieldProvider SpreadFieldValue = "provider"
)

// SpreadConstraint bounds how many groups of clusters the resource lands in.
type SpreadConstraint struct {
	// SpreadByField groups clusters by a Cluster field: cluster, region, zone
	// or provider. Cannot be set together with SpreadByLabel. When neither is
	// set it defaults to cluster. When any constraint spreads by region, zone
	// or provider, a constraint by cluster must also be present; one with
	// minGroups 1 is added if missing.
	SpreadByField SpreadFieldValue

	// SpreadByLabel groups clusters by the value of this label on their
	// Cluster objects. Cannot be set together with SpreadByField.
	SpreadByLabel string

	// MaxGroups is the most groups the resource may land in. 0 means no limit.
	MaxGroups int32

	// MinGroups is the fewest groups the resource must land in; scheduling
	// fails when fewer groups fit. Defaults to 1.
	MinGroups int32
}

// ReplicaSchedulingType says whether replicas are copied or divided.
type ReplicaSchedulingType string

const (
	// ReplicaSchedulingTypeDuplicated runs the full replica count in every
	// selected cluster.
	ReplicaSchedulingTypeDuplicated ReplicaSchedulingType = "Duplicated"
	// ReplicaSchedulingTypeDivided divides the replica count among the
	// selected clusters.
	ReplicaSchedulingTypeDivided ReplicaSchedulingType = "Divided"
)

// ReplicaDivisionPreference says how divided replicas are shared out.
type ReplicaDivisionPreference string

const (
	// ReplicaDivisionPreferenceAggregated packs the replicas into as few
	// clusters as can hold them.
	ReplicaDivisionPreferenceAggregated ReplicaDivisionPreference = "Aggregated"
	// ReplicaDivisionPreferenceWeighted shares the replicas in proportion to
	// cluster weights.
	ReplicaDivisionPreferenceWeighted ReplicaDivisionPreference = "Weighted"
	// ReplicaDivisionPreferenceDynamic is accepted on input as a shorthand for
	// Weighted with dynamic weights and is rewritten to Weighted.
	ReplicaDivisionPreferenceDynamic ReplicaDivisionPreference = "Dynamic"
)

// ReplicaSchedulingStrategy says how a workload's replicas are shared among
// the selected clusters.
type ReplicaSchedulingStrategy struct {
	// ReplicaSchedulingType is Duplicated (every cluster runs all replicas) or
	// Divided (the replicas are divided among the clusters). Defaults to
	// Divided.
	ReplicaSchedulingType ReplicaSchedulingType

	// ReplicaDivisionPreference says how Divided replicas are shared:
	// Aggregated (as few clusters as possible) or Weighted (by
	// WeightPreference; equal weights when it is unset). Defaults to Weighted
	// for Divided. "Dynamic" is accepted as a shorthand for Weighted with
	// weightPreference.dynamicWeight and is rewritten to that form.
	ReplicaDivisionPreference ReplicaDivisionPreference

	// WeightPreference gives the weights of the clusters for Weighted division.
	WeightPreference *ClusterPreferences

	// DynamicWeight is a shorthand for weightPreference.dynamicWeight, kept so
	// that manifests written with it work; it is moved into WeightPreference
	// on write.
	DynamicWeight DynamicWeightFactor
}

// ClusterPreferences gives the weights of the clusters for Weighted division.
type ClusterPreferences struct {
	// StaticWeightList gives fixed weights to groups of clusters. A selected
	// cluster that no entry matches has weight 0. Ignored when DynamicWeight
	// is set.
	StaticWeightList []StaticClusterWeight

	// DynamicWeight computes the weights from the clusters' current state.
	// The only factor is AvailableReplicas: how many more replicas each cluster
	// can hold.
	DynamicWeight DynamicWeightFactor
}

// StaticClusterWeight is the weight of a group of clusters.
type StaticClusterWeight struct {
	// TargetCluster selects the clusters that get this weight.
	TargetCluster ClusterAffinity

	// Weight is the share of each selected cluster relative to the others.
	// 0 gives the clusters no replicas while other clusters are available.
	Weight int64
}

// DynamicWeightFactor is the measure dynamic weights are computed from.
type DynamicWeightFactor string

// DynamicWeightByAvailableReplicas weighs each cluster by how many more
// replicas of the workload it can hold.
const DynamicWeightByAvailableReplicas DynamicWeightFactor = "AvailableReplicas"
