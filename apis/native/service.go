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

package native

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// StripClusterIPs removes a Service's spec.clusterIP and spec.clusterIPs, unless they say
// None (a headless Service): a cluster IP belongs to one cluster, and the host (validating
// a template) and each member allocate their own.
func StripClusterIPs(svc *unstructured.Unstructured) {
	if ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP"); ip == corev1.ClusterIPNone {
		return
	}
	unstructured.RemoveNestedField(svc.Object, "spec", "clusterIP")
	unstructured.RemoveNestedField(svc.Object, "spec", "clusterIPs")
}
