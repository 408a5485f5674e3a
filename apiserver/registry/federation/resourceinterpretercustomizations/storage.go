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

package resourceinterpretercustomizations

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.ResourceInterpreterCustomization]{
	{Name: "API-Version", Type: "string", Description: "The apiVersion of the kind the scripts are for.",
		Cell: func(c *federation.ResourceInterpreterCustomization) any { return c.Spec.Target.APIVersion }},
	{Name: "Kind", Type: "string", Description: "The kind the scripts are for.",
		Cell: func(c *federation.ResourceInterpreterCustomization) any { return c.Spec.Target.Kind }},
}

// NewStorage returns the storage of resourceinterpretercustomizations.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ResourceInterpreterCustomization]{
		Resource:   federation.Resource("resourceinterpretercustomizations"),
		Singular:   "resourceinterpretercustomization",
		NewList:    func() runtime.Object { return &federation.ResourceInterpreterCustomizationList{} },
		Strategy:   Strategy,
		ShortNames: []string{"ric"},
		Columns:    columns,
	})
}
