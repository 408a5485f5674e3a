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

// Package portable makes an object read from one server fit to apply to another: what the
// server wrote on it is taken away (kubectl fed promote, from a member to the fleet; kubectl
// fed migrate, from Karmada to the fleet).
package portable

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// serverMetadata are the fields of metadata a server writes: the object's identity and
// versions there, who manages its fields, its owners and finalizers there, its deletion.
var serverMetadata = []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
	"ownerReferences", "finalizers", "deletionTimestamp", "deletionGracePeriodSeconds"}

// Strip removes from u, in place, the metadata a server wrote and the status.
func Strip(u *unstructured.Unstructured) {
	for _, f := range serverMetadata {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(u.Object, "status")
}
