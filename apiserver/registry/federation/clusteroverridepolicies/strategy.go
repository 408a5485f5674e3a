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

// Package clusteroverridepolicies stores ClusterOverridePolicies, which
// change templates of any namespace, and cluster-scoped ones, per member
// cluster.
package clusteroverridepolicies

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ClusterOverridePolicies.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ClusterOverridePolicy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.ClusterOverridePolicy { return &federation.ClusterOverridePolicy{} },
	Parts:        func(p *federation.ClusterOverridePolicy) (spec, status any) { return &p.Spec, nil },

	Validate:       validation.ValidateClusterOverridePolicy,
	ValidateUpdate: validation.ValidateClusterOverridePolicyUpdate,
	RecordAuthor:   true,
})
