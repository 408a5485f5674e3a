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

package registry

import (
	"slices"
	"testing"

	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestFederationStorage(t *testing.T) {
	m := storageMap(t, NewFederationGroupInfo)
	expectPaths(t, m, "propagationpolicies", "clusterpropagationpolicies", "overridepolicies", "clusteroverridepolicies",
		"resourceinterpretercustomizations", "resourceinterpreterwebhookconfigurations", "replicaschedulingpolicies", "replicaschedulingpolicies/status",
		"federatedresourcequotas", "federatedresourcequotas/status", "clustertaintpolicies",
		"workloadrebalancers", "workloadrebalancers/status",
		"resourcebindings", "resourcebindings/status", "clusterresourcebindings", "clusterresourcebindings/status",
		"works", "works/status", "federatedhpas", "federatedhpas/status", "cronfederatedhpas", "cronfederatedhpas/status",
		"multiclusterservices", "multiclusterservices/status", "multiclusteringresses", "multiclusteringresses/status")
	tests := map[string]func(*testing.T){
		"propagationpolicies": func(t *testing.T) {
			storageCase[*federation.PropagationPolicy]{Case: registrytest.PropagationPolicy(), shortNames: []string{"pp"}}.
				run(t, m, "propagationpolicies")
		},
		"clusterpropagationpolicies": func(t *testing.T) {
			storageCase[*federation.ClusterPropagationPolicy]{Case: registrytest.ClusterPropagationPolicy(), shortNames: []string{"cpp"}}.
				run(t, m, "clusterpropagationpolicies")
		},
		"overridepolicies": func(t *testing.T) {
			storageCase[*federation.OverridePolicy]{Case: registrytest.OverridePolicy(), shortNames: []string{"op"}}.
				run(t, m, "overridepolicies")
		},
		"clusteroverridepolicies": func(t *testing.T) {
			storageCase[*federation.ClusterOverridePolicy]{Case: registrytest.ClusterOverridePolicy(), shortNames: []string{"cop"}}.
				run(t, m, "clusteroverridepolicies")
		},
		"resourceinterpretercustomizations": func(t *testing.T) {
			storageCase[*federation.ResourceInterpreterCustomization]{Case: registrytest.ResourceInterpreterCustomization(), shortNames: []string{"ric"}}.
				run(t, m, "resourceinterpretercustomizations")
		},
		"replicaschedulingpolicies": func(t *testing.T) {
			storageCase[*federation.ReplicaSchedulingPolicy]{Case: registrytest.ReplicaSchedulingPolicy(), shortNames: []string{"rsp"}}.
				run(t, m, "replicaschedulingpolicies")
		},
		"federatedresourcequotas": func(t *testing.T) {
			storageCase[*federation.FederatedResourceQuota]{Case: registrytest.FederatedResourceQuota(), shortNames: []string{"frq"}}.
				run(t, m, "federatedresourcequotas")
		},
		"clustertaintpolicies": func(t *testing.T) {
			storageCase[*federation.ClusterTaintPolicy]{Case: registrytest.ClusterTaintPolicy(), shortNames: []string{"ctp"}}.
				run(t, m, "clustertaintpolicies")
		},
		"workloadrebalancers": func(t *testing.T) {
			storageCase[*federation.WorkloadRebalancer]{Case: registrytest.WorkloadRebalancer()}.run(t, m, "workloadrebalancers")
		},
		"resourcebindings": func(t *testing.T) {
			storageCase[*federation.ResourceBinding]{Case: registrytest.ResourceBinding(), shortNames: []string{"rb"},
				selects: "spec.resource.kind=Deployment,spec.resource.name=nginx"}.run(t, m, "resourcebindings")
		},
		"clusterresourcebindings": func(t *testing.T) {
			storageCase[*federation.ClusterResourceBinding]{Case: registrytest.ClusterResourceBinding(), shortNames: []string{"crb"},
				selects: "spec.resource.kind=ClusterRole"}.run(t, m, "clusterresourcebindings")
		},
		"works": func(t *testing.T) {
			storageCase[*federation.Work]{Case: registrytest.Work()}.run(t, m, "works")
		},
		"federatedhpas": func(t *testing.T) {
			storageCase[*federation.FederatedHPA]{Case: registrytest.FederatedHPA(), shortNames: []string{"fhpa"}}.
				run(t, m, "federatedhpas")
		},
		"cronfederatedhpas": func(t *testing.T) {
			storageCase[*federation.CronFederatedHPA]{Case: registrytest.CronFederatedHPA(), shortNames: []string{"cronfhpa"}}.
				run(t, m, "cronfederatedhpas")
		},
		"multiclusterservices": func(t *testing.T) {
			storageCase[*federation.MultiClusterService]{Case: registrytest.MultiClusterService(), shortNames: []string{"mcs"}}.
				run(t, m, "multiclusterservices")
		},
		"multiclusteringresses": func(t *testing.T) {
			storageCase[*federation.MultiClusterIngress]{Case: registrytest.MultiClusterIngress(), shortNames: []string{"mci"}}.
				run(t, m, "multiclusteringresses")
		},
	}
	for name, test := range tests {
		t.Run(name, test)
	}
}

// expectPaths checks that m serves exactly paths.
func expectPaths(t *testing.T, m map[string]rest.Storage, paths ...string) {
	t.Helper()
	var got []string
	for p := range m {
		got = append(got, p)
	}
	slices.Sort(got)
	slices.Sort(paths)
	if !slices.Equal(got, paths) {
		t.Errorf("paths: got %q, want %q", got, paths)
	}
}
