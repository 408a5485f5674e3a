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
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Reasons of an Unschedulable, written into the binding's Scheduled condition.
const (
	// ReasonNoClusterFit: no cluster, or not enough of them, meets the placement now.
	ReasonNoClusterFit = "NoClusterFit"
	// ReasonInvalidPlacement: the placement contradicts itself or cannot be read.
	ReasonInvalidPlacement = "InvalidPlacement"
	// ReasonUnsupported: the placement asks for something this scheduler does not do.
	ReasonUnsupported = "Unsupported"
)

// Unschedulable is why a placement has no result; its Reason goes into the binding's
// Scheduled condition.
type Unschedulable struct {
	Reason  string
	Message string
}

func (u *Unschedulable) Error() string { return u.Message }

// Input is what scheduling reads of a binding.
type Input struct {
	// Placement is the binding's placement; nil places on every cluster, duplicated.
	Placement *federationv1alpha1.Placement
	// Replicas is the replica count, 0 for kinds without replicas.
	Replicas int32
	// ResourceRequest is what one replica requests; empty when unknown, and then every
	// cluster is taken to hold any number of replicas.
	ResourceRequest corev1.ResourceList
	// Available, when set, estimates how many more replicas of the workload a cluster can
	// hold (the controller's, from the members' nodes); without it, AvailableReplicas of
	// ResourceRequest does. Schedule calls it once per cluster, for divided workloads only.
	Available func(*clusterv1alpha1.Cluster) int64
	// Previous is the binding's current result, which scheduling changes as little as the
	// placement allows.
	Previous []federationv1alpha1.TargetCluster
	// PreviousAffinity is the group of clusterAffinities of the current result
	// (status.schedulerObservingAffinityName); scheduling starts from it.
	PreviousAffinity string
	// Now is when the tolerationSeconds of NoExecute taints are counted to.
	Now time.Time
	// Leaving are clusters the workload is being moved away from (the binding's graceful
	// eviction tasks): none of them is a candidate.
	Leaving []string
	// Sets, set for a multi-component workload (a binding's components), is how many
	// more whole sets of its components a cluster can hold. The workload goes whole, all
	// its components together, to clusters with room for one set (or that run it
	// already): every such cluster when Duplicated, the one that can hold the most when
	// Divided (replicas of components are not divided between clusters).
	Sets func(*clusterv1alpha1.Cluster) int64
	// Groups are the binding's workload affinity groups (nil: none). With an affinity
	// group, Together are the only clusters the workload may go to: where the workloads of
	// its group made before it are placed (nil: none is placed, and it goes where the
	// placement says). With an anti-affinity group, Apart are the clusters it may not go
	// to: where the other workloads of that group are placed.
	Groups   *federationv1alpha1.WorkloadAffinityGroups
	Together []string
	Apart    []string
}

// Result is where a binding goes.
type Result struct {
	// Clusters are the target clusters in name order; for divided workloads only those
	// that get replicas.
	Clusters []federationv1alpha1.TargetCluster
	// AffinityName is the group of clusterAffinities the clusters were chosen from; empty
	// without clusterAffinities.
	AffinityName string
	// Evicted are the clusters of the previous result that NoExecute taints took the
	// workload from, each with the taint.
	Evicted []Eviction
	// Recheck, when not zero, is when a NoExecute taint the placement tolerates for a
	// while (tolerationSeconds) will evict the workload from a cluster.
	Recheck time.Time
}

// Eviction is a cluster a NoExecute taint took a workload from.
type Eviction struct {
	Cluster string
	Taint   corev1.Taint
}

// Schedule places a binding on clusters. It is a pure function of its arguments:
//
//   - Candidates are the clusters the cluster affinity selects that tolerate their
//     NoExecute taints and, unless they are in the previous result, their NoSchedule taints.
//     A cluster of the previous result with a NoSchedule taint stays but gets no more
//     replicas than it had.
//   - With clusterAffinities the groups are tried in order and the first that can hold the
//     workload (candidates, spread constraints and capacity) wins. A binding placed in a
//     group starts from that group: one that moved to a backup group after its primary
//     failed stays there when the primary recovers (as Karmada does), and goes on to the
//     next groups only when its own cannot hold it. A group no longer in the policy
//     starts from the first again.
//   - A group with overflow groups fills itself, then each overflow group in turn (see
//     placeOverflow).
//   - Workload affinity narrows the candidates to where the other workloads of the
//     binding's affinity group are placed (Input.Together), and away from where those of
//     its anti-affinity group are (Input.Apart).
//   - Spread constraints choose among the candidates (see spreadRuleOf); a static weight
//     list ignores them, as the seeds say.
//   - Duplicated gives every chosen cluster all replicas. Divided never gives a cluster more
//     replicas than Input.Available estimates it can hold (plus those it already runs),
//     skips clusters without room for one, and divides by static weights, equal weights,
//     available replicas (dynamicWeight), or packs them into the fewest clusters
//     (Aggregated). With a previous result, scaling adds to or removes from clusters
//     without moving replicas between them; see divideDynamic and aggregate.
func Schedule(clusters []*clusterv1alpha1.Cluster, in Input) (Result, error) {
	var p federationv1alpha1.Placement
	if in.Placement != nil {
		p = *in.Placement
	}
	if p.ClusterAffinity != nil && len(p.ClusterAffinities) > 0 {
		return Result{}, invalid("clusterAffinity and clusterAffinities may not both be set")
	}
	s, err := newScheduling(clusters, &p, in)
	if err != nil {
		return Result{}, err
	}
	r, err := s.place(&p, in.PreviousAffinity)
	if err != nil {
		return Result{}, err
	}
	r.Recheck = s.recheck
	for _, st := range s.clusters {
		if st.inPrevious && st.evictedBy != nil {
			r.Evicted = append(r.Evicted, Eviction{Cluster: st.cluster.Name, Taint: *st.evictedBy})
		}
	}
	return r, nil
}

// place places the workload in its cluster affinity, or in the first of its
// clusterAffinities that can hold it.
func (s *scheduling) place(p *federationv1alpha1.Placement, previousAffinity string) (Result, error) {
	if len(p.ClusterAffinities) == 0 {
		targets, err := s.placeIn(p.ClusterAffinity)
		return Result{Clusters: targets}, err
	}
	first := 0
	for i, term := range p.ClusterAffinities {
		if previousAffinity != "" && term.AffinityName == previousAffinity {
			first = i
			break
		}
	}
	misses := make([]string, 0, len(p.ClusterAffinities))
	for i := first; i < len(p.ClusterAffinities); i++ {
		term := &p.ClusterAffinities[i]
		var targets []federationv1alpha1.TargetCluster
		var err error
		if len(term.OverflowAffinities) > 0 {
			targets, err = s.placeOverflow(term)
		} else {
			targets, err = s.placeIn(&term.ClusterAffinity)
		}
		if err == nil {
			return Result{Clusters: targets, AffinityName: term.AffinityName}, nil
		}
		if !isNoFit(err) {
			return Result{}, err
		}
		misses = append(misses, fmt.Sprintf("%s: %s", term.AffinityName, err))
	}
	return Result{}, noFit("no group of clusterAffinities can hold the workload: %s", strings.Join(misses, "; "))
}

// group is one group of clusters of a ClusterAffinityTerm with overflow groups: the term's
// own, or one of its overflow groups, without the clusters of the groups before it.
type group struct {
	name     string
	affinity *federationv1alpha1.ClusterAffinity
}

// overflowGroups are a term's own group and its overflow groups, in order, each without
// the clusters of those before it (a cluster in several belongs to the first).
func (s *scheduling) overflowGroups(term *federationv1alpha1.ClusterAffinityTerm) ([]group, error) {
	groups := make([]group, 0, 1+len(term.OverflowAffinities))
	var taken []string
	add := func(name string, a *federationv1alpha1.ClusterAffinity) error {
		own := a.DeepCopy()
		own.ExcludeClusters = append(own.ExcludeClusters, taken...)
		m, err := policy.NewAffinityMatcher(own)
		if err != nil {
			return invalid("%s", err)
		}
		for i := range s.clusters {
			ok, err := m.Matches(s.clusters[i].cluster)
			if err != nil {
				return invalid("%s", err)
			}
			if ok {
				taken = append(taken, s.clusters[i].cluster.Name)
			}
		}
		groups = append(groups, group{name: name, affinity: own})
		return nil
	}
	if err := add(term.AffinityName, &term.ClusterAffinity); err != nil {
		return nil, err
	}
	for i := range term.OverflowAffinities {
		o := &term.OverflowAffinities[i]
		if err := add(o.AffinityName, &o.ClusterAffinity); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

// placeOverflow places the workload in a term and its overflow groups. A divided
// workload's replicas fill the term's own group to its room, then each overflow group in
// turn, each group dividing its share as the placement says: a group gets replicas only
// when those before it are full, so a scale-down empties the last groups first. A
// workload without replicas to divide (or of several components, which goes whole) goes
// to the first group that can hold it.
func (s *scheduling) placeOverflow(term *federationv1alpha1.ClusterAffinityTerm) ([]federationv1alpha1.TargetCluster, error) {
	groups, err := s.overflowGroups(term)
	if err != nil {
		return nil, err
	}
	var said []string
	if !s.divided() {
		for _, g := range groups {
			targets, err := s.placeIn(g.affinity)
			if !isNoFit(err) {
				return targets, err
			}
			said = append(said, fmt.Sprintf("%s: %s", g.name, err))
		}
		return nil, noFit("no group can hold the workload: %s", strings.Join(said, "; "))
	}
	total := s.replicas
	defer func() { s.replicas = total }()
	var out []federationv1alpha1.TargetCluster
	left := total
	for _, g := range groups {
		if left == 0 {
			break
		}
		s.replicas = left
		cands, err := s.candidates(g.affinity)
		if isNoFit(err) {
			said = append(said, fmt.Sprintf("%s: %s", g.name, err))
			continue
		}
		if err != nil {
			return nil, err
		}
		n := min(left, capacityOf(cands))
		s.replicas = n
		targets, err := s.placeIn(g.affinity)
		if err != nil {
			return nil, err
		}
		out = append(out, targets...)
		left -= n
		said = append(said, fmt.Sprintf("%s: %d", g.name, n))
	}
	if left > 0 {
		return nil, noFit("%d replica(s) do not fit in the groups together (%s)", total, strings.Join(said, "; "))
	}
	slices.SortFunc(out, func(a, b federationv1alpha1.TargetCluster) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// isNoFit tells whether err is an Unschedulable for want of clusters or room.
func isNoFit(err error) bool {
	u, ok := err.(*Unschedulable)
	return ok && u.Reason == ReasonNoClusterFit
}

// mode is how replicas are given out.
type mode int

const (
	modeDuplicated mode = iota
	modeEqual
	modeStatic
	modeDynamic
	modeAggregated
)

func modeOf(rs *federationv1alpha1.ReplicaSchedulingStrategy) (mode, error) {
	if rs == nil || rs.ReplicaSchedulingType == federationv1alpha1.ReplicaSchedulingTypeDuplicated {
		return modeDuplicated, nil
	}
	// An empty type is Divided, as defaulting would make it.
	if rs.ReplicaSchedulingType != "" && rs.ReplicaSchedulingType != federationv1alpha1.ReplicaSchedulingTypeDivided {
		return 0, invalid("replicaSchedulingType %q is not Duplicated or Divided", rs.ReplicaSchedulingType)
	}
	factor := rs.DynamicWeight
	if wp := rs.WeightPreference; wp != nil && wp.DynamicWeight != "" {
		factor = wp.DynamicWeight
	}
	switch rs.ReplicaDivisionPreference {
	case federationv1alpha1.ReplicaDivisionPreferenceAggregated:
		return modeAggregated, nil
	case federationv1alpha1.ReplicaDivisionPreferenceDynamic:
		factor = cmp.Or(factor, federationv1alpha1.DynamicWeightByAvailableReplicas)
	case federationv1alpha1.ReplicaDivisionPreferenceWeighted, "":
	default:
		return 0, invalid("replicaDivisionPreference %q is not Aggregated or Weighted", rs.ReplicaDivisionPreference)
	}
	switch {
	case factor == federationv1alpha1.DynamicWeightByAvailableReplicas:
		return modeDynamic, nil
	case factor != "":
		return 0, invalid("dynamicWeight %q is not AvailableReplicas", factor)
	case rs.WeightPreference != nil && len(rs.WeightPreference.StaticWeightList) > 0:
		return modeStatic, nil
	}
	return modeEqual, nil
}

// scheduling is one call of Schedule: what it reads of the placement and of each cluster,
// worked out once for all groups of clusterAffinities.
type scheduling struct {
	placement *federationv1alpha1.Placement
	replicas  int64
	mode      mode
	spread    *spreadRule
	clusters  []clusterState // in name order
	previous  map[string]int32
	// recheck is the earliest time a tolerated NoExecute taint will evict the workload.
	recheck time.Time
	// weighted is true when a static weight list gives a cluster a weight above 0.
	weighted bool
	// components is true for a multi-component workload (Input.Sets).
	components bool
	// groups are the workload's affinity groups (Input.Groups).
	groups federationv1alpha1.WorkloadAffinityGroups
}

// clusterState is what scheduling needs of one cluster, whatever group it is tried in.
type clusterState struct {
	cluster    *clusterv1alpha1.Cluster
	evicted    bool          // an untolerated NoExecute taint
	leaving    bool          // the workload is leaving it (a graceful eviction task)
	evictedBy  *corev1.Taint // the NoExecute taint, if one evicted it
	cordoned   bool          // an untolerated NoSchedule taint
	away       bool          // none of the workload's affinity group is placed there
	apart      bool          // a workload of its anti-affinity group is placed there
	available  int64
	sets       int64 // of a multi-component workload's components
	staticW    int64
	inPrevious bool
	previous   int32
}

func newScheduling(clusters []*clusterv1alpha1.Cluster, p *federationv1alpha1.Placement, in Input) (*scheduling, error) {
	m, err := modeOf(p.ReplicaScheduling)
	if err != nil {
		return nil, err
	}
	s := &scheduling{placement: p, replicas: int64(max(in.Replicas, 0)), mode: m, spread: noSpread,
		previous: make(map[string]int32, len(in.Previous)), components: in.Sets != nil}
	if m != modeStatic {
		if s.spread, err = spreadRuleOf(p.SpreadConstraints); err != nil {
			return nil, err
		}
	}
	for _, t := range in.Previous {
		s.previous[t.Name] += t.Replicas
	}
	if in.Groups != nil {
		s.groups = *in.Groups
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b *clusterv1alpha1.Cluster) int { return strings.Compare(a.Name, b.Name) })
	var weights []Weight
	if m == modeStatic {
		if weights, err = StaticWeights(sorted, p.ReplicaScheduling.WeightPreference.StaticWeightList); err != nil {
			return nil, invalid("%s", err)
		}
	}
	s.clusters = make([]clusterState, len(sorted))
	for i, c := range sorted {
		prev, inPrev := s.previous[c.Name]
		evicted, next, taint := policy.NoExecute(c.Spec.Taints, p.ClusterTolerations, in.Now)
		st := clusterState{cluster: c, inPrevious: inPrev, previous: prev,
			evicted:   evicted,
			leaving:   slices.Contains(in.Leaving, c.Name),
			evictedBy: taint,
			cordoned:  !policy.Tolerates(c.Spec.Taints, p.ClusterTolerations, corev1.TaintEffectNoSchedule),
			away:      in.Together != nil && !slices.Contains(in.Together, c.Name),
			apart:     slices.Contains(in.Apart, c.Name),
		}
		if !next.IsZero() && (s.recheck.IsZero() || next.Before(s.recheck)) {
			s.recheck = next
		}
		if s.divided() {
			st.available = in.available(c)
		}
		if s.components {
			st.sets = in.Sets(c)
		}
		if weights != nil {
			st.staticW = weights[i].Weight
			s.weighted = s.weighted || st.staticW > 0
		}
		s.clusters[i] = st
	}
	return s, nil
}

// divided tells whether replicas are divided: Divided with replicas to divide.
func (s *scheduling) divided() bool { return s.mode != modeDuplicated && s.replicas > 0 }

// candidate is a cluster a group may use.
type candidate struct {
	cluster    *clusterv1alpha1.Cluster
	inPrevious bool
	previous   int64
	// capacity is how many replicas of this workload the cluster can run: what it can
	// still hold plus what it runs already, or only what it runs when it takes no new
	// placements.
	capacity int64
	weight   int64
	// backup is a cluster of weight 0 in a static weight list, there because those with a
	// weight cannot hold every replica: it gets only what they cannot hold.
	backup bool
}

// preferred orders candidates: those of the previous result first, then those that can
// hold the most, then by name.
func preferred(a, b candidate) int {
	if a.inPrevious != b.inPrevious {
		if a.inPrevious {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.capacity, a.capacity), strings.Compare(a.cluster.Name, b.cluster.Name))
}

// placeIn places the workload on the clusters one affinity selects.
func (s *scheduling) placeIn(affinity *federationv1alpha1.ClusterAffinity) ([]federationv1alpha1.TargetCluster, error) {
	cands, err := s.candidates(affinity)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cands, preferred)
	if s.components && s.mode != modeDuplicated {
		// Divided: the whole workload on one cluster, the one it runs in or the one with
		// the most room.
		cands = cands[:1]
	}
	sel := selection{}
	if s.divided() {
		if s.spread.constrained {
			sel.budget = int(s.replicas)
		}
		if s.mode == modeAggregated {
			sel.need = s.replicas
		}
	}
	chosen, err := s.spread.pick(cands, sel)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(chosen, func(a, b candidate) int { return strings.Compare(a.cluster.Name, b.cluster.Name) })
	if !s.divided() {
		out := make([]federationv1alpha1.TargetCluster, len(chosen))
		for i, c := range chosen {
			out[i] = federationv1alpha1.TargetCluster{Name: c.cluster.Name, Replicas: int32(s.replicas)}
		}
		return out, nil
	}
	floor := int64(0)
	if s.spread.constrained {
		floor = 1
	}
	var counts []int64
	switch s.mode {
	case modeAggregated:
		counts, err = s.aggregate(chosen, floor)
	case modeDynamic:
		counts, err = s.divideDynamic(chosen, floor)
	default:
		counts, err = s.divideFixed(chosen, floor)
	}
	if err != nil {
		return nil, err
	}
	var out []federationv1alpha1.TargetCluster
	for i, c := range chosen {
		if counts[i] > 0 {
			out = append(out, federationv1alpha1.TargetCluster{Name: c.cluster.Name, Replicas: int32(counts[i])})
		}
	}
	return out, nil
}

// candidates are the clusters an affinity selects that the placement may use, with their
// capacity. For a divided workload, clusters without room for one replica are left out;
// so are clusters a static weight list gives weight 0, unless those of a weight cannot
// hold every replica.
func (s *scheduling) candidates(affinity *federationv1alpha1.ClusterAffinity) ([]candidate, error) {
	m, err := policy.NewAffinityMatcher(affinity)
	if err != nil {
		return nil, invalid("%s", err)
	}
	var out, backups []candidate
	var tainted, leaving, full, unweighted, away, apart []string
	for i := range s.clusters {
		st := &s.clusters[i]
		ok, err := m.Matches(st.cluster)
		if err != nil {
			return nil, invalid("%s", err)
		}
		if !ok {
			continue
		}
		if st.leaving {
			leaving = append(leaving, st.cluster.Name)
			continue
		}
		if st.apart {
			apart = append(apart, st.cluster.Name)
			continue
		}
		if st.away {
			away = append(away, st.cluster.Name)
			continue
		}
		if st.evicted || st.cordoned && !st.inPrevious {
			tainted = append(tainted, st.cluster.Name)
			continue
		}
		c := candidate{cluster: st.cluster, inPrevious: st.inPrevious, previous: int64(st.previous), weight: 1}
		if s.components {
			// The set it runs already is its own; a cordoned cluster keeps it, no more.
			if st.inPrevious {
				c.capacity = 1
			}
			if !st.cordoned {
				c.capacity = min(c.capacity+st.sets, Unlimited)
			}
			if c.capacity < 1 {
				full = append(full, st.cluster.Name)
				continue
			}
		}
		if s.divided() {
			c.capacity = min(st.available+c.previous, Unlimited)
			if st.cordoned {
				c.capacity = c.previous
			}
			if c.capacity < 1 {
				full = append(full, st.cluster.Name)
				continue
			}
			switch s.mode {
			case modeStatic:
				if c.weight = st.staticW; c.weight <= 0 {
					unweighted = append(unweighted, st.cluster.Name)
					c.weight, c.backup = 1, true
					backups = append(backups, c)
					continue
				}
			case modeDynamic:
				c.weight = c.capacity
			}
		}
		out = append(out, c)
	}
	if len(backups) > 0 && s.weighted && capacityOf(out) < s.replicas {
		// Clusters of weight 0 are the backups of those with weight: they take what the
		// others cannot hold (all of it when the others failed), in equal shares.
		out = append(out, backups...)
	}
	if len(out) > 0 {
		return out, nil
	}
	var why []string
	if len(tainted) > 0 {
		why = append(why, fmt.Sprintf("%s have taints the placement does not tolerate", strings.Join(tainted, ", ")))
	}
	if len(leaving) > 0 {
		why = append(why, fmt.Sprintf("the workload is being evicted from %s (a graceful eviction task, until its copies elsewhere are healthy or its grace period ends)", strings.Join(leaving, ", ")))
	}
	if len(apart) > 0 {
		why = append(why, fmt.Sprintf("%s run a workload of its anti-affinity group %s", strings.Join(apart, ", "), s.groups.AntiAffinityGroup))
	}
	if len(away) > 0 {
		why = append(why, fmt.Sprintf("%s run no workload of its affinity group %s", strings.Join(away, ", "), s.groups.AffinityGroup))
	}
	if len(full) > 0 && s.components {
		why = append(why, fmt.Sprintf("%s have no room for the workload's components together", strings.Join(full, ", ")))
	} else if len(full) > 0 {
		why = append(why, fmt.Sprintf("%s have no room for one more replica", strings.Join(full, ", ")))
	}
	if len(unweighted) > 0 {
		why = append(why, fmt.Sprintf("the static weight list gives %s weight 0", strings.Join(unweighted, ", ")))
	}
	if len(why) == 0 {
		return nil, noFit("no cluster matches the placement's cluster affinity")
	}
	return nil, noFit("no cluster fits the placement: %s", strings.Join(why, "; "))
}

// capacityOf is how many replicas the candidates can run together.
func capacityOf(cands []candidate) int64 {
	var total int64
	for _, c := range cands {
		total = min(total+c.capacity, Unlimited)
	}
	return total
}
