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

// Package resourceregistries stores ResourceRegistries,
// resourceregistries.search.fedhq.io: which kinds of which member clusters
// fed caches, and their status subresource, which the cache writes.
package resourceregistries

import (
	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/apis/search/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ResourceRegistries.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*search.ResourceRegistry]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *search.ResourceRegistry { return &search.ResourceRegistry{} },
	Parts:        func(r *search.ResourceRegistry) (spec, status any) { return &r.Spec, &r.Status },

	Validate:             validation.ValidateResourceRegistry,
	ValidateUpdate:       validation.ValidateResourceRegistryUpdate,
	ValidateStatusUpdate: validation.ValidateResourceRegistryStatusUpdate,
})

// StatusStrategy writes the status of ResourceRegistries.
var StatusStrategy = Strategy.StatusStrategy()
