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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// resources reads "cpu=4,memory=8Gi" style lists.
func resources(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestAvailableReplicas(t *testing.T) {
	summary := func(allocatable, allocated, allocating corev1.ResourceList) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Status: clusterv1alpha1.ClusterStatus{
			ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: allocatable, Allocated: allocated, Allocating: allocating}}}
	}
	for _, c := range []struct {
		name    string
		cluster *clusterv1alpha1.Cluster
		request corev1.ResourceList
		want    int64
	}{
		{"no request: unlimited", summary(resources("cpu", "1"), nil, nil), nil, Unlimited},
		{"a request of zero is no request", summary(resources("cpu", "1"), nil, nil), resources("cpu", "0"), Unlimited},
		{"no resource summary yet: none", &clusterv1alpha1.Cluster{}, resources("cpu", "1"), 0},
		{"allocatable less allocated less allocating", summary(resources("cpu", "10"), resources("cpu", "3"), resources("cpu", "1")),
			resources("cpu", "2"), 3},
		{"the least over the requested resources", summary(resources("cpu", "10", "memory", "8Gi"), nil, nil),
			resources("cpu", "1", "memory", "3Gi"), 2},
		{"fractions of a CPU are exact", summary(resources("cpu", "1200m"), nil, nil), resources("cpu", "100m"), 12},
		{"pods count when allocatable has them", summary(resources("cpu", "100", "pods", "110"), resources("pods", "105"), resources("pods", "2")),
			resources("cpu", "1"), 3},
		{"a resource the cluster lacks: none", summary(resources("cpu", "10"), nil, nil), resources("nvidia.com/gpu", "1"), 0},
		{"overcommitted: none", summary(resources("cpu", "2"), resources("cpu", "3"), nil), resources("cpu", "1"), 0},
		{"very large memory is divided in whole units", summary(resources("memory", "4Ei"), nil, nil), resources("memory", "1Ei"), 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := AvailableReplicas(c.cluster, c.request); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}
