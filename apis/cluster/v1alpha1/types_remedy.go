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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Remedy names actions for the member clusters whose conditions match: fed
// writes them into each such Cluster's status.remedyActions (the union of
// the actions of every Remedy that matches it), and takes them away once no
// Remedy matches. A cluster under TrafficControl has its endpoints withheld
// from the other clusters' imports of a multi-cluster service, and gets no
// Ingress of a MultiClusterIngress, while another cluster is not under it.
// fed writes a Remedy's actions only while its author may update the status
// of Clusters.
type Remedy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec says which clusters, on which conditions, and the actions.
	Spec RemedySpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// RemedySpec says which clusters, on which conditions, and the actions.
type RemedySpec struct {
	// ClusterAffinity names the clusters the remedy looks at; without it,
	// every cluster.
	// +optional
	ClusterAffinity *RemedyClusterAffinity `json:"clusterAffinity,omitempty" protobuf:"bytes,1,opt,name=clusterAffinity"`

	// DecisionMatches: the actions are taken on a cluster where any one of
	// them matches. Empty: on every cluster the remedy looks at, at once.
	// +optional
	// +listType=atomic
	DecisionMatches []DecisionMatch `json:"decisionMatches,omitempty" protobuf:"bytes,2,rep,name=decisionMatches"`

	// Actions are the actions taken: TrafficControl. Empty: none.
	// +optional
	// +listType=atomic
	Actions []RemedyAction `json:"actions,omitempty" protobuf:"bytes,3,rep,name=actions,casttype=RemedyAction"`
}

// RemedyClusterAffinity names clusters.
type RemedyClusterAffinity struct {
	// ClusterNames are the clusters' names.
	// +optional
	// +listType=atomic
	ClusterNames []string `json:"clusterNames,omitempty" protobuf:"bytes,1,rep,name=clusterNames"`
}

// DecisionMatch is one condition under which the actions are taken.
type DecisionMatch struct {
	// ClusterConditionMatch matches a condition of the Cluster's status.
	ClusterConditionMatch *ClusterConditionRequirement `json:"clusterConditionMatch,omitempty" protobuf:"bytes,1,opt,name=clusterConditionMatch"`
}

// ClusterConditionRequirement matches a condition of a Cluster's status by
// its status.
type ClusterConditionRequirement struct {
	// ConditionType is the type of the Cluster's condition: Ready, or one
	// anybody writes into the Cluster's status (Karmada's agent writes
	// ServiceDomainNameResolutionReady; fed writes no such condition itself).
	ConditionType string `json:"conditionType" protobuf:"bytes,1,opt,name=conditionType"`

	// Operator is Equal or NotEqual.
	Operator ClusterConditionOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=ClusterConditionOperator"`

	// ConditionStatus is True, False or Unknown.
	ConditionStatus string `json:"conditionStatus" protobuf:"bytes,3,opt,name=conditionStatus"`
}

// ClusterConditionOperator relates a condition's status to conditionStatus.
// +enum
type ClusterConditionOperator string

const (
	// ClusterConditionEqual matches a condition of that status.
	ClusterConditionEqual ClusterConditionOperator = "Equal"
	// ClusterConditionNotEqual matches a condition of another status. A cluster
	// without the condition matches neither operator.
	ClusterConditionNotEqual ClusterConditionOperator = "NotEqual"
)

// RemedyAction is an action a Remedy calls for.
// +enum
type RemedyAction string

const (
	// TrafficControl takes traffic away from the cluster: its endpoints are
	// withheld from the other clusters' imports of a service, and it gets no
	// Ingress of a MultiClusterIngress, while a cluster not under it is left.
	TrafficControl RemedyAction = "TrafficControl"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RemedyList is a list of Remedies.
type RemedyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the Remedies.
	Items []Remedy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
