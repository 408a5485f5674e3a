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
