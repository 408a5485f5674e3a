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

package fleet

import (
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// withHostDefaults completes a native template about to be stored with what the host's dry
// run of it answered (answer), so that the fleet stores and serves what a cluster would:
//   - the fields the host's defaulting filled are added (spec.replicas 1, strategy,
//     restartPolicy, a Service's type and ports' protocol, ...);
//   - the fields the host dropped are dropped: unknown fields (a cluster prunes them on
//     update, warning), a Secret's stringData (folded into data, which is the host's);
//   - every value the template has is its own: a value the host's admission plugins or
//     webhooks changed, or a list they grew (a sidecar), is not taken, and neither is the
//     template's metadata nor status, which belong to the fleet.
//
// Nothing the host allocates is taken: a Service's cluster IPs are the fleet's
// (fleetClusterIPs) and the fleet allocates no node ports.
//
// The members get none of what this adds: the manifest fed applies holds only the fields a
// writer of the template set (its managedFields; trim.WritersOnly), and each
// member fills in its own defaults.
func withHostDefaults(obj, answer *unstructured.Unstructured) {
	if answer == nil {
		return
	}
	answer = answer.DeepCopy()
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Service" {
		// What the host allocated is the template's own, or nothing: the merge below then
		// keeps the template's.
		for _, f := range []string{"clusterIP", "clusterIPs", "healthCheckNodePort"} {
			if v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", f); found {
				_ = unstructured.SetNestedField(answer.Object, v, "spec", f)
			} else {
				unstructured.RemoveNestedField(answer.Object, "spec", f)
			}
		}
		own, _, _ := unstructured.NestedSlice(obj.Object, "spec", "ports")
		if ports, found, _ := unstructured.NestedSlice(answer.Object, "spec", "ports"); found {
			for i, p := range ports {
				m, ok := p.(map[string]any)
				if !ok {
					continue
				}
				if i < len(own) {
					if o, ok := own[i].(map[string]any); ok && o["nodePort"] != nil {
						continue
					}
				}
				delete(m, "nodePort")
			}
			_ = unstructured.SetNestedSlice(answer.Object, ports, "spec", "ports")
		}
	}
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Secret" {
		// stringData folded into data by the host's rules: the host's data is the template's.
		if data, found := answer.Object["data"]; found {
			obj.Object["data"] = data
		}
	}
	// The template's type, metadata and status are the fleet's own; a template without a
	// status has the empty one the host's answer has, as a cluster's object of its kind
	// reads ({} for a Deployment, a Service's empty loadBalancer).
	for _, k := range []string{"apiVersion", "kind", "metadata", "status"} {
		if v, found := obj.Object[k]; found {
			answer.Object[k] = v
		} else if k != "status" || !emptyStatus(answer.Object[k]) {
			delete(answer.Object, k)
		}
	}
	obj.Object = mergeDefaults(obj.Object, answer.Object).(map[string]any)
}

// foldStringData folds a Secret's stringData into its data as the request's body is
// decoded, as kube's conversion of a Secret does, so that its managedFields name the keys
// of data a writer set (stringData is never stored or served).
func foldStringData(obj *unstructured.Unstructured) ([]string, error) {
	stringData, ok := obj.Object["stringData"].(map[string]any)
	if !ok {
		delete(obj.Object, "stringData")
		return nil, nil
	}
	data, _ := obj.Object["data"].(map[string]any)
	if data == nil {
		data = make(map[string]any, len(stringData))
	}
	for k, v := range stringData {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("stringData.%s: a %T, not a string", k, v)
		}
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	obj.Object["data"] = data
	delete(obj.Object, "stringData")
	return nil, nil
}

// emptyStatus says whether a status holds nothing but empty maps: a new object's, whatever
// the host's dry run answered.
func emptyStatus(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, x := range m {
		if !emptyStatus(x) {
			return false
		}
	}
	return true
}

// mergeDefaults is cur (the template's value) with what the host's answer (ans) added to
// it and without what the host dropped: maps by key, lists of the same length item by item;
// any other value is cur's.
func mergeDefaults(cur, ans any) any {
	switch c := cur.(type) {
	case map[string]any:
		a, ok := ans.(map[string]any)
		if !ok {
			return cur
		}
		out := make(map[string]any, len(a))
		for k, av := range a {
			if cv, ok := c[k]; ok {
				out[k] = mergeDefaults(cv, av)
			} else {
				out[k] = av
			}
		}
		return out
	case []any:
		a, ok := ans.([]any)
		if !ok || len(a) != len(c) {
			return cur
		}
		out := make([]any, len(c))
		for i := range c {
			out[i] = mergeDefaults(c[i], a[i])
		}
		return out
	default:
		return cur
	}
}
