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

// Package clustertaintpolicies stores ClusterTaintPolicies, which taint member clusters
// from their status conditions.
package clustertaintpolicies

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ClusterTaintPolicies. The author is recorded: fed
// writes a policy's taints only while its author may update Clusters.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ClusterTaintPolicy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.ClusterTaintPolicy { return &federation.ClusterTaintPolicy{} },
	Parts:        func(p *federation.ClusterTaintPolicy) (spec, status any) { return &p.Spec, nil },

	Validate:       validation.ValidateClusterTaintPolicy,
	ValidateUpdate: validation.ValidateClusterTaintPolicyUpdate,
	RecordAuthor:   true,
})
