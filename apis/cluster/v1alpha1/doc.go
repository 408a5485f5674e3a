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

// Package v1alpha1 is version v1alpha1 of the cluster.fedhq.io API group: the
// Cluster kind, one object per member cluster that fed manages.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/fedhq/fed/apis/cluster
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.fedhq.fed.apis.cluster.v1alpha1
// +groupName=cluster.fedhq.io
package v1alpha1
