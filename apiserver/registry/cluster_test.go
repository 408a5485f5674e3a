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
	"testing"

	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/apiserver/tunnel"
)

func TestClusterStorage(t *testing.T) {
	m := storageMap(t, func(o generic.RESTOptionsGetter) (*genericapiserver.APIGroupInfo, error) {
		return NewClusterGroupInfo(o, nil, tunnel.New())
	})
	expectPaths(t, m, "clusters", "clusters/status", "clusters/proxy", "clusters/attach", "remedies")
	if _, _, err := scheme.Scheme.ConvertFieldLabel(clusterv1alpha1.SchemeGroupVersion.WithKind("Cluster"), "spec.syncMode", "Push"); err != nil {
		t.Errorf("field selector on spec.syncMode: %v", err)
	}
	t.Run("clusters", func(t *testing.T) {
		storageCase[*cluster.Cluster]{Case: registrytest.Cluster(), selects: "spec.syncMode=Push"}.run(t, m, "clusters")
	})
}

func TestFieldLabelConversionFuncs(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddFieldLabelConversionFuncs(s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, label string
		ok          bool
	}{
		{"Cluster", "metadata.name", true},
		{"Cluster", "spec.syncMode", true},
		{"Cluster", "spec.region", true},
		{"Cluster", "status.kubernetesVersion", false},
		{"ResourceBinding", "metadata.namespace", true},
		{"ResourceBinding", "spec.resource.kind", true},
		{"ClusterResourceBinding", "spec.resource.name", true},
		{"Work", "spec.resource.name", false},
	}
	for _, tc := range tests {
		gv := federationv1alpha1.SchemeGroupVersion
		if tc.kind == "Cluster" {
			gv = clusterv1alpha1.SchemeGroupVersion
		}
		label, value, err := s.ConvertFieldLabel(gv.WithKind(tc.kind), tc.label, "x")
		if ok := err == nil; ok != tc.ok || (ok && (label != tc.label || value != "x")) {
			t.Errorf("%s %s: got %q=%q, %v; want accepted %t", tc.kind, tc.label, label, value, err, tc.ok)
		}
	}
}
