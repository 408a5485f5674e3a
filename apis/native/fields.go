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

// Package native holds what fed relies on about Kubernetes' own kinds beyond their Go
// types: the field selectors kube-apiserver supports for each, which the fleet's templates
// and the search cache answer alike.
package native

import "k8s.io/apimachinery/pkg/runtime/schema"

// FieldLabels are the fields a kind's objects may be selected by (field selectors) besides
// metadata.name and metadata.namespace, each with its path in the object, as kube-apiserver
// supports them; nil for a kind with none.
func FieldLabels(gr schema.GroupResource) map[string][]string {
	return fieldLabels[gr]
}

var fieldLabels = map[schema.GroupResource]map[string][]string{
	{Resource: "pods"}: {
		"spec.nodeName": {"spec", "nodeName"}, "spec.restartPolicy": {"spec", "restartPolicy"},
		"spec.schedulerName": {"spec", "schedulerName"}, "spec.serviceAccountName": {"spec", "serviceAccountName"},
		"spec.hostNetwork": {"spec", "hostNetwork"}, "status.phase": {"status", "phase"},
		"status.podIP": {"status", "podIP"}, "status.nominatedNodeName": {"status", "nominatedNodeName"},
	},
	{Resource: "events"}: {
		"involvedObject.kind": {"involvedObject", "kind"}, "involvedObject.namespace": {"involvedObject", "namespace"},
		"involvedObject.name": {"involvedObject", "name"}, "involvedObject.uid": {"involvedObject", "uid"},
		"involvedObject.apiVersion": {"involvedObject", "apiVersion"}, "involvedObject.resourceVersion": {"involvedObject", "resourceVersion"},
		"involvedObject.fieldPath": {"involvedObject", "fieldPath"}, "reason": {"reason"},
		"reportingComponent": {"reportingComponent"}, "source": {"source", "component"}, "type": {"type"},
	},
	{Group: "events.k8s.io", Resource: "events"}: {
		"regarding.kind": {"regarding", "kind"}, "regarding.namespace": {"regarding", "namespace"},
		"regarding.name": {"regarding", "name"}, "regarding.uid": {"regarding", "uid"},
		"reason": {"reason"}, "reportingController": {"reportingController"}, "type": {"type"},
	},
	{Resource: "secrets"}:                    {"type": {"type"}},
	{Resource: "services"}:                   {"spec.clusterIP": {"spec", "clusterIP"}, "spec.type": {"spec", "type"}},
	{Resource: "namespaces"}:                 {"status.phase": {"status", "phase"}},
	{Resource: "nodes"}:                      {"spec.unschedulable": {"spec", "unschedulable"}},
	{Resource: "replicationcontrollers"}:     {"status.replicas": {"status", "replicas"}},
	{Group: "apps", Resource: "replicasets"}: {"status.replicas": {"status", "replicas"}},
	{Group: "batch", Resource: "jobs"}:       {"status.successful": {"status", "successful"}},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: {"spec.signerName": {"spec", "signerName"}},
}

// ReturnsDeletedObject says whether kube-apiserver answers a delete of a kind's object with
// the object (its registry's ReturnDeletedObject) rather than a Status.
func ReturnsDeletedObject(gr schema.GroupResource) bool { return returnsDeleted[gr] }

var returnsDeleted = map[schema.GroupResource]bool{
	{Resource: "namespaces"}:                                       true,
	{Resource: "pods"}:                                             true,
	{Resource: "podtemplates"}:                                     true,
	{Resource: "services"}:                                         true,
	{Resource: "serviceaccounts"}:                                  true,
	{Resource: "resourcequotas"}:                                   true,
	{Resource: "persistentvolumes"}:                                true,
	{Resource: "persistentvolumeclaims"}:                           true,
	{Group: "storage.k8s.io", Resource: "storageclasses"}:          true,
	{Group: "storage.k8s.io", Resource: "csidrivers"}:              true,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                true,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:       true,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: true,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:         true,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: true,
	{Group: "resource.k8s.io", Resource: "resourceslices"}:         true,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:          true,
}
