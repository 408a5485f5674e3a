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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// The scripts of the seeds' deployment-interpreter example.
const (
	seedReplicasCount = `function ReplicasCount(desiredObj)
  if desiredObj.spec.replicas then
    return desiredObj.spec.replicas
  end
  return 1
end
`
	seedInterpretHealth = `function InterpretHealth(observedObj)
  if observedObj.status == nil then
    return false
  end
  return observedObj.status.readyReplicas == observedObj.status.replicas
end
`
)

func lua(src string) *federation.LuaScript { return &federation.LuaScript{LuaScript: src} }

// validInterpreterCustomization is the seeds' example.
func validInterpreterCustomization() *federation.ResourceInterpreterCustomization {
	return &federation.ResourceInterpreterCustomization{
		ObjectMeta: metav1.ObjectMeta{Name: "deployment-interpreter", ResourceVersion: "1"},
		Spec: federation.ResourceInterpreterCustomizationSpec{
			Target: federation.CustomizationTarget{APIVersion: "apps/v1", Kind: "Deployment"},
			Customizations: federation.CustomizationRules{
				ReplicaResource:      lua(seedReplicasCount),
				HealthInterpretation: lua(seedInterpretHealth),
			},
		},
	}
}

func TestValidateResourceInterpreterCustomization(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.ResourceInterpreterCustomization)
		want   []string
		// detail is a part of the first error's message.
		detail string
	}{
		{name: "seed example", mutate: func(*federation.ResourceInterpreterCustomization) {}},
		{name: "every operation", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Target = federation.CustomizationTarget{APIVersion: "v1", Kind: "ConfigMap"}
			c.Spec.Customizations = federation.CustomizationRules{
				Retention:       lua("function Retain(desiredObj, observedObj)\n  return desiredObj\nend"),
				ReplicaResource: lua("function GetReplicas(desiredObj)\n  return 1, {resourceRequest = {cpu = '100m'}}\nend"),
				ReplicaRevision: lua("function ReviseReplica(desiredObj, desiredReplica)\n  desiredObj.spec.replicas = desiredReplica\n  return desiredObj\nend"),
				// The assignment form defines a global function too.
				StatusReflection:         lua("ReflectStatus = function(observedObj) return observedObj.status end"),
				StatusAggregation:        lua("local function sum(a, b) return a + b end\nfunction AggregateStatus(desiredObj, statusItems)\n  return desiredObj\nend"),
				HealthInterpretation:     lua("x, InterpretHealth = 1, function(observedObj) return true end"),
				DependencyInterpretation: lua("-- none\nfunction GetDependencies(desiredObj)\n  return {}\nend"),
			}
		}},
		{name: "bad name", mutate: func(c *federation.ResourceInterpreterCustomization) { c.Name = "Deployment_Interpreter" },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "namespace", mutate: func(c *federation.ResourceInterpreterCustomization) { c.Namespace = "default" },
			want: []string{"FieldValueForbidden metadata.namespace"}},
		{name: "no target", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Target = federation.CustomizationTarget{}
		}, want: []string{"FieldValueRequired spec.target.apiVersion", "FieldValueRequired spec.target.kind"}},
		{name: "bad apiVersion", mutate: func(c *federation.ResourceInterpreterCustomization) { c.Spec.Target.APIVersion = "a/b/c" },
			want: []string{"FieldValueInvalid spec.target.apiVersion"}},
		{name: "no customizations", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations = federation.CustomizationRules{}
		}, want: []string{"FieldValueRequired spec.customizations"}, detail: "at least one customization"},
		{name: "empty script", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.Retention = lua(" \n\t")
		}, want: []string{"FieldValueRequired spec.customizations.retention.luaScript"}, detail: "function Retain(desiredObj, observedObj)"},
		{name: "not Lua", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.HealthInterpretation = lua("function InterpretHealth(observedObj)\n  return observedObj.status ==\nend")
		}, want: []string{"FieldValueInvalid spec.customizations.healthInterpretation.luaScript"}, detail: "not valid Lua: healthInterpretation line:3"},
		{name: "unterminated", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.ReplicaResource = lua("function ReplicasCount(desiredObj)\n  return 1\n")
		}, want: []string{"FieldValueInvalid spec.customizations.replicaResource.luaScript"}, detail: "not valid Lua"},
		{name: "wrong function", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.ReplicaResource = lua("function Replicas(desiredObj)\n  return 1\nend")
		}, want: []string{"FieldValueInvalid spec.customizations.replicaResource.luaScript"},
			detail: "the script must define function GetReplicas(desiredObj) or ReplicasCount(desiredObj)"},
		{name: "function of another operation", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.Retention = lua(seedInterpretHealth)
		}, want: []string{"FieldValueInvalid spec.customizations.retention.luaScript"}, detail: "function Retain(desiredObj, observedObj)"},
		{name: "local function", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.ReplicaRevision = lua("local function ReviseReplica(desiredObj, desiredReplica)\n  return desiredObj\nend")
		}, want: []string{"FieldValueInvalid spec.customizations.replicaRevision.luaScript"}, detail: "function ReviseReplica(desiredObj, desiredReplica)"},
		{name: "local assignment", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.StatusReflection = lua("local ReflectStatus = function(observedObj) return observedObj.status end")
		}, want: []string{"FieldValueInvalid spec.customizations.statusReflection.luaScript"}, detail: "function ReflectStatus(observedObj)"},
		{name: "method and field", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.StatusAggregation = lua("M = {}\nfunction M.AggregateStatus(d, s) return d end\nfunction M:AggregateStatus(d, s) return d end")
		}, want: []string{"FieldValueInvalid spec.customizations.statusAggregation.luaScript"}, detail: "function AggregateStatus(desiredObj, statusItems)"},
		{name: "nested definition", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.DependencyInterpretation = lua("if true then\n  function GetDependencies(desiredObj) return {} end\nend")
		}, want: []string{"FieldValueInvalid spec.customizations.dependencyInterpretation.luaScript"}, detail: "function GetDependencies(desiredObj)"},
		{name: "not a function", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.HealthInterpretation = lua("InterpretHealth = true")
		}, want: []string{"FieldValueInvalid spec.customizations.healthInterpretation.luaScript"}, detail: "function InterpretHealth(observedObj)"},
		{name: "too long", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.HealthInterpretation = lua(seedInterpretHealth + strings.Repeat("-- padding\n", MaxLuaScriptBytes/11+1))
		}, want: []string{"FieldValueTooLong spec.customizations.healthInterpretation.luaScript"}, detail: "65536 bytes"},
		{name: "at the limit", mutate: func(c *federation.ResourceInterpreterCustomization) {
			src := seedInterpretHealth + "--"
			c.Spec.Customizations.HealthInterpretation = lua(src + strings.Repeat("x", MaxLuaScriptBytes-len(src)))
		}},
		{name: "several errors", mutate: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Target.Kind = ""
			c.Spec.Customizations.Retention = lua("")
			c.Spec.Customizations.ReplicaResource = lua("return")
		}, want: []string{
			"FieldValueRequired spec.target.kind",
			"FieldValueRequired spec.customizations.retention.luaScript",
			"FieldValueInvalid spec.customizations.replicaResource.luaScript",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := validInterpreterCustomization()
			tc.mutate(c)
			errs := ValidateResourceInterpreterCustomization(c)
			expectErrors(t, errs, tc.want)
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("error %q does not contain %q", errs[0].Error(), tc.detail)
			}
			// An update checks the spec the same way; the name and namespace
			// were checked on create and cannot change.
			old := validInterpreterCustomization()
			old.Name, old.Namespace = c.Name, c.Namespace
			var wantUpdate []string
			for _, w := range tc.want {
				if !strings.Contains(w, " metadata.") {
					wantUpdate = append(wantUpdate, w)
				}
			}
			expectErrors(t, ValidateResourceInterpreterCustomizationUpdate(c, old), wantUpdate)
		})
	}
}

func TestValidateResourceInterpreterCustomizationUpdate(t *testing.T) {
	old := validInterpreterCustomization()
	c := validInterpreterCustomization()
	// The target and the scripts may change.
	c.Spec.Target = federation.CustomizationTarget{APIVersion: "apps/v1", Kind: "StatefulSet"}
	c.Spec.Customizations.ReplicaResource = nil
	c.Spec.Customizations.Retention = lua("function Retain(desiredObj, observedObj) return desiredObj end")
	expectErrors(t, ValidateResourceInterpreterCustomizationUpdate(c, old), nil)

	c.Name = "other"
	expectErrors(t, ValidateResourceInterpreterCustomizationUpdate(c, old), []string{"FieldValueInvalid metadata.name"})
}
