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

// Package clusterresourcebindings stores ClusterResourceBindings, which bind
// one cluster-scoped template to member clusters, and their status
// subresource.
package clusterresourcebindings

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ClusterResourceBindings.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ClusterResourceBinding]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.ClusterResourceBinding { return &federation.ClusterResourceBinding{} },
	Parts:        func(b *federation.ClusterResourceBinding) (spec, status any) { return &b.Spec, &b.Status },

	Validate:             validation.ValidateClusterResourceBinding,
	ValidateUpdate:       validation.ValidateClusterResourceBindingUpdate,
	ValidateStatusUpdate: validation.ValidateClusterResourceBindingStatusUpdate,
})

// StatusStrategy writes the status of ClusterResourceBindings.
var StatusStrategy = Strategy.StatusStrategy()
