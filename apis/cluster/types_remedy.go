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

package cluster

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Remedy names actions for the member clusters whose conditions match: fed
// writes them into each such Cluster's status.remedyActions, and the
// multi-cluster services and ingresses act on them.
type Remedy struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec RemedySpec
}

// RemedySpec says which clusters, on which conditions, and the actions.
type RemedySpec struct {
	// ClusterAffinity names the clusters the remedy looks at; without it,
	// every cluster.
	ClusterAffinity *RemedyClusterAffinity

	// DecisionMatches: the actions are taken on a cluster where any one of
	// them matches. Empty: on every cluster the remedy looks at.
	DecisionMatches []DecisionMatch

	// Actions are the actions taken. Empty: none.
	Actions []RemedyAction
}

// RemedyClusterAffinity names clusters.
type RemedyClusterAffinity struct {
	// ClusterNames are the clusters' names.
	ClusterNames []string
}

// DecisionMatch is one condition under which the actions are taken.
type DecisionMatch struct {
	// ClusterConditionMatch matches a condition of the Cluster's status.
	ClusterConditionMatch *ClusterConditionRequirement
}

// ClusterConditionRequirement matches a condition of a Cluster's status by
// its status.
type ClusterConditionRequirement struct {
	// ConditionType is the type of the Cluster's condition.
	ConditionType string

	// Operator is Equal or NotEqual.
	Operator ClusterConditionOperator

	// ConditionStatus is True, False or Unknown.
	ConditionStatus string
}

// ClusterConditionOperator relates a condition's status to conditionStatus.
type ClusterConditionOperator string

const (
	// ClusterConditionEqual matches a condition of that status.
	ClusterConditionEqual ClusterConditionOperator = "Equal"
	// ClusterConditionNotEqual matches a condition of another status. A cluster
	// without the condition matches neither operator.
	ClusterConditionNotEqual ClusterConditionOperator = "NotEqual"
)

// RemedyAction is an action a Remedy calls for.
type RemedyAction string

const (
	// TrafficControl takes traffic away from the cluster.
	TrafficControl RemedyAction = "TrafficControl"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RemedyList is a list of Remedies.
type RemedyList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Remedy
}
