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

// Package v1alpha1 is version v1alpha1 of the search.fedhq.io API group: the
// ResourceRegistry kind, which says which kinds of which member clusters fed
// caches for searches across the fleet. Field names follow Karmada's
// search.karmada.io ResourceRegistry, so that a Karmada manifest works here
// after changing its group (fed has no backendStore: the cache is fed's own).
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/fedhq/fed/apis/search
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.fedhq.fed.apis.search.v1alpha1
// +groupName=search.fedhq.io
package v1alpha1
