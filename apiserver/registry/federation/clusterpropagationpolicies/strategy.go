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

// Package clusterpropagationpolicies stores ClusterPropagationPolicies, which
// say where templates of any namespace, and cluster-scoped ones, are
// propagated to.
package clusterpropagationpolicies

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ClusterPropagationPolicies.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ClusterPropagationPolicy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.ClusterPropagationPolicy { return &federation.ClusterPropagationPolicy{} },
	Parts:        func(p *federation.ClusterPropagationPolicy) (spec, status any) { return &p.Spec, nil },

	Validate:       validation.ValidateClusterPropagationPolicy,
	ValidateUpdate: validation.ValidateClusterPropagationPolicyUpdate,
})
