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

package registrytest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// ResourceInterpreterCustomization is the test case of
// resourceinterpretercustomizations: the seeds' deployment interpreter.
func ResourceInterpreterCustomization() Case[*federation.ResourceInterpreterCustomization] {
	return Case[*federation.ResourceInterpreterCustomization]{
		Valid: func() *federation.ResourceInterpreterCustomization {
			return &federation.ResourceInterpreterCustomization{ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec: federation.ResourceInterpreterCustomizationSpec{
					Target: federation.CustomizationTarget{APIVersion: "apps/v1", Kind: "Deployment"},
					Customizations: federation.CustomizationRules{
						ReplicaResource: &federation.LuaScript{LuaScript: "function ReplicasCount(desiredObj)\n" +
							"  if desiredObj.spec.replicas then\n    return desiredObj.spec.replicas\n  end\n  return 1\nend\n"},
						HealthInterpretation: &federation.LuaScript{LuaScript: "function InterpretHealth(observedObj)\n" +
							"  if observedObj.status == nil then\n    return false\n  end\n" +
							"  return observedObj.status.readyReplicas == observedObj.status.replicas\nend\n"},
					},
				}}
		},
		ChangeSpec: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Target.Kind = "StatefulSet"
			c.Spec.Customizations.Retention = &federation.LuaScript{
				LuaScript: "function Retain(desiredObj, observedObj)\n  return desiredObj\nend\n"}
		},
		BreakSpec: func(c *federation.ResourceInterpreterCustomization) {
			c.Spec.Customizations.ReplicaResource.LuaScript = "function ReplicasCount(desiredObj)\n  return\n"
		},
		BrokenSpecField: "spec.customizations.replicaResource.luaScript",
		Columns:         []string{"Name", "API-Version", "Kind", "Age"},
		Row:             map[string]any{"Name": Name, "API-Version": "apps/v1", "Kind": "StatefulSet"},
	}
}
