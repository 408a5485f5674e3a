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

// Package tables merges the server-side Tables of several clusters into one table per kind,
// with a CLUSTER column after NAME and an ADOPTION column last, and prints them with
// kubectl get's printers: the fleet's templates and the objects of member clusters side by
// side, every column as the servers made it.
package tables

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/rest"
	sigsjson "sigs.k8s.io/json"
)

// AcceptTable asks the server for a Table, as kubectl get does; it is a
// resource.Builder's TransformRequests function.
func AcceptTable(req *rest.Request) {
	req.SetHeader("Accept", strings.Join([]string{
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1.SchemeGroupVersion.Version, metav1.GroupName),
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1beta1.SchemeGroupVersion.Version, metav1beta1.GroupName),
		"application/json",
	}, ","))
}

// DecodeJSON is Decode of a server's JSON answer, read once: a Table straight into its
// type, the metadata of its rows' objects too.
func DecodeJSON(data []byte) (*metav1.Table, error) {
	t := &metav1.Table{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, t); err != nil {
		return nil, err
	}
	if gv, err := schema.ParseGroupVersion(t.APIVersion); err != nil || t.Kind != "Table" ||
		(gv != metav1.SchemeGroupVersion && gv != metav1beta1.SchemeGroupVersion) {
		obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, data)
		if err != nil {
			return nil, err
		}
		return Decode(obj)
	}
	for i := range t.Rows {
		row := &t.Rows[i]
		if row.Object.Raw == nil {
			continue
		}
		m := &metav1.PartialObjectMetadata{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(row.Object.Raw, m); err != nil {
			return nil, err
		}
		if m.Kind == "PartialObjectMetadata" {
			row.Object.Object = m
			continue
		}
		o, err := runtime.Decode(unstructured.UnstructuredJSONScheme, row.Object.Raw)
		if err != nil {
			return nil, err
		}
		row.Object.Object = o
	}
	return t, nil
}

// Decode turns a server's answer into a Table whose rows carry their objects (metadata
// only, by default). An answer that is no Table gets one with the names.
func Decode(obj runtime.Object) (*metav1.Table, error) {
	if t, ok := obj.(*metav1.Table); ok {
		return t, nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	gvk := obj.GetObjectKind().GroupVersionKind()
	if ok && gvk.Kind == "Table" && (gvk.GroupVersion() == metav1.SchemeGroupVersion || gvk.GroupVersion() == metav1beta1.SchemeGroupVersion) {
		t := &metav1.Table{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, t); err != nil {
			return nil, err
		}
		for i := range t.Rows {
			row := &t.Rows[i]
			if row.Object.Raw == nil || row.Object.Object != nil {
				continue
			}
			o, err := runtime.Decode(unstructured.UnstructuredJSONScheme, row.Object.Raw)
			if err != nil {
				return nil, err
			}
			row.Object.Object = o
		}
		return t, nil
	}
	// No Table from this server: the objects' names and ages.
	var items []runtime.Object
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
	} else {
		items = []runtime.Object{obj}
	}
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Age", Type: "string"},
	}}
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), translateAge(m.GetCreationTimestamp())},
			Object: runtime.RawExtension{Object: item},
		})
	}
	return t, nil
}

func translateAge(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}
