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
// Package search holds the internal (hub) types of the search.fedhq.io API
// group: which kinds of which member clusters fed caches, and how far each
// cache is. Every served version converts to and from these types; the
// server's storage, validation and the cache work on them. They mirror
// v1alpha1 field for field, so every conversion is generated; change both
// together. The clusters to cache are chosen with federation.fedhq.io's
// ClusterAffinity, the same selection a PropagationPolicy's placement makes.
//
// +k8s:deepcopy-gen=package
// +groupName=search.fedhq.io
package search
