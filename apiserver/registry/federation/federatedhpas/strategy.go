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

// Package federatedhpas stores FederatedHPAs, which scale a workload across
// member clusters, and their status subresource.
package federatedhpas

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes FederatedHPAs.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.FederatedHPA]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.FederatedHPA { return &federation.FederatedHPA{} },
	Parts:        func(h *federation.FederatedHPA) (spec, status any) { return &h.Spec, &h.Status },

	Validate:             validation.ValidateFederatedHPA,
	ValidateUpdate:       validation.ValidateFederatedHPAUpdate,
	ValidateStatusUpdate: validation.ValidateFederatedHPAStatusUpdate,
})

// StatusStrategy writes the status of FederatedHPAs.
var StatusStrategy = Strategy.StatusStrategy()
