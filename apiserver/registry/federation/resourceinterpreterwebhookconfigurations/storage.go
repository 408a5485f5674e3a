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

// Package resourceinterpreterwebhookconfigurations stores
// ResourceInterpreterWebhookConfigurations, the HTTPS webhooks that answer the
// interpreter's operations for kinds whose logic lives in their own operator.
package resourceinterpreterwebhookconfigurations

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes ResourceInterpreterWebhookConfigurations.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ResourceInterpreterWebhookConfiguration]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New: func() *federation.ResourceInterpreterWebhookConfiguration {
		return &federation.ResourceInterpreterWebhookConfiguration{}
	},
	Parts: func(c *federation.ResourceInterpreterWebhookConfiguration) (spec, status any) {
		return &c.Webhooks, nil
	},

	Validate:       validation.ValidateResourceInterpreterWebhookConfiguration,
	ValidateUpdate: validation.ValidateResourceInterpreterWebhookConfigurationUpdate,
})

var columns = []registrykit.Column[*federation.ResourceInterpreterWebhookConfiguration]{
	{Name: "Webhooks", Type: "integer", Description: "How many webhooks the configuration names.",
		Cell: func(c *federation.ResourceInterpreterWebhookConfiguration) any { return int64(len(c.Webhooks)) }},
}

// NewStorage returns the storage of resourceinterpreterwebhookconfigurations.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ResourceInterpreterWebhookConfiguration]{
		Resource: federation.Resource("resourceinterpreterwebhookconfigurations"),
		Singular: "resourceinterpreterwebhookconfiguration",
		NewList:  func() runtime.Object { return &federation.ResourceInterpreterWebhookConfigurationList{} },
		Strategy: Strategy,
		Columns:  columns,
	})
}
