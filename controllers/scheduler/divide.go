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

// Package scheduler decides where a binding's replicas go. Its algorithms are pure
// functions of their inputs.
package scheduler

import (
	"cmp"
	"slices"
)

// Weight is a cluster and its weight.
type Weight struct {
	Cluster string
	Weight  int64
}

// Assignment is how many replicas a cluster gets.
type Assignment struct {
	Cluster  string
	Replicas int32
}

// DivideByWeight divides replicas among clusters in proportion to their weights (the
// Divided/Weighted rule): each gets the whole part of its share, and the replicas left go
// one each to the largest remainders, then the heaviest weights, then clusters in name
// order, so the result is the same for the same input. A cluster of weight 0 gets nothing
// while another has weight; clusters are returned in name order, those that get none
// included.
func DivideByWeight(replicas int32, weights []Weight) []Assignment {
	out := make([]Assignment, len(weights))
	var total int64
	for i, w := range weights {
		out[i].Cluster = w.Cluster
		total += max(w.Weight, 0)
	}
	if total == 0 || replicas <= 0 {
		slices.SortFunc(out, func(a, b Assignment) int { return cmp.Compare(a.Cluster, b.Cluster) })
		return out
	}
	type share struct {
		i         int
		remainder int64
	}
	shares := make([]share, len(weights))
	given := int32(0)
	for i, w := range weights {
		part := int64(replicas) * max(w.Weight, 0)
		out[i].Replicas = int32(part / total)
		given += out[i].Replicas
		shares[i] = share{i, part % total}
	}
	slices.SortFunc(shares, func(a, b share) int {
		return cmp.Or(
			cmp.Compare(b.remainder, a.remainder),
			cmp.Compare(weights[b.i].Weight, weights[a.i].Weight),
			cmp.Compare(weights[a.i].Cluster, weights[b.i].Cluster),
		)
	})
	for k := 0; given < replicas; k++ {
		out[shares[k%len(shares)].i].Replicas++
		given++
	}
	slices.SortFunc(out, func(a, b Assignment) int { return cmp.Compare(a.Cluster, b.Cluster) })
	return out
}

// slot is one selected cluster in a division: its weight and the most replicas it can hold.
type slot struct {
	name   string
	weight int64
	cap    int64
}

// divideCapped divides replicas among slots in proportion to their weights without giving
// any slot more than its cap: a slot whose share would pass its cap gets its cap and the
// rest is divided again among the others. Each slot first gets floor replicas (0, or 1 when
// a spread constraint needs every selected cluster to run some). Slots must be in name
// order; false when they cannot hold the replicas.
func divideCapped(replicas int64, slots []slot, floor int64) ([]int64, bool) {
	out := make([]int64, len(slots))
	left := replicas
	if floor > 0 {
		if int64(len(slots))*floor > replicas {
			return nil, false
		}
		for i := range slots {
			if slots[i].cap < floor {
				return nil, false
			}
			out[i] = floor
		}
		left -= int64(len(slots)) * floor
	}
	var active []int
	for i, s := range slots {
		if s.weight > 0 && s.cap > out[i] {
			active = append(active, i)
		}
	}
	ws := make([]Weight, 0, len(active))
	for left > 0 {
		if len(active) == 0 {
			return nil, false
		}
		ws = ws[:0]
		for _, i := range active {
			ws = append(ws, Weight{Cluster: slots[i].name, Weight: slots[i].weight})
		}
		shares := DivideByWeight(int32(left), ws)
		overflow := false
		for k, i := range active {
			if int64(shares[k].Replicas) > slots[i].cap-out[i] {
				overflow = true
				break
			}
		}
		if !overflow {
			for k, i := range active {
				out[i] += int64(shares[k].Replicas)
			}
			return out, true
		}
		next := active[:0]
		for k, i := range active {
			if room := slots[i].cap - out[i]; int64(shares[k].Replicas) > room {
				out[i] += room
				left -= room
			} else {
				next = append(next, i)
			}
		}
		active = next
	}
	return out, true
}

// moveTowards changes cur by delta replicas towards target, touching only the clusters on
// the side of the change: growing adds to clusters below their target, in proportion to how
// far below they are, and shrinking takes from those above theirs. No replica moves between
// clusters. The sums of the gaps on that side are at least |delta| when target sums to
// sum(cur)+delta, so each cluster stays between its current and its target count. names
// must be in name order, as for DivideByWeight.
func moveTowards(names []string, cur, target []int64, delta int64) []int64 {
	out := slices.Clone(cur)
	if delta == 0 {
		return out
	}
	sign := int64(1)
	if delta < 0 {
		sign, delta = -1, -delta
	}
	gaps := make([]Weight, len(names))
	for i := range names {
		gaps[i] = Weight{Cluster: names[i], Weight: max(sign*(target[i]-cur[i]), 0)}
	}
	for i, a := range DivideByWeight(int32(delta), gaps) {
		out[i] += sign * int64(a.Replicas)
	}
	return out
}
