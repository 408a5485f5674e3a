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

package override

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// FuzzApply feeds arbitrary JSON objects and override specs to Apply, as a
// ClusterOverridePolicy and as an OverridePolicy of the object's namespace. Apply must not
// panic, must leave the template alone, and must return only JSON values.
func FuzzApply(f *testing.F) {
	toJSON := func(text string) string {
		raw, err := yaml.YAMLToJSON([]byte(text))
		if err != nil {
			f.Fatal(err)
		}
		return string(raw)
	}
	f.Add(toJSON(nginx), toJSON(seed000Policy), "member-cluster-1")
	f.Add(toJSON(nginx), toJSON(seed000Policy), "member-cluster-2")
	f.Add(toJSON(workloadImages), `{"overrideRules":[{"overriders":{"imageOverrider":[{"component":"Registry","operator":"add","value":"test-repo"},{"component":"Tag","operator":"remove"}]}}]}`, "m")
	f.Add(toJSON(web), `{"overrideRules":[{"overriders":{"commandOverrider":[{"containerName":"web","operator":"add","value":["x"]}],"argsOverrider":[{"containerName":"setup","operator":"remove","value":["-c"]}],"resourcesOverrider":[{"containerName":"web","value":{"limits":{"cpu":"1"}}}],"replicasOverrider":[{"value":2}]}}]}`, "m")
	f.Add(toJSON(appConfig), `{"overrideRules":[{"overriders":{"fieldOverrider":[{"fieldPath":"/data/config.yaml","yaml":[{"subPath":"/db/port","operator":"replace","value":1}]},{"fieldPath":"/data/config.json","json":[{"subPath":"/features/-","operator":"add","value":"c"}]}]}}]}`, "m")
	f.Add(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}}}`, `{"overrideRules":[{"targetCluster":{"clusterNames":["m"]},"overriders":{"labelsOverrider":[{"operator":"remove","value":{"a":""}}],"annotationsOverrider":[{"operator":"addIfAbsent","value":{"x":"y"}}],"plaintext":[{"path":"/data","operator":"add","value":{"k":"v"}},{"path":"","operator":"replace","value":{}}]}}]}`, "m")
	f.Add(`{"spec":[1,2,{"a":null}]}`, `{"overrideRules":[{"overriders":{"plaintext":[{"path":"/spec/2/a","operator":"replace","value":[]},{"path":"/spec/0","operator":"remove"}]}}]}`, "")

	f.Fuzz(func(t *testing.T, templateJSON, specJSON, clusterName string) {
		var content map[string]interface{}
		if err := utiljson.Unmarshal([]byte(templateJSON), &content); err != nil || content == nil {
			return
		}
		var s federationv1alpha1.OverrideSpec
		if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
			return
		}
		template := &unstructured.Unstructured{Object: content}
		before := runtime.DeepCopyJSON(content)
		policies := []Policy{
			{Namespace: template.GetNamespace(), Name: "namespaced", Spec: &s},
			{Name: "cluster-wide", Spec: &s},
		}
		got, _, err := Apply(template, cluster(clusterName, map[string]string{"env": "prod"}), policies)
		if !reflect.DeepEqual(before, template.Object) {
			t.Fatalf("Apply changed its template")
		}
		if err != nil {
			return
		}
		// DeepCopyJSON panics on a value that is not JSON.
		runtime.DeepCopyJSON(got.Object)
		if _, err := json.Marshal(got.Object); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
	})
}
