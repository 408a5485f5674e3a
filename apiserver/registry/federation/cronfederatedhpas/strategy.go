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

// Package cronfederatedhpas stores CronFederatedHPAs, which scale a workload
// or a FederatedHPA on a schedule, and their status subresource.
package cronfederatedhpas

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes CronFederatedHPAs.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.CronFederatedHPA]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.CronFederatedHPA { return &federation.CronFederatedHPA{} },
	Parts:        func(h *federation.CronFederatedHPA) (spec, status any) { return &h.Spec, &h.Status },

	Validate:             validation.ValidateCronFederatedHPA,
	ValidateUpdate:       validation.ValidateCronFederatedHPAUpdate,
	ValidateStatusUpdate: validation.ValidateCronFederatedHPAStatusUpdate,
})

// StatusStrategy writes the status of CronFederatedHPAs.
var StatusStrategy = Strategy.StatusStrategy()
