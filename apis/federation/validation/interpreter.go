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

package validation

import (
	"fmt"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
)

// MaxLuaScriptBytes is the largest script a ResourceInterpreterCustomization
// may hold for one operation.
const MaxLuaScriptBytes = 64 * 1024

// luaOperation is one operation of a ResourceInterpreterCustomization: the
// field of its script and the global functions the script may define, one
// of which it must.
type luaOperation struct {
	field     string
	script    func(*federation.CustomizationRules) *federation.LuaScript
	functions []string
	// signature is how the first function is called, for error messages.
	signature string
}

// luaOperations are the operations in the order of the fields of
// CustomizationRules.
var luaOperations = []luaOperation{
	{field: "retention", functions: []string{"Retain"}, signature: "Retain(desiredObj, observedObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.Retention }},
	{field: "replicaResource", functions: []string{"GetReplicas", "ReplicasCount"}, signature: "GetReplicas(desiredObj) or ReplicasCount(desiredObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.ReplicaResource }},
	{field: "replicaRevision", functions: []string{"ReviseReplica"}, signature: "ReviseReplica(desiredObj, desiredReplica)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.ReplicaRevision }},
	{field: "statusReflection", functions: []string{"ReflectStatus"}, signature: "ReflectStatus(observedObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.StatusReflection }},
	{field: "statusAggregation", functions: []string{"AggregateStatus"}, signature: "AggregateStatus(desiredObj, statusItems)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.StatusAggregation }},
	{field: "healthInterpretation", functions: []string{"InterpretHealth"}, signature: "InterpretHealth(observedObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.HealthInterpretation }},
	{field: "dependencyInterpretation", functions: []string{"GetDependencies"}, signature: "GetDependencies(desiredObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.DependencyInterpretation }},
	{field: "componentResource", functions: []string{"GetComponents"}, signature: "GetComponents(desiredObj)",
		script: func(r *federation.CustomizationRules) *federation.LuaScript { return r.ComponentResource }},
}

// ValidateResourceInterpreterCustomization checks a
// ResourceInterpreterCustomization on create.
func ValidateResourceInterpreterCustomization(c *federation.ResourceInterpreterCustomization) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&c.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceInterpreterCustomizationSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidateResourceInterpreterCustomizationUpdate checks a
// ResourceInterpreterCustomization on update. Every field of the spec may
// change, the target included.
func ValidateResourceInterpreterCustomizationUpdate(newC, oldC *federation.ResourceInterpreterCustomization) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newC.ObjectMeta, &oldC.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateResourceInterpreterCustomizationSpec(&newC.Spec, field.NewPath("spec"))...)
}

// ValidateResourceInterpreterCustomizationSpec checks the target and the
// scripts of a ResourceInterpreterCustomization: at least one script, each
// within MaxLuaScriptBytes, valid Lua, and defining its operation's function.
func ValidateResourceInterpreterCustomizationSpec(spec *federation.ResourceInterpreterCustomizationSpec, fldPath *field.Path) field.ErrorList {
	targetPath := fldPath.Child("target")
	allErrs := ValidateAPIVersion(spec.Target.APIVersion, targetPath.Child("apiVersion"))
	if spec.Target.Kind == "" {
		allErrs = append(allErrs, field.Required(targetPath.Child("kind"), ""))
	}
	rulesPath := fldPath.Child("customizations")
	scripts := 0
	for _, op := range luaOperations {
		script := op.script(&spec.Customizations)
		if script == nil {
			continue
		}
		scripts++
		allErrs = append(allErrs, validateLuaScript(script.LuaScript, op, rulesPath.Child(op.field, "luaScript"))...)
	}
	if scripts == 0 {
		allErrs = append(allErrs, field.Required(rulesPath, "at least one customization is required"))
	}
	return allErrs
}

// ValidateLuaScript checks the script of the customization field fieldName (retention,
// replicaResource, ...) as written: not empty, within MaxLuaScriptBytes, valid Lua, and
// defining its operation's function at top level. What running it says is the
// interpreter's (interpreter.Check), which runs this first.
func ValidateLuaScript(fieldName, src string, fldPath *field.Path) field.ErrorList {
	for _, op := range luaOperations {
		if op.field == fieldName {
			return validateLuaScript(src, op, fldPath)
		}
	}
	return field.ErrorList{field.NotSupported[string](fldPath, fieldName, nil)}
}

// validateLuaScript checks the script of one operation.
func validateLuaScript(src string, op luaOperation, fldPath *field.Path) field.ErrorList {
	switch {
	case strings.TrimSpace(src) == "":
		return field.ErrorList{field.Required(fldPath, "the script must define function "+op.signature)}
	case len(src) > MaxLuaScriptBytes:
		return field.ErrorList{field.TooLong(fldPath, "", MaxLuaScriptBytes)}
	}
	chunk, err := parse.Parse(strings.NewReader(src), op.field)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, "not valid Lua: "+strings.Join(strings.Fields(err.Error()), " "))}
	}
	defined := definedGlobalFunctions(chunk)
	for _, name := range op.functions {
		if defined[name] {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, fmt.Sprintf("the script must define function %s", op.signature))}
}

// definedGlobalFunctions returns the names of the global functions that the
// top-level statements of chunk define, as `function Name(...)` or
// `Name = function(...)`. Local functions, methods and functions defined
// inside blocks do not count.
func definedGlobalFunctions(chunk []ast.Stmt) map[string]bool {
	defined := map[string]bool{}
	for _, stmt := range chunk {
		switch s := stmt.(type) {
		case *ast.FuncDefStmt:
			if s.Name == nil || s.Name.Receiver != nil {
				continue
			}
			if ident, ok := s.Name.Func.(*ast.IdentExpr); ok {
				defined[ident.Value] = true
			}
		case *ast.AssignStmt:
			for i, lhs := range s.Lhs {
				ident, ok := lhs.(*ast.IdentExpr)
				if !ok || i >= len(s.Rhs) {
					continue
				}
				if _, ok := s.Rhs[i].(*ast.FunctionExpr); ok {
					defined[ident.Value] = true
				}
			}
		}
	}
	return defined
}
