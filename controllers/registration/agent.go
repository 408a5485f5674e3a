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

package registration

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// The host objects of a pull cluster's agent, all in the host's FedNamespace, labelled
// LabelAgent with the cluster's name: the Lease the agent renews (AgentLease), and a Role
// and RoleBinding of the same name that let the agent's user get and update that Lease
// and no other. fed creates the Lease itself because RBAC cannot limit create by name.

func agentMeta(cluster string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      clusterv1alpha1.AgentLease(cluster),
		Namespace: clusterv1alpha1.FedNamespace,
		Labels:    map[string]string{clusterv1alpha1.LabelAgent: cluster},
	}
}

// agentLease is the agent's Lease as fed creates it: empty, for the agent to fill.
func agentLease(cluster string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: agentMeta(cluster)}
}

// agentRole lets its subject get and update the agent's Lease.
func agentRole(cluster string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: agentMeta(cluster),
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{coordinationv1.GroupName},
			Resources:     []string{"leases"},
			ResourceNames: []string{clusterv1alpha1.AgentLease(cluster)},
			Verbs:         []string{"get", "update"},
		}},
	}
}

// agentRoleBinding grants agentRole to the agent's user.
func agentRoleBinding(cluster string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: agentMeta(cluster),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: clusterv1alpha1.AgentLease(cluster)},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: clusterv1alpha1.AgentUser(cluster)}},
	}
}
