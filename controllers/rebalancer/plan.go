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

package rebalancer

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// margin is the hysteresis: a cluster takes replicas only while it stays this many
// points below the threshold, so that a move never makes the cluster it fills hot.
const margin = int64(federationv1alpha1.RebalanceMargin)

// Threshold is the part of a cluster's allocatable CPU and memory its pods may request,
// in percent; 0 leaves a resource out.
type Threshold struct {
	CPU, Memory int64
}

// load is what a cluster's pods request of its CPU and memory, as its resource summary
// says (bound and pending pods alike), kept current as moves are planned. Amounts are
// floats (cores, bytes): a member of hundreds of terabytes overflows milli-units times 100.
type load struct {
	name                   string
	requested, allocatable map[corev1.ResourceName]float64
}

func loadOf(c *clusterv1alpha1.Cluster) *load {
	s := c.Status.ResourceSummary
	if s == nil {
		return nil
	}
	l := &load{name: c.Name, requested: map[corev1.ResourceName]float64{}, allocatable: map[corev1.ResourceName]float64{}}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		a, ok := s.Allocatable[r]
		if !ok || a.Sign() <= 0 {
			return nil
		}
		used := s.Allocated[r].DeepCopy()
		used.Add(s.Allocating[r])
		l.allocatable[r], l.requested[r] = a.AsApproximateFloat64(), used.AsApproximateFloat64()
	}
	return l
}

// percent is how much of a resource the cluster's pods request.
func (l *load) percent(r corev1.ResourceName) float64 {
	return l.requested[r] * 100 / l.allocatable[r]
}

func (t Threshold) of(r corev1.ResourceName) int64 {
	if r == corev1.ResourceCPU {
		return t.CPU
	}
	return t.Memory
}

var resources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// hot tells whether a cluster's pods request more than the threshold of a resource.
func (l *load) hot(t Threshold) bool {
	for _, r := range resources {
		if th := t.of(r); th > 0 && l.percent(r) > float64(th) {
			return true
		}
	}
	return false
}

// excess is how many replicas requesting per must leave a hot cluster to bring it to the
// threshold: the most any resource needs. A resource the replica does not request cannot
// be helped by moving it.
func (l *load) excess(t Threshold, per map[corev1.ResourceName]float64) int64 {
	var n int64
	for _, r := range resources {
		th, p := t.of(r), per[r]
		if th <= 0 || p <= 0 {
			continue
		}
		if over := l.requested[r] - l.allocatable[r]*float64(th)/100; over > 0 {
			n = max(n, int64(math.Min(math.Ceil(over/p), math.MaxInt32)))
		}
	}
	return n
}

// headroom is how many replicas requesting per a cluster takes while staying margin
// points below the threshold of every resource.
func (l *load) headroom(t Threshold, per map[corev1.ResourceName]float64) int64 {
	n := int64(-1)
	for _, r := range resources {
		p := per[r]
		if p <= 0 {
			continue
		}
		limit := l.allocatable[r] // a resource without a threshold may fill up
		if th := t.of(r); th > 0 {
			limit = l.allocatable[r] * float64(max(th-margin, 0)) / 100
		}
		room := int64(math.Min(math.Max(math.Floor((limit-l.requested[r])/p), 0), math.MaxInt32))
		if n < 0 || room < n {
			n = room
		}
	}
	return max(n, 0)
}

func (l *load) add(per map[corev1.ResourceName]float64, replicas int64) {
	for r, p := range per {
		l.requested[r] += p * float64(replicas)
	}
}

// Move is replicas of one binding going from one cluster to another.
type Move struct {
	From, To string
	Replicas int32
}

// plan moves a binding's replicas off its hot clusters onto cool ones it may use
// (allowed), as many as bring each hot cluster to the threshold and each cool one no
// closer than margin below it; the coolest clusters take them first. It updates loads for
// the next binding, and returns the new targets (the same total) and the moves; none when
// the workload requests neither CPU nor memory.
func plan(targets []federationv1alpha1.TargetCluster, request corev1.ResourceList, loads map[string]*load, allowed func(string) bool,
	t Threshold) ([]federationv1alpha1.TargetCluster, []Move) {
	per := map[corev1.ResourceName]float64{}
	for _, r := range resources {
		if q, ok := request[r]; ok && q.Cmp(resource.Quantity{}) > 0 {
			per[r] = q.AsApproximateFloat64()
		}
	}
	if len(per) == 0 {
		return targets, nil
	}
	out := slices.Clone(targets)
	index := map[string]int{}
	for i, tc := range out {
		index[tc.Name] = i
	}
	var cool []*load
	for name, l := range loads {
		if allowed(name) && !l.hot(t) {
			cool = append(cool, l)
		}
	}
	var moves []Move
	for i := range out {
		src := loads[out[i].Name]
		if src == nil || !src.hot(t) || out[i].Replicas == 0 {
			continue
		}
		need := min(src.excess(t, per), int64(out[i].Replicas))
		// The coolest first: most headroom, then by name.
		slices.SortFunc(cool, func(a, b *load) int {
			return cmp.Or(cmp.Compare(b.headroom(t, per), a.headroom(t, per)), cmp.Compare(a.name, b.name))
		})
		for _, dst := range cool {
			if need == 0 {
				break
			}
			if dst.name == src.name {
				continue
			}
			n := min(need, dst.headroom(t, per))
			if n <= 0 {
				continue
			}
			need -= n
			src.add(per, -n)
			dst.add(per, n)
			out[i].Replicas -= int32(n)
			if j, ok := index[dst.name]; ok {
				out[j].Replicas += int32(n)
			} else {
				index[dst.name] = len(out)
				out = append(out, federationv1alpha1.TargetCluster{Name: dst.name, Replicas: int32(n)})
			}
			moves = append(moves, Move{From: src.name, To: dst.name, Replicas: int32(n)})
		}
	}
	if len(moves) == 0 {
		return targets, nil
	}
	kept := out[:0]
	for _, tc := range out {
		if tc.Replicas > 0 {
			kept = append(kept, tc)
		}
	}
	slices.SortFunc(kept, func(a, b federationv1alpha1.TargetCluster) int { return cmp.Compare(a.Name, b.Name) })
	return kept, moves
}
