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

package validation_test

import (
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apis/search/install"
	"github.com/fedhq/fed/apis/search/validation"
)

// TestKarmadaExample checks that Karmada's ResourceRegistry example, with
// the group renamed, decodes strictly and validates, its targetCluster
// landing in federation.fedhq.io's ClusterAffinity.
func TestKarmadaExample(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder()

	data, err := os.ReadFile("testdata/resourceregistry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := obj.(*search.ResourceRegistry)
	if errs := validation.ValidateResourceRegistry(r); len(errs) > 0 {
		t.Errorf("example ResourceRegistry: %v", errs.ToAggregate())
	}
	if got := r.Spec.TargetCluster.ClusterNames; len(got) != 2 || got[0] != "member1" || got[1] != "member2" {
		t.Errorf("targetCluster.clusterNames = %q", got)
	}
	if got := r.Spec.ResourceSelectors; len(got) != 2 || got[1] != (search.ResourceSelector{APIVersion: "v1", Kind: "Pod", Namespace: "default"}) {
		t.Errorf("resourceSelectors = %+v", got)
	}
}
