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

// Package resourceinterpretercustomizations stores
// ResourceInterpreterCustomizations, which teach fed a kind with Lua scripts.
package resourceinterpretercustomizations

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
	"github.com/fedhq/fed/interpreter"
)

// Strategy creates, updates and deletes ResourceInterpreterCustomizations.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.ResourceInterpreterCustomization]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New: func() *federation.ResourceInterpreterCustomization {
		return &federation.ResourceInterpreterCustomization{}
	},
	Parts: func(c *federation.ResourceInterpreterCustomization) (spec, status any) { return &c.Spec, nil },

	Validate: func(c *federation.ResourceInterpreterCustomization) field.ErrorList {
		return withScriptsRun(c, validation.ValidateResourceInterpreterCustomization(c))
	},
	ValidateUpdate: func(c, old *federation.ResourceInterpreterCustomization) field.ErrorList {
		return withScriptsRun(c, validation.ValidateResourceInterpreterCustomizationUpdate(c, old))
	},
})

// withScriptsRun adds to what validation found what running the scripts finds: the check
// of kubectl fed interpret --check (interpreter.Check), so that a script whose top level
// never ends, or runs out of memory, is refused when written, not at each call.
func withScriptsRun(c *federation.ResourceInterpreterCustomization, errs field.ErrorList) field.ErrorList {
	if len(errs) > 0 {
		return errs
	}
	external := &v1alpha1.ResourceInterpreterCustomization{}
	if err := v1alpha1.Convert_federation_ResourceInterpreterCustomization_To_v1alpha1_ResourceInterpreterCustomization(c, external, nil); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	results := interpreter.Check(external)
	for _, op := range interpreter.Operations {
		if err := results[op]; err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "customizations", string(op), "luaScript"), field.OmitValueType{}, err.Error()))
		}
	}
	return errs
}
