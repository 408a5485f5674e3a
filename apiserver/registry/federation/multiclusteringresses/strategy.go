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

// Package multiclusteringresses stores MultiClusterIngresses, which write an
// Ingress into the clusters that import the services its backends name, and
// their status subresource.
package multiclusteringresses

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes MultiClusterIngresses.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.MultiClusterIngress]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	Namespaced:   true,
	New:          func() *federation.MultiClusterIngress { return &federation.MultiClusterIngress{} },
	Parts:        func(i *federation.MultiClusterIngress) (spec, status any) { return &i.Spec, &i.Status },

	Validate:             validation.ValidateMultiClusterIngress,
	ValidateUpdate:       validation.ValidateMultiClusterIngressUpdate,
	ValidateStatusUpdate: validation.ValidateMultiClusterIngressStatusUpdate,
})

// StatusStrategy writes the status of MultiClusterIngresses.
var StatusStrategy = Strategy.StatusStrategy()
