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

package store

// commonStrings are label and field names and values that the labels and fields of a
// stored value name by their index instead of spelling them out. Append only (an index
// must keep its string), and bump valueFormat when changing it.
var commonStrings = []string{
	"", "metadata.name", "metadata.namespace",
	// Field selectors of the kinds that have them (apis/native).
	"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
	"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
	"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
	"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
	"reason", "reportingComponent", "source", "type",
	"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "reportingController",
	"spec.unschedulable", "status.replicas", "status.successful", "spec.signerName",
	// Their common values.
	"Always", "OnFailure", "Never", "default-scheduler", "default", "true", "false",
	"Running", "Pending", "Succeeded", "Failed", "Unknown", "Active", "Terminating",
	"Normal", "Warning", "Pod", "v1", "kubelet", "Opaque",
	// Common label names.
	"app", "pod-template-hash", "controller-revision-hash", "pod-template-generation",
	"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component",
	"app.kubernetes.io/part-of", "app.kubernetes.io/managed-by", "app.kubernetes.io/version",
	"helm.sh/chart", "k8s-app", "tier", "component", "release", "version", "name",
	"kubernetes.io/metadata.name", "statefulset.kubernetes.io/pod-name",
	"batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name",
}

var commonIndex = func() map[string]int {
	m := make(map[string]int, len(commonStrings))
	for i, s := range commonStrings {
		m[s] = i
	}
	return m
}()
