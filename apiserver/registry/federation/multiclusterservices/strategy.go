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

// Package multiclusterservices stores MultiClusterServices, which import a
// Service of the fleet from some member clusters into others, and their
// status subresource.
package multiclusterservices

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes MultiClusterServices.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.MultiClusterService]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.MultiClusterService { return &federation.MultiClusterService{} },
	Parts:        func(s *federation.MultiClusterService) (spec, status any) { return &s.Spec, &s.Status },

	Validate:             validation.ValidateMultiClusterService,
	ValidateUpdate:       validation.ValidateMultiClusterServiceUpdate,
	ValidateStatusUpdate: validation.ValidateMultiClusterServiceStatusUpdate,
})

// StatusStrategy writes the status of MultiClusterServices.
var StatusStrategy = Strategy.StatusStrategy()
