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

// Package federatedresourcequotas stores FederatedResourceQuotas, the quotas
// of namespaces across the fleet and the ResourceQuotas they make in members,
// and their status subresource.
package federatedresourcequotas

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes FederatedResourceQuotas.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.FederatedResourceQuota]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.FederatedResourceQuota { return &federation.FederatedResourceQuota{} },
	Parts:        func(q *federation.FederatedResourceQuota) (spec, status any) { return &q.Spec, &q.Status },
	// fed writes a static assignment's ResourceQuota into its member only when whoever
	// wrote the quota may create it in the host (controllers/quota).
	RecordAuthor: true,

	Validate:             validation.ValidateFederatedResourceQuota,
	ValidateUpdate:       validation.ValidateFederatedResourceQuotaUpdate,
	ValidateStatusUpdate: validation.ValidateFederatedResourceQuotaStatusUpdate,
})

// StatusStrategy writes the status of FederatedResourceQuotas.
var StatusStrategy = Strategy.StatusStrategy()
