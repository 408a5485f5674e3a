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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestMemberObjects(t *testing.T) {
	if ns := newFedNamespace(); ns.Name != "fed-system" || ns.Labels[labelManagedBy] != managedBy {
		t.Errorf("namespace %+v", ns.ObjectMeta)
	}
	if sa := newMemberServiceAccount(); sa.Namespace != "fed-system" || sa.Name != "fed" {
		t.Errorf("service account %s/%s", sa.Namespace, sa.Name)
	}
	crb := newMemberClusterRoleBinding()
	if crb.Name != "fed" {
		t.Errorf("binding name %q", crb.Name)
	}
	if d := cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"}, crb.RoleRef); d != "" {
		t.Errorf("roleRef (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: "fed", Namespace: "fed-system"}}, crb.Subjects); d != "" {
		t.Errorf("subjects (-want +got):\n%s", d)
	}
	s := newMemberTokenSecret()
	if s.Type != corev1.SecretTypeServiceAccountToken || s.Namespace != "fed-system" || s.Annotations["kubernetes.io/service-account.name"] != "fed" {
		t.Errorf("token secret %+v", s)
	}
	h := NewHostSecret("m1", []byte("tok"), []byte("ca"))
	if h.Namespace != "fed-system" || h.Name != "m1" || string(h.Data["token"]) != "tok" || string(h.Data["caBundle"]) != "ca" {
		t.Errorf("host secret %+v", h)
	}
}
