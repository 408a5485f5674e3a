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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// fleet is the seeds' kind of fleet: members with providers, regions and labels.
func fleet() []*clusterv1alpha1.Cluster {
	mk := func(name, provider, region, zone string, labels map[string]string) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: clusterv1alpha1.ClusterSpec{Provider: provider, Region: region, Zone: zone}}
	}
	return []*clusterv1alpha1.Cluster{
		mk("member1", "huaweicloud", "cn-south-1", "cn-south-1a", map[string]string{"location": "us"}),
		mk("member2", "huaweicloud", "cn-north-1", "cn-north-1a", map[string]string{"location": "eu"}),
		mk("member3", "aws", "us-east-1", "us-east-1a", map[string]string{"location": "us"}),
	}
}

func TestStaticWeights(t *testing.T) {
	list := []federationv1alpha1.StaticClusterWeight{
		{TargetCluster: federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 1},
		{TargetCluster: federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, Weight: 1},
	}
	weights, err := StaticWeights(fleet(), list)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, a := range DivideByWeight(2, weights) {
		got += a.Cluster + "=" + string(rune('0'+a.Replicas)) + " "
	}
	if got != "member1=1 member2=1 member3=0 " {
		t.Errorf("the nginx example divides 2 replicas as %q", got)
	}
}
