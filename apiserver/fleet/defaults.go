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
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
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

// nativeDecoder decodes a native kind's request body as kube-apiserver does into its Go
// type: the fields the type does not have are dropped and reported (`unknown field
// "spec.bogus"`, strict decoding errors), and so are the values a typed object cannot
// keep (an empty value of an omitempty field), so that the field manager sees what a
// cluster's would. The object is not otherwise changed: nothing is added.
func nativeDecoder(gvk schema.GroupVersionKind) func(*unstructured.Unstructured) ([]string, error) {
	return func(obj *unstructured.Unstructured) ([]string, error) {
		if obj.GroupVersionKind() != gvk {
			return nil, nil
		}
		typed, err := clientgoscheme.Scheme.New(gvk)
		if err != nil {
			return nil, nil // not a kind of client-go's: the host's dry run prunes it
		}
		data, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		strictErrs, err := kjson.UnmarshalStrict(data, typed, kjson.DisallowUnknownFields)
		if err != nil {
			return nil, err
		}
		kept, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			return nil, err
		}
		obj.Object = keepOnly(obj.Object, kept).(map[string]any)
		var unknown []string
		for _, e := range strictErrs {
			if path, ok := strings.CutPrefix(e.Error(), "unknown field "); ok {
				if p, err := strconv.Unquote(path); err == nil {
					unknown = append(unknown, p)
					continue
				}
			}
			unknown = append(unknown, e.Error())
		}
		return unknown, nil
	}
}

// keepOnly is v without the map keys kept does not have: maps by key, lists of the same
// length item by item.
func keepOnly(v, kept any) any {
	switch x := v.(type) {
	case map[string]any:
		k, ok := kept.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(x))
		for key, val := range x {
			if kv, found := k[key]; found {
				out[key] = keepOnly(val, kv)
			}
		}
		return out
	case []any:
		k, ok := kept.([]any)
		if !ok || len(k) != len(x) {
			return v
		}
		out := make([]any, len(x))
		for i := range x {
			out[i] = keepOnly(x[i], k[i])
		}
		return out
	}
	return v
}

// decoders runs each of decode in turn, their dropped fields together.
func decoders(decode ...func(*unstructured.Unstructured) ([]string, error)) func(*unstructured.Unstructured) ([]string, error) {
	return func(obj *unstructured.Unstructured) ([]string, error) {
		var dropped []string
		for _, d := range decode {
			if d == nil {
				continue
			}
			more, err := d(obj)
			if err != nil {
				return nil, err
			}
			dropped = append(dropped, more...)
		}
		return dropped, nil
	}
}
