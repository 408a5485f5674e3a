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

package agents

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

// TestEventRestriction: an agent records events about its Cluster, its Works and the
// templates its Works were made from, and nothing else; anyone else is not its business.
func TestEventRestriction(t *testing.T) {
	works := map[string]bool{"fed-es-edge/shop.web-deployment": true, "fed-es-edge/view-clusterrole": true}
	plugin := EventAdmission(func(_ context.Context, namespace, name string) (bool, error) { return works[namespace+"/"+name], nil })
	event := func(group, field string, ref map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Event", field: ref}}
	}
	ref := func(apiVersion, kind, namespace, name string) map[string]any {
		return map[string]any{"apiVersion": apiVersion, "kind": kind, "namespace": namespace, "name": name}
	}
	agent := &user.DefaultInfo{Name: "system:fed:agent:edge"}
	for _, c := range []struct {
		name    string
		who     user.Info
		group   string
		ref     map[string]any
		in      string // the event's namespace, when not its object's (or default)
		wantErr string
	}{
		{name: "its template", who: agent, ref: ref("apps/v1", "Deployment", "shop", "web")},
		{name: "its cluster-scoped template", who: agent, ref: ref("rbac.authorization.k8s.io/v1", "ClusterRole", "", "view")},
		{name: "its Cluster", who: agent, ref: ref("cluster.fedhq.io/v1alpha1", "Cluster", "", "edge")},
		{name: "its Work", who: agent, ref: ref("federation.fedhq.io/v1alpha1", "Work", "fed-es-edge", "shop.web-deployment")},
		{name: "its template, as events.k8s.io", who: agent, group: "events.k8s.io", ref: ref("apps/v1", "Deployment", "shop", "web")},
		{name: "another tenant's template", who: agent, ref: ref("apps/v1", "Deployment", "bank", "ledger"), wantErr: "has no Work in fed-es-edge"},
		{name: "another tenant's, as events.k8s.io", who: agent, group: "events.k8s.io", ref: ref("v1", "ConfigMap", "bank", "keys"), wantErr: "has no Work"},
		{name: "another Cluster", who: agent, ref: ref("cluster.fedhq.io/v1alpha1", "Cluster", "", "member1"), wantErr: "not its cluster"},
		{name: "another cluster's Work", who: agent, ref: ref("federation.fedhq.io/v1alpha1", "Work", "fed-es-member1", "x"), wantErr: "not of its execution namespace"},
		{name: "its template, in another tenant's namespace", who: agent, ref: ref("apps/v1", "Deployment", "shop", "web"), in: "bank",
			wantErr: "belongs in namespace shop, not bank"},
		{name: "its cluster-scoped template, in a tenant's namespace", who: agent, ref: ref("rbac.authorization.k8s.io/v1", "ClusterRole", "", "view"), in: "bank",
			wantErr: "belongs in namespace default, not bank"},
		{name: "its Cluster, in a tenant's namespace", who: agent, ref: ref("cluster.fedhq.io/v1alpha1", "Cluster", "", "edge"), in: "bank",
			wantErr: "belongs in namespace default"},
		{name: "a user", who: &user.DefaultInfo{Name: "alice"}, ref: ref("apps/v1", "Deployment", "bank", "ledger"), in: "shop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			field := "involvedObject"
			if c.group != "" {
				field = "regarding"
			}
			namespace := c.in
			if namespace == "" {
				namespace, _ = c.ref["namespace"].(string)
			}
			if namespace == "" {
				namespace = "default"
			}
			a := admission.NewAttributesRecord(event(c.group, field, c.ref), nil, schema.GroupVersionKind{}, namespace, "e1",
				schema.GroupVersionResource{Group: c.group, Version: "v1", Resource: "events"}, "", admission.Create, nil, false, c.who)
			err := plugin.Validate(context.Background(), a, nil)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("Validate = %v, want %q", err, c.wantErr)
			}
		})
	}
}
