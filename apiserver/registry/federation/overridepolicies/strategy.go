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

// Package overridepolicies stores OverridePolicies, which change the
// templates of one namespace per member cluster.
package overridepolicies

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes OverridePolicies.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.OverridePolicy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.OverridePolicy { return &federation.OverridePolicy{} },
	Parts:        func(p *federation.OverridePolicy) (spec, status any) { return &p.Spec, nil },

	Validate:       validation.ValidateOverridePolicy,
	ValidateUpdate: validation.ValidateOverridePolicyUpdate,
	RecordAuthor:   true,
})
