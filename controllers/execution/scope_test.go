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

package execution

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestInScope(t *testing.T) {
	work := func(annotation, value string) *federationv1alpha1.Work {
		w := &federationv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "fed-es-member1"}}
		if annotation != "" {
			w.Annotations = map[string]string{annotation: value}
		}
		return w
	}
	obj := func(kind, namespace, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		u.SetNamespace(namespace)
		u.SetName(name)
		return u
	}
	rb := work(federationv1alpha1.AnnotationBinding, "sec-a/cm-configmap")
	crb := work(federationv1alpha1.AnnotationBinding, "view-clusterrole")
	mcs := work(federationv1alpha1.AnnotationMultiClusterService, "sec-a/web")
	cases := []struct {
		name       string
		w          *federationv1alpha1.Work
		ordinal    int
		obj        *unstructured.Unstructured
		namespaced bool
		wantErr    string
	}{
		{name: "the template", w: rb, obj: obj("ConfigMap", "sec-a", "cm"), namespaced: true},
		{name: "a dependency", w: rb, ordinal: 1, obj: obj("Secret", "sec-a", "s"), namespaced: true},
		{name: "another namespace", w: rb, obj: obj("ConfigMap", "kube-system", "cm"), namespaced: true, wantErr: "not in namespace sec-a"},
		{name: "a dependency of another namespace", w: rb, ordinal: 1, obj: obj("Secret", "kube-system", "s"), namespaced: true, wantErr: "not in namespace sec-a"},
		{name: "cluster-scoped", w: rb, obj: obj("ClusterRoleBinding", "sec-a", "cm"), wantErr: "is cluster-scoped"},
		{name: "another name", w: rb, obj: obj("ConfigMap", "sec-a", "other"), namespaced: true, wantErr: "not the template"},
		{name: "another kind", w: rb, obj: obj("Secret", "sec-a", "cm"), namespaced: true, wantErr: "not the template"},
		{name: "a cluster-scoped template", w: crb, obj: obj("ClusterRole", "", "view"), namespaced: false},
		{name: "namespaced in a cluster binding", w: crb, obj: obj("ClusterRole", "sec-a", "view"), namespaced: true, wantErr: "is namespaced"},
		{name: "a cluster binding's other name", w: crb, obj: obj("ClusterRole", "", "admin"), wantErr: "not the template"},
		{name: "a service's slice", w: mcs, ordinal: 1, obj: obj("EndpointSlice", "sec-a", "web-x"), namespaced: true},
		{name: "a service's slice elsewhere", w: mcs, ordinal: 1, obj: obj("EndpointSlice", "default", "web-x"), namespaced: true, wantErr: "not in namespace sec-a"},
		{name: "a hand-made Work", w: work("", ""), obj: obj("ClusterRoleBinding", "", "x")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := inScope(tc.w, tc.ordinal, tc.obj, tc.namespaced)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("inScope = %v, want error %q", err, tc.wantErr)
			}
		})
	}
}
