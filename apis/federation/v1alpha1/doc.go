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

// Package v1alpha1 is version v1alpha1 of the federation.fedhq.io API group:
// the policies that say where templates go and how they change per cluster,
// the bindings and works that carry them there, the federated autoscalers, and
// the multi-cluster services and ingresses. Field names follow Karmada's
// policy, work, autoscaling and networking APIs so that a Karmada manifest
// works here after changing its group.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/fedhq/fed/apis/federation
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.fedhq.fed.apis.federation.v1alpha1
// +groupName=federation.fedhq.io
package v1alpha1
