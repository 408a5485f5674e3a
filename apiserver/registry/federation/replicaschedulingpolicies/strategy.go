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

// Package replicaschedulingpolicies stores ReplicaSchedulingPolicies, which
// say when fed rebalances, by load, the replicas of dynamically divided
// workloads, and their status subresource.
package replicaschedulingpolicies

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ReplicaSchedulingPolicies.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ReplicaSchedulingPolicy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.ReplicaSchedulingPolicy { return &federation.ReplicaSchedulingPolicy{} },
	Parts:        func(p *federation.ReplicaSchedulingPolicy) (spec, status any) { return &p.Spec, &p.Status },

	Validate:             validation.ValidateReplicaSchedulingPolicy,
	ValidateUpdate:       validation.ValidateReplicaSchedulingPolicyUpdate,
	ValidateStatusUpdate: validation.ValidateReplicaSchedulingPolicyStatusUpdate,
})

// StatusStrategy writes the status of ReplicaSchedulingPolicies.
var StatusStrategy = Strategy.StatusStrategy()
