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

package policy

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParsePointer(t *testing.T) {
	cases := []struct {
		pointer string
		want    []string
		wantErr bool
	}{
		{pointer: "", want: nil},
		{pointer: "/", want: []string{""}},
		{pointer: "/a/b", want: []string{"a", "b"}},
		{pointer: "/a~1b/c~0d/~01", want: []string{"a/b", "c~d", "~1"}},
		{pointer: "a", wantErr: true},
		{pointer: "/a~", wantErr: true},
		{pointer: "/a~2", wantErr: true},
	}
	for _, tc := range cases {
		got, err := ParsePointer(tc.pointer)
		if (err != nil) != tc.wantErr || !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q, error %v", tc.pointer, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestTouchesIdentity(t *testing.T) {
	cases := []struct {
		pointer string
		want    string // "" when it does not
	}{
		{pointer: "", want: "/apiVersion"}, // the whole object
		{pointer: "/apiVersion", want: "/apiVersion"},
		{pointer: "/kind", want: "/kind"},
		{pointer: "/metadata", want: "/metadata/name"},
		{pointer: "/metadata/name", want: "/metadata/name"},
		{pointer: "/metadata/namespace", want: "/metadata/namespace"},
		{pointer: "/metadata/namespace/x", want: "/metadata/namespace"},
		{pointer: "/metadata/labels/app", want: ""},
		{pointer: "/metadata/annotations/metadata~1name", want: ""},
		{pointer: "/metadata/generateName", want: ""},
		{pointer: "/spec/replicas", want: ""},
		{pointer: "/data/kind", want: ""},
		{pointer: "/kindly", want: ""},
		{pointer: "bad", want: ""},
	}
	for _, tc := range cases {
		got, ok := TouchesIdentity(tc.pointer)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("TouchesIdentity(%q) = %q, %v; want %q", tc.pointer, got, ok, tc.want)
		}
	}
}

func TestSameIdentity(t *testing.T) {
	obj := func(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace(namespace)
		u.SetName(name)
		return u
	}
	tmpl := obj("v1", "ConfigMap", "sec-a", "cm")
	if err := SameIdentity(obj("v1", "ConfigMap", "sec-a", "cm"), tmpl); err != nil {
		t.Errorf("the same object: %v", err)
	}
	for _, m := range []*unstructured.Unstructured{
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "tenant-admin"),
		obj("v1", "ConfigMap", "kube-system", "cm"),
		obj("v1", "ConfigMap", "", "cm"),
		obj("v1", "ConfigMap", "sec-a", "other"),
		obj("v1", "Secret", "sec-a", "cm"),
		obj("example.com/v1", "ConfigMap", "sec-a", "cm"),
	} {
		err := SameIdentity(m, tmpl)
		if err == nil || !strings.Contains(err.Error(), "ConfigMap sec-a/cm (v1)") || !strings.Contains(err.Error(), "may not change") {
			t.Errorf("%s: error %v, want one naming the template and the rule", IdentityOf(m), err)
		}
	}
}
