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

// Package interpreter reads member objects and resource templates for the propagation
// pipeline: how healthy a member's copy is, which part of its status to record, what the
// template's fleet-wide status is, and which objects a workload template needs. Its
// functions are pure; they never fail, and answer Unknown, nil or false for objects they
// cannot read.
package interpreter

import "k8s.io/apimachinery/pkg/runtime/schema"

// Kinds the interpreter knows, by group and kind: the version does not matter, since
// every served version of these kinds has the same status fields.
var (
	podKind         = schema.GroupKind{Kind: "Pod"}
	serviceKind     = schema.GroupKind{Kind: "Service"}
	pvcKind         = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	namespaceKind   = schema.GroupKind{Kind: "Namespace"}
	secretKind      = schema.GroupKind{Kind: "Secret"}
	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	daemonSetKind   = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	replicaSetKind  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	jobKind         = schema.GroupKind{Group: "batch", Kind: "Job"}
	cronJobKind     = schema.GroupKind{Group: "batch", Kind: "CronJob"}
	pdbKind         = schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	ingressKind     = schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}
	crdKind         = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
)
