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
	"context"
	"strings"
	"testing"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestStrategy(t *testing.T) {
	registrytest.CheckStrategy(t, Strategy, registrytest.ResourceInterpreterCustomization())
}

func TestColumns(t *testing.T) {
	registrytest.CheckColumns(t, columns, registrytest.ResourceInterpreterCustomization())
}

// TestStrategyRunsScripts: a script whose top level never ends is refused when written, as
// kubectl fed interpret --check refuses it, though it defines its function.
func TestStrategyRunsScripts(t *testing.T) {
	c := registrytest.ResourceInterpreterCustomization().Valid()
	c.Spec.Customizations.ReplicaResource = &federation.LuaScript{LuaScript: "while true do end\nfunction GetReplicas(obj) return 1 end\n"}
	errs := Strategy.Validate(context.Background(), c)
	if len(errs) != 1 || errs[0].Field != "spec.customizations.replicaResource.luaScript" || !strings.Contains(errs[0].Error(), "ran out of time") {
		t.Errorf("errors %v, want one saying the replicaResource script ran out of time", errs)
	}
	if errs := Strategy.Validate(context.Background(), registrytest.ResourceInterpreterCustomization().Valid()); len(errs) != 0 {
		t.Errorf("a valid customization: %v", errs)
	}
}
