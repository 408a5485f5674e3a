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
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// Unlimited is how many replicas a cluster is taken to hold when a workload requests no
// resources: more than any replica count.
const Unlimited int64 = math.MaxInt32

// AvailableReplicas estimates how many more replicas of a workload a cluster can hold from
// its resource summary: for each resource one replica requests, what is free (allocatable
// less allocated less allocating) divided by the request, and the least of those. When the
// cluster reports a "pods" allocatable, each replica also takes one pod. A workload that
// requests nothing fits without limit; a cluster that has not reported its resources, or
// lacks a resource the workload requests, holds none.
func AvailableReplicas(c *clusterv1alpha1.Cluster, request corev1.ResourceList) int64 {
	if !requestsAny(request) {
		return Unlimited
	}
	s := c.Status.ResourceSummary
	if s == nil {
		return 0
	}
	out := Unlimited
	for name, per := range request {
		if per.Sign() > 0 {
			out = min(out, fits(s, name, per))
		}
	}
	if _, listed := request[corev1.ResourcePods]; !listed {
		if _, counted := s.Allocatable[corev1.ResourcePods]; counted {
			out = min(out, fits(s, corev1.ResourcePods, *resource.NewQuantity(1, resource.DecimalSI)))
		}
	}
	return max(out, 0)
}

func requestsAny(request corev1.ResourceList) bool {
	for _, q := range request {
		if q.Sign() > 0 {
			return true
		}
	}
	return false
}

// fits is how many times per fits in what is free of one resource.
func fits(s *clusterv1alpha1.ResourceSummary, name corev1.ResourceName, per resource.Quantity) int64 {
	free, ok := s.Allocatable[name]
	if !ok {
		return 0
	}
	free = free.DeepCopy()
	free.Sub(s.Allocated[name])
	free.Sub(s.Allocating[name])
	if free.Sign() <= 0 {
		return 0
	}
	return min(quotient(free, per), Unlimited)
}

// quotient divides two positive quantities, rounding down. Milli-units keep fractions of a
// CPU exact; quantities too large for milli-units in an int64 are divided in whole units.
func quotient(a, b resource.Quantity) int64 {
	const maxMilli = math.MaxInt64 / 1000
	if a.Value() < maxMilli && b.Value() < maxMilli {
		if bm := b.MilliValue(); bm > 0 {
			return a.MilliValue() / bm
		}
	}
	return a.Value() / max(b.Value(), 1)
}
