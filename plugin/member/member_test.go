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

package member

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestMemberObjects(t *testing.T) {
	if ns := newFedNamespace(); ns.Name != "fed-system" || ns.Labels[labelManagedBy] != managedBy {
		t.Errorf("namespace %+v", ns.ObjectMeta)
	}
	if sa := newMemberServiceAccount(); sa.Namespace != "fed-system" || sa.Name != "fed" {
		t.Errorf("service account %s/%s", sa.Namespace, sa.Name)
	}
	crb := newMemberClusterRoleBinding("fed:member")
	if crb.Name != "fed" {
		t.Errorf("binding name %q", crb.Name)
	}
	if d := cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "fed:member"}, crb.RoleRef); d != "" {
		t.Errorf("roleRef (-want +got):\n%s", d)
	}
	fed := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "fed", Namespace: "fed-system"}}
	if d := cmp.Diff(fed, crb.Subjects); d != "" {
		t.Errorf("subjects (-want +got):\n%s", d)
	}
	// Whatever the ClusterRole, fed may ask for tokens of itself, and of no one else.
	role, rb := newTokenRenewalRole(), newTokenRenewalRoleBinding()
	if role.Namespace != "fed-system" || rb.Namespace != "fed-system" {
		t.Errorf("token renewal role in %q, binding in %q", role.Namespace, rb.Namespace)
	}
	if d := cmp.Diff([]rbacv1.PolicyRule{{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, ResourceNames: []string{"fed"}}}, role.Rules); d != "" {
		t.Errorf("token renewal rules (-want +got):\n%s", d)
	}
	if d := cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}, rb.RoleRef); d != "" {
		t.Errorf("token renewal roleRef (-want +got):\n%s", d)
	}
	if d := cmp.Diff(fed, rb.Subjects); d != "" {
		t.Errorf("token renewal subjects (-want +got):\n%s", d)
	}
	expires := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	h := NewHostSecret("m1", Token{Value: []byte("tok"), Expiration: expires}, []byte("ca"))
	if h.Namespace != "fed-system" || h.Name != "m1" || string(h.Data["token"]) != "tok" || string(h.Data["caBundle"]) != "ca" {
		t.Errorf("host secret %+v", h)
	}
	if got := h.Annotations["cluster.fedhq.io/token-expiration"]; got != "2026-03-01T11:00:00Z" {
		t.Errorf("host secret's token expiration %q, want 2026-03-01T11:00:00Z", got)
	}
}
