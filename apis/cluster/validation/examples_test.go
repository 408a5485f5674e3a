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

	"github.com/fedhq/fed/apis/cluster"
	"github.com/fedhq/fed/apis/cluster/install"
	"github.com/fedhq/fed/apis/cluster/validation"
)

// TestSeedExample checks that the Cluster manifest of the design seeds
// decodes strictly and validates, and that a Cluster without a sync mode is
// pushed to.
func TestSeedExample(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder()

	data, err := os.ReadFile("testdata/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if errs := validation.ValidateCluster(obj.(*cluster.Cluster)); len(errs) > 0 {
		t.Errorf("seed Cluster: %v", errs.ToAggregate())
	}

	minimal := []byte("apiVersion: cluster.fedhq.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: m\nspec: {}\n")
	obj, _, err = decoder.Decode(minimal, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*cluster.Cluster).Spec.SyncMode; got != cluster.Push {
		t.Errorf("default syncMode = %q, want Push", got)
	}
}
