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

const (
	// FleetResource and FleetName name the fleet API in the host's authorization. For the
	// host, a request to FleetPath + "/apis/apps/v1/..." is a request on the proxy
	// subresource of fleets/default in this group, like clusters/NAME/proxy: one RBAC rule on
	// fleets/proxy lets a user in, the host treats watches through it as long-running, and
	// fed-apiserver then authorizes the inner request against the host's RBAC for its own
	// verb, resource and namespace.
	FleetResource = "fleets"
	FleetName     = "default"

	// FleetPath is where fed-apiserver serves the fleet API: a whole Kubernetes API (any
	// native kind, CRDs and their objects, fed's own groups) whose objects are templates
	// stored by fed and never created in the host. A kubeconfig whose server is the host's
	// URL + FleetPath makes kubectl, Helm and GitOps tools work against the fleet.
	FleetPath = "/apis/" + GroupName + "/v1alpha1/" + FleetResource + "/" + FleetName + "/proxy"

	// LabelManaged, with the value "true", marks a member object that fed created or
	// adopted from a template; `kubectl fed get` shows ADOPTION Y for it. Propagation sets it.
	LabelManaged = "federation.fedhq.io/managed"
)
