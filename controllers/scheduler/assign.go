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
	"slices"
	"strings"
)

// slots are the chosen clusters as a division sees them.
func slotsOf(chosen []candidate) []slot {
	out := make([]slot, len(chosen))
	for i, c := range chosen {
		out[i] = slot{name: c.cluster.Name, weight: c.weight, cap: c.capacity}
	}
	return out
}

func (s *scheduling) tooSmall(chosen []candidate) *Unschedulable {
	var total int64
	for _, c := range chosen {
		total += c.capacity
	}
	names := make([]string, len(chosen))
	for i, c := range chosen {
		names[i] = c.cluster.Name
	}
	return noFit("%d replica(s) do not fit: %s can hold %d more", s.replicas, strings.Join(names, ", "), total)
}

// divideFixed divides by static or equal weights. The division depends only on the
// replicas, the weights and the capacities, so the result is the same whatever the
// previous one was: scaling changes each cluster by the difference of its shares, which
// largest-remainder division keeps to adding (or removing) replicas save in rare rounding
// cases, and a change of the weights moves replicas as the new weights say.
func (s *scheduling) divideFixed(chosen []candidate, floor int64) ([]int64, error) {
	var primaries, backups []candidate
	var at []int // where each of primaries, then backups, is in chosen
	for i, c := range chosen {
		if !c.backup {
			primaries, at = append(primaries, c), append(at, i)
		}
	}
	for i, c := range chosen {
		if c.backup {
			backups, at = append(backups, c), append(at, i)
		}
	}
	// Clusters with a weight are filled first, up to what they can hold; backups (weight
	// 0) share what is left.
	first := s.replicas
	if len(backups) > 0 {
		first = min(s.replicas, capacityOf(primaries))
	}
	counts, ok := divideCapped(first, slotsOf(primaries), floor)
	if !ok {
		return nil, s.tooSmall(chosen)
	}
	if len(backups) > 0 {
		rest, ok := divideCapped(s.replicas-first, slotsOf(backups), floor)
		if !ok {
			return nil, s.tooSmall(chosen)
		}
		counts = append(counts, rest...)
	}
	out := make([]int64, len(chosen))
	for k, i := range at {
		out[i] = counts[k]
	}
	return out, nil
}

// divideDynamic divides by available replicas (the seeds: available 6/12/18 share 12
// replicas as 2/4/6). Without a previous result that is the division. With one, replicas
// are only added to (scaling up) or only taken from (scaling down) clusters, towards that
// division; at the same count the previous result stays as it is, since capacities change
// all the time and following them would move replicas for nothing.
func (s *scheduling) divideDynamic(chosen []candidate, floor int64) ([]int64, error) {
	target, ok := divideCapped(s.replicas, slotsOf(chosen), floor)
	if !ok {
		return nil, s.tooSmall(chosen)
	}
	names := make([]string, len(chosen))
	cur := make([]int64, len(chosen))
	var total int64
	for i, c := range chosen {
		names[i], cur[i] = c.cluster.Name, c.previous
		total += c.previous
	}
	if total == 0 {
		return target, nil
	}
	out := moveTowards(names, cur, target, s.replicas-total)
	for _, n := range out {
		if n < floor {
			return target, nil // a spread constraint needs a cluster the previous result did not use
		}
	}
	return out, nil
}

// aggregate packs replicas into the chosen clusters, which pick already kept to the fewest
// that can hold them in preference order: each gets floor, then they are filled in order
// up to their capacity. With a previous result, scaling up fills the clusters that already
// run replicas first, and scaling down takes from the clusters that run the fewest first,
// so that they empty and drop out.
func (s *scheduling) aggregate(chosen []candidate, floor int64) ([]int64, error) {
	order := slices.Clone(chosen)
	slices.SortFunc(order, preferred)
	at := make(map[string]int, len(chosen))
	for i, c := range chosen {
		at[c.cluster.Name] = i
	}
	counts := make([]int64, len(chosen))
	var total, capacity int64
	for i, c := range chosen {
		counts[i] = c.previous
		total += c.previous
		capacity += c.capacity
	}
	if capacity < s.replicas {
		return nil, s.tooSmall(chosen)
	}
	for _, c := range order {
		if i := at[c.cluster.Name]; counts[i] < floor {
			total += floor - counts[i]
			counts[i] = floor
		}
	}
	if total > s.replicas {
		// Take from the smallest first; among equals, the least preferred first.
		slices.Reverse(order)
		slices.SortStableFunc(order, func(a, b candidate) int { return cmp.Compare(counts[at[a.cluster.Name]], counts[at[b.cluster.Name]]) })
		for _, c := range order {
			i := at[c.cluster.Name]
			take := max(min(counts[i]-floor, total-s.replicas), 0)
			counts[i] -= take
			total -= take
		}
		return counts, nil
	}
	for _, c := range order {
		i := at[c.cluster.Name]
		add := max(min(c.capacity-counts[i], s.replicas-total), 0)
		counts[i] += add
		total += add
	}
	if total != s.replicas {
		return nil, s.tooSmall(chosen)
	}
	return counts, nil
}
