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

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterTaintPolicy taints member clusters from their status conditions:
// when every addOnCondition holds for a target cluster, fed adds the policy's
// taints to it; when every removeOnCondition holds, fed removes them. The
// additions are looked at before the removals, and the policies in the order
// they were made. Taints are never removed because a policy is deleted or no
// longer selects a cluster. fed writes the taints only while the policy's
// author may update Clusters.
type ClusterTaintPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec says which clusters, when to add the taints, when to remove them,
	// and the taints.
	Spec ClusterTaintPolicySpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ClusterTaintPolicySpec says which clusters, when to add the taints, when to
// remove them, and the taints.
type ClusterTaintPolicySpec struct {
	// TargetClusters selects the clusters the policy looks at; without it,
	// every cluster. A cluster it no longer selects keeps its taints as they
	// are.
	// +optional
	TargetClusters *ClusterAffinity `json:"targetClusters,omitempty" protobuf:"bytes,1,opt,name=targetClusters"`

	// AddOnConditions add the taints to a cluster when all of them hold.
	// Empty: the policy adds no taint.
	// +optional
	// +listType=atomic
	AddOnConditions []MatchCondition `json:"addOnConditions,omitempty" protobuf:"bytes,2,rep,name=addOnConditions"`

	// RemoveOnConditions remove the taints from a cluster when all of them
	// hold. Empty: the policy removes no taint.
	// +optional
	// +listType=atomic
	RemoveOnConditions []MatchCondition `json:"removeOnConditions,omitempty" protobuf:"bytes,3,rep,name=removeOnConditions"`

	// Taints are the taints added and removed, each by key and effect. A
	// NoExecute taint takes workloads that do not tolerate it from the cluster,
	// as a failed cluster's does. At least one.
	// +listType=atomic
	Taints []PolicyTaint `json:"taints" protobuf:"bytes,4,rep,name=taints"`
}

// MatchCondition matches a condition of a Cluster's status by its status. A
// cluster without a condition of the type matches neither In nor NotIn.
type MatchCondition struct {
	// ConditionType is the type of the Cluster's condition (Ready, or one
	// anybody writes into the Cluster's status).
	ConditionType string `json:"conditionType" protobuf:"bytes,1,opt,name=conditionType"`

	// Operator is In (the condition's status is one of statusValues) or
	// NotIn (it is none of them).
	Operator MatchConditionOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=MatchConditionOperator"`

	// StatusValues are condition statuses: True, False or Unknown.
	// +listType=atomic
	StatusValues []metav1.ConditionStatus `json:"statusValues" protobuf:"bytes,3,rep,name=statusValues,casttype=k8s.io/apimachinery/pkg/apis/meta/v1.ConditionStatus"`
}

// MatchConditionOperator relates a condition's status to statusValues.
// +enum
type MatchConditionOperator string

const (
	// MatchConditionOpIn matches a status among the values.
	MatchConditionOpIn MatchConditionOperator = "In"
	// MatchConditionOpNotIn matches a status not among the values.
	MatchConditionOpNotIn MatchConditionOperator = "NotIn"
)

// PolicyTaint is a taint a ClusterTaintPolicy adds or removes.
type PolicyTaint struct {
	// Key is the taint's key.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`

	// Effect is NoSchedule or NoExecute.
	Effect corev1.TaintEffect `json:"effect" protobuf:"bytes,2,opt,name=effect,casttype=k8s.io/api/core/v1.TaintEffect"`

	// Value is the taint's value.
	// +optional
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterTaintPolicyList is a list of ClusterTaintPolicies.
type ClusterTaintPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the ClusterTaintPolicies.
	Items []ClusterTaintPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
