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

package interpreter

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// fromYAML parses a fixture the way a client decodes an object: whole numbers become
// int64.
func fromYAML(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	return &unstructured.Unstructured{Object: mapFromYAML(t, y)}
}

func mapFromYAML(t *testing.T, y string) map[string]any {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("bad fixture: %v", err)
	}
	m := map[string]any{}
	if err := utiljson.Unmarshal(data, &m); err != nil {
		t.Fatalf("bad fixture: %v", err)
	}
	return m
}

// item is the status a cluster reports; an empty status YAML reports none.
func item(t *testing.T, cluster string, applied bool, status string) federationv1alpha1.AggregatedStatusItem {
	t.Helper()
	it := federationv1alpha1.AggregatedStatusItem{ClusterName: cluster, Applied: applied}
	if status != "" {
		data, err := yaml.YAMLToJSON([]byte(status))
		if err != nil {
			t.Fatalf("bad fixture: %v", err)
		}
		it.Status = &runtime.RawExtension{Raw: data}
	}
	return it
}
