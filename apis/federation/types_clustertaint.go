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

package federation

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterTaintPolicy taints member clusters from their status conditions.
type ClusterTaintPolicy struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec ClusterTaintPolicySpec
}

// ClusterTaintPolicySpec says which clusters, when to add the taints, when to
// remove them, and the taints.
type ClusterTaintPolicySpec struct {
	// TargetClusters selects the clusters; nil selects every cluster.
	TargetClusters *ClusterAffinity

	// AddOnConditions, all together, add the taints.
	AddOnConditions []MatchCondition

	// RemoveOnConditions, all together, remove the taints.
	RemoveOnConditions []MatchCondition

	// Taints are added and removed.
	Taints []PolicyTaint
}

// MatchCondition matches a condition of a Cluster's status by its status.
type MatchCondition struct {
	// ConditionType is the type of the Cluster's condition.
	ConditionType string

	// Operator is In or NotIn.
	Operator MatchConditionOperator

	// StatusValues are the condition statuses (True, False, Unknown).
	StatusValues []metav1.ConditionStatus
}

// MatchConditionOperator relates a condition's status to StatusValues.
type MatchConditionOperator string

const (
	// MatchConditionOpIn matches a status among the values.
	MatchConditionOpIn MatchConditionOperator = "In"
	// MatchConditionOpNotIn matches a status not among the values.
	MatchConditionOpNotIn MatchConditionOperator = "NotIn"
)

// PolicyTaint is a taint a ClusterTaintPolicy adds or removes.
type PolicyTaint struct {
	Key    string
	Effect corev1.TaintEffect
	Value  string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterTaintPolicyList is a list of ClusterTaintPolicies.
type ClusterTaintPolicyList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []ClusterTaintPolicy
}
