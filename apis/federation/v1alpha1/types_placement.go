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

package v1alpha1

import corev1 "k8s.io/api/core/v1"

// Placement says which member clusters a resource goes to and how its
// replicas are shared among them.
type Placement struct {
	// ClusterAffinity restricts the clusters the resource may be scheduled to.
	// Without it (and without ClusterAffinities) every cluster is a candidate.
	// Cannot be set together with ClusterAffinities.
	// +optional
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty" protobuf:"bytes,1,opt,name=clusterAffinity"`

	// ClusterAffinities are groups of clusters in order of preference. The
	// scheduler tries each group in turn and uses the first one that can hold
	// the resource; if none can, scheduling fails. Cannot be set together with
	// ClusterAffinity.
	// +optional
	// +listType=atomic
	ClusterAffinities []ClusterAffinityTerm `json:"clusterAffinities,omitempty" protobuf:"bytes,2,rep,name=clusterAffinities"`

	// ClusterTolerations let the resource be scheduled to clusters with
	// matching taints.
	// +optional
	// +listType=atomic
	ClusterTolerations []corev1.Toleration `json:"clusterTolerations,omitempty" protobuf:"bytes,3,rep,name=clusterTolerations"`

	// SpreadConstraints spread the resource over groups of clusters, such as
	// regions or zones.
	// +optional
	// +listType=atomic
	SpreadConstraints []SpreadConstraint `json:"spreadConstraints,omitempty" protobuf:"bytes,4,rep,name=spreadConstraints"`

	// ReplicaScheduling says how the replicas of a workload are shared among
	// the selected clusters. When unset every selected cluster runs the full
	// replica count, as with Duplicated.
	// +optional
	ReplicaScheduling *ReplicaSchedulingStrategy `json:"replicaScheduling,omitempty" protobuf:"bytes,5,opt,name=replicaScheduling"`

	// WorkloadAffinity places the resource by where other templates of its
	// namespace are placed: with those of its affinity group, away from those
	// of its anti-affinity group. A ClusterPropagationPolicy's templates group
	// with the templates of their own namespace (or, cluster-scoped, with the
	// other cluster-scoped ones).
	// +optional
	WorkloadAffinity *WorkloadAffinity `json:"workloadAffinity,omitempty" protobuf:"bytes,6,opt,name=workloadAffinity"`
}

// WorkloadAffinity groups templates by a label of theirs; both terms, when set,
// must hold.
type WorkloadAffinity struct {
	// Affinity places the resource only on clusters where the templates of
	// its group made before it are placed, and moves it when they move. The
	// first template of a group (none of those before it placed) is placed as
	// the rest of the placement says.
	// +optional
	Affinity *WorkloadAffinityTerm `json:"affinity,omitempty" protobuf:"bytes,1,opt,name=affinity"`

	// AntiAffinity keeps the resource off clusters where a template of its
	// group is placed; when every cluster has one, the resource is not
	// scheduled and says why.
	// +optional
	AntiAffinity *WorkloadAffinityTerm `json:"antiAffinity,omitempty" protobuf:"bytes,2,opt,name=antiAffinity"`
}

// WorkloadAffinityTerm names the label whose value groups templates.
type WorkloadAffinityTerm struct {
	// GroupByLabelKey is the label key on templates: templates of one
	// namespace with the same value of it form a group. A template without the
	// label is in no group and placed as if the term were not there.
	GroupByLabelKey string `json:"groupByLabelKey" protobuf:"bytes,1,opt,name=groupByLabelKey"`
}

// SpreadFieldValue is a Cluster field clusters can be grouped by.
// +enum
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
	// +optional
	SpreadByField SpreadFieldValue `json:"spreadByField,omitempty" protobuf:"bytes,1,opt,name=spreadByField,casttype=SpreadFieldValue"`

	// SpreadByLabel groups clusters by the value of this label on their
	// Cluster objects. Cannot be set together with SpreadByField.
	// +optional
	SpreadByLabel string `json:"spreadByLabel,omitempty" protobuf:"bytes,2,opt,name=spreadByLabel"`

	// MaxGroups is the most groups the resource may land in. 0 means no limit.
	// +optional
	MaxGroups int32 `json:"maxGroups,omitempty" protobuf:"varint,3,opt,name=maxGroups"`

	// MinGroups is the fewest groups the resource must land in; scheduling
	// fails when fewer groups fit. Defaults to 1.
	// +optional
	MinGroups int32 `json:"minGroups,omitempty" protobuf:"varint,4,opt,name=minGroups"`
}

// ReplicaSchedulingType says whether replicas are copied or divided.
// +enum
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
// +enum
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
	// +optional
	ReplicaSchedulingType ReplicaSchedulingType `json:"replicaSchedulingType,omitempty" protobuf:"bytes,1,opt,name=replicaSchedulingType,casttype=ReplicaSchedulingType"`

	// ReplicaDivisionPreference says how Divided replicas are shared:
	// Aggregated (as few clusters as possible) or Weighted (by
	// WeightPreference; equal weights when it is unset). Defaults to Weighted
	// for Divided. "Dynamic" is accepted as a shorthand for Weighted with
	// weightPreference.dynamicWeight and is rewritten to that form.
	// +optional
	ReplicaDivisionPreference ReplicaDivisionPreference `json:"replicaDivisionPreference,omitempty" protobuf:"bytes,2,opt,name=replicaDivisionPreference,casttype=ReplicaDivisionPreference"`

	// WeightPreference gives the weights of the clusters for Weighted division.
	// +optional
	WeightPreference *ClusterPreferences `json:"weightPreference,omitempty" protobuf:"bytes,3,opt,name=weightPreference"`

	// DynamicWeight is a shorthand for weightPreference.dynamicWeight, kept so
	// that manifests written with it work; it is moved into WeightPreference
	// on write.
	// +optional
	DynamicWeight DynamicWeightFactor `json:"dynamicWeight,omitempty" protobuf:"bytes,4,opt,name=dynamicWeight,casttype=DynamicWeightFactor"`
}

// ClusterPreferences gives the weights of the clusters for Weighted division.
type ClusterPreferences struct {
	// StaticWeightList gives fixed weights to groups of clusters. A selected
	// cluster that no entry matches has weight 0. Ignored when DynamicWeight
	// is set.
	// +optional
	// +listType=atomic
	StaticWeightList []StaticClusterWeight `json:"staticWeightList,omitempty" protobuf:"bytes,1,rep,name=staticWeightList"`

	// DynamicWeight computes the weights from the clusters' current state.
	// The only factor is AvailableReplicas: how many more replicas each cluster
	// can hold.
	// +optional
	DynamicWeight DynamicWeightFactor `json:"dynamicWeight,omitempty" protobuf:"bytes,2,opt,name=dynamicWeight,casttype=DynamicWeightFactor"`
}

// StaticClusterWeight is the weight of a group of clusters.
type StaticClusterWeight struct {
	// TargetCluster selects the clusters that get this weight.
	TargetCluster ClusterAffinity `json:"targetCluster" protobuf:"bytes,1,opt,name=targetCluster"`

	// Weight is the share of each selected cluster relative to the others.
	// 0 gives the clusters no replicas while other clusters are available.
	Weight int64 `json:"weight" protobuf:"varint,2,opt,name=weight"`
}

// DynamicWeightFactor is the measure dynamic weights are computed from.
// +enum
type DynamicWeightFactor string

// DynamicWeightByAvailableReplicas weighs each cluster by how many more
// replicas of the workload it can hold.
const DynamicWeightByAvailableReplicas DynamicWeightFactor = "AvailableReplicas"
