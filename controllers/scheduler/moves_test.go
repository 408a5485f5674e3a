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

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestApplyMoves(t *testing.T) {
	tc := func(name string, n int32) federationv1alpha1.TargetCluster {
		return federationv1alpha1.TargetCluster{Name: name, Replicas: n}
	}
	mv := func(from, to string, n int32) federationv1alpha1.ReplicaMoveRequest {
		return federationv1alpha1.ReplicaMoveRequest{FromCluster: from, ToCluster: to, Replicas: n, Producer: "test"}
	}
	clusters := []federationv1alpha1.TargetCluster{tc("m1", 4), tc("m2", 2)}
	for _, c := range []struct {
		name  string
		moves []federationv1alpha1.ReplicaMoveRequest
		want  []federationv1alpha1.TargetCluster
	}{
		{"none", nil, clusters},
		{"taken, to be placed", []federationv1alpha1.ReplicaMoveRequest{mv("m1", "", 3)}, []federationv1alpha1.TargetCluster{tc("m1", 1), tc("m2", 2)}},
		{"all taken drops the cluster", []federationv1alpha1.ReplicaMoveRequest{mv("m2", "", 2)}, []federationv1alpha1.TargetCluster{tc("m1", 4)}},
		{"more than it has", []federationv1alpha1.ReplicaMoveRequest{mv("m2", "m1", 5)}, []federationv1alpha1.TargetCluster{tc("m1", 6)}},
		{"to a target", []federationv1alpha1.ReplicaMoveRequest{mv("m1", "m2", 1)}, []federationv1alpha1.TargetCluster{tc("m1", 3), tc("m2", 3)}},
		{"to a new cluster", []federationv1alpha1.ReplicaMoveRequest{mv("m1", "m3", 2), mv("m2", "m3", 1)},
			[]federationv1alpha1.TargetCluster{tc("m1", 2), tc("m2", 1), tc("m3", 3)}},
		{"from a cluster no longer a target", []federationv1alpha1.ReplicaMoveRequest{mv("m9", "m1", 2)}, clusters},
	} {
		got := applyMoves(clusters, c.moves)
		if !apiequality.Semantic.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if clusters[0].Replicas != 4 || clusters[1].Replicas != 2 {
		t.Errorf("applyMoves changed its input: %v", clusters)
	}
}
