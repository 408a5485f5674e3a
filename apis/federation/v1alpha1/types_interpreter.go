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

// ResourceInterpreterCustomization teaches fed a kind with Lua scripts: how
// many replicas an object has and what each needs, how to set its replicas,
// which fields a member owns, which part of its status to record, how to sum
// its members' statuses, whether it is healthy, and what it depends on.
// Cluster-scoped.
type ResourceInterpreterCustomization struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the kind the scripts are for and the scripts.
	Spec ResourceInterpreterCustomizationSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ResourceInterpreterCustomizationSpec is the content of a
// ResourceInterpreterCustomization.
type ResourceInterpreterCustomizationSpec struct {
	// Target is the kind the scripts are for.
	Target CustomizationTarget `json:"target" protobuf:"bytes,1,opt,name=target"`

	// Customizations are the scripts, one per operation. An operation without
	// a script keeps fed's built-in behaviour for the kind.
	Customizations CustomizationRules `json:"customizations" protobuf:"bytes,2,opt,name=customizations"`
}

// CustomizationTarget is the kind a ResourceInterpreterCustomization is for.
type CustomizationTarget struct {
	// APIVersion is the group and version of the kind, for example "apps/v1",
	// or "v1" for the core group.
	APIVersion string `json:"apiVersion" protobuf:"bytes,1,opt,name=apiVersion"`

	// Kind is the kind, for example "Deployment".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
}

// CustomizationRules are the scripts of a ResourceInterpreterCustomization,
// one per operation, each optional. Objects reach a script as Lua tables
// shaped like their JSON: desiredObj is the template in the fleet,
// observedObj the object as a member cluster has it.
type CustomizationRules struct {
	// Retention decides which fields of the object in a member cluster are
	// kept when fed applies the template there, for fields that the member's
	// own controllers or users own. The script must define
	// function Retain(desiredObj, observedObj), which returns the object to
	// apply: desiredObj with the fields to keep copied from observedObj.
	// +optional
	Retention *LuaScript `json:"retention,omitempty" protobuf:"bytes,1,opt,name=retention"`

	// ReplicaResource tells how many replicas the object has and what each
	// needs, which the scheduler uses to divide replicas among clusters. The
	// script must define function GetReplicas(desiredObj), which returns the
	// replica count and the requirements of one replica: a table with
	// resourceRequest (the compute resources one replica requests, for
	// example {cpu = "100m", memory = "128Mi"}) and nodeClaim (nodeSelector,
	// tolerations and hardNodeAffinity of its pods), or nil. A script may
	// define function ReplicasCount(desiredObj) instead, which returns only
	// the replica count.
	// +optional
	ReplicaResource *LuaScript `json:"replicaResource,omitempty" protobuf:"bytes,2,opt,name=replicaResource"`

	// ReplicaRevision sets the replicas of the object sent to one member
	// cluster to the number the scheduler gave that cluster. The script must
	// define function ReviseReplica(desiredObj, desiredReplica), which
	// returns desiredObj with its replicas set to desiredReplica.
	// +optional
	ReplicaRevision *LuaScript `json:"replicaRevision,omitempty" protobuf:"bytes,3,opt,name=replicaRevision"`

	// StatusReflection picks the part of the object's status in a member
	// cluster that fed records in the binding. The script must define
	// function ReflectStatus(observedObj), which returns the status to record
	// (a table), or nil to record none.
	// +optional
	StatusReflection *LuaScript `json:"statusReflection,omitempty" protobuf:"bytes,4,opt,name=statusReflection"`

	// StatusAggregation sums the statuses recorded from the member clusters
	// into the status of the template. The script must define
	// function AggregateStatus(desiredObj, statusItems), which returns
	// desiredObj with its status set. statusItems is a list with one table
	// per cluster: clusterName, status (what StatusReflection recorded),
	// applied and health.
	// +optional
	StatusAggregation *LuaScript `json:"statusAggregation,omitempty" protobuf:"bytes,5,opt,name=statusAggregation"`

	// HealthInterpretation tells whether the object in a member cluster is
	// healthy. The script must define function InterpretHealth(observedObj),
	// which returns true when it is healthy and false when it is not.
	// +optional
	HealthInterpretation *LuaScript `json:"healthInterpretation,omitempty" protobuf:"bytes,6,opt,name=healthInterpretation"`

	// DependencyInterpretation names the other objects the object needs in a
	// member cluster, such as the ConfigMaps and Secrets its pods mount, so
	// that fed propagates them along with it. The script must define
	// function GetDependencies(desiredObj), which returns a list of tables
	// with apiVersion, kind, namespace and name; an empty namespace means the
	// object's own namespace.
	// +optional
	DependencyInterpretation *LuaScript `json:"dependencyInterpretation,omitempty" protobuf:"bytes,7,opt,name=dependencyInterpretation"`

	// ComponentResource tells the components of a workload that runs several
	// pod templates, which the scheduler places together. The script must
	// define function GetComponents(desiredObj), which returns a list of
	// tables, one per component: name, replicas, and replicaRequirements
	// (resourceRequest and nodeClaim, as GetReplicas returns them), or nil.
	// With it, replicaResource is not used.
	// +optional
	ComponentResource *LuaScript `json:"componentResource,omitempty" protobuf:"bytes,8,opt,name=componentResource"`
}

// LuaScript is the script of one operation.
type LuaScript struct {
	// LuaScript is Lua 5.1 source that defines, as a global function, the
	// function of the operation (see each field of customizations). At most
	// 64 KiB. It runs sandboxed: without the io, os, package and debug
	// libraries, require, or loading code from files, and with a bound on the
	// time and memory of each call.
	LuaScript string `json:"luaScript" protobuf:"bytes,1,opt,name=luaScript"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceInterpreterCustomizationList is a list of
// ResourceInterpreterCustomizations.
type ResourceInterpreterCustomizationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the customizations.
	Items []ResourceInterpreterCustomization `json:"items" protobuf:"bytes,2,rep,name=items"`
}
