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

package mcs

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
)

// A cluster under TrafficControl is left out while another that serves is not; when none
// such is left, none is left out.
func TestTrafficControlled(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, actions := range map[string][]string{"member1": nil, "member2": {"TrafficControl"}, "member3": {"TrafficControl"}} {
		_ = indexer.Add(&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: clusterv1alpha1.ClusterStatus{RemedyActions: actions}})
	}
	c := &Controller{clusters: clusterlisters.NewClusterLister(indexer)}
	all := func(string) bool { return true }
	for _, tc := range []struct {
		clusters, kept, withheld []string
		serves                   func(string) bool
	}{
		{[]string{"member1", "member2", "member3"}, []string{"member1"}, []string{"member2", "member3"}, all},
		{[]string{"member2", "member3"}, []string{"member2", "member3"}, nil, all},
		{[]string{"member1"}, []string{"member1"}, nil, all},
		{nil, nil, nil, all},
		// member1 is not under it but has no endpoints: nobody is left out.
		{[]string{"member1", "member2"}, []string{"member1", "member2"}, nil, func(c string) bool { return c == "member2" }},
	} {
		kept, withheld := c.trafficControlled(tc.clusters, tc.serves)
		if !slices.Equal(kept, tc.kept) || !slices.Equal(withheld, tc.withheld) {
			t.Errorf("trafficControlled(%v) = %v, %v; want %v, %v", tc.clusters, kept, withheld, tc.kept, tc.withheld)
		}
	}
}
