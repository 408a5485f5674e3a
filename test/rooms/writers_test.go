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

package rooms

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// bindingFields are the fields of a binding's spec of docs/design.md's "Who writes what"
// and the controller packages that may assign them. spec.clusters is the scheduler's alone;
// the others ask it through spec.replicaMoves and spec.gracefulEvictionTasks, whose entries
// their producers add and one consumer removes; spec.rescheduleTriggeredAt is a
// WorkloadRebalancer's request. The detector writes the spec whole, and keeps these as
// stored.
var bindingFields = map[string][]string{
	"Clusters":              {"scheduler"},
	"ReplicaMoves":          {"descheduler", "rebalancer", "scheduler"},
	"GracefulEvictionTasks": {"scheduler", "applicationfailover", "gracefuleviction"},
	"RescheduleTriggeredAt": {"workloadrebalancer"},
}

// writes are the writes of a kind's spec or status through its client (fed's generated
// clientset, or the shared view of bindings) and the controller packages that may make
// them: the receiver's type, then the method.
var writes = map[string]map[string][]string{
	"ClusterInterface": {"UpdateStatus": {"cluster", "credentials", "remedy"}, "Update": {"cluster", "clustertaint"}},
	"WorkInterface":    {"UpdateStatus": {"workstatus"}},
	"Binding":          {"UpdateStatus": {"scheduler", "bindingstatus"}},
}

// TestOneWriterPerField type-checks the controllers and fails on an assignment of the
// binding fields above, or a write above, by a package not listed.
func TestOneWriterPerField(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Dir: "../..",
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax}, "./controllers/...")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
		name := strings.TrimPrefix(p.PkgPath, module+"controllers/")
		if strings.HasPrefix(name, "internal/") {
			continue // the shared views write for the controllers that call them
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for i, lhs := range n.Lhs {
						field := bindingSpecField(p.TypesInfo, lhs)
						if field == "" {
							continue
						}
						seen[field] = true
						if name == "detector" && i < len(n.Rhs) && bindingSpecField(p.TypesInfo, n.Rhs[i]) == field {
							continue // the stored value kept
						}
						if allowed := bindingFields[field]; !slices.Contains(allowed, name) {
							t.Errorf("%s: controllers/%s assigns a binding's spec.%s, which is %s's (docs/design.md, Who writes what)",
								p.Fset.Position(n.Pos()), name, field, strings.Join(allowed, " and "))
						}
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					recv := receiverName(p.TypesInfo.TypeOf(sel.X))
					if allowed, ok := writes[recv][sel.Sel.Name]; ok {
						seen[recv+"."+sel.Sel.Name] = true
						if !slices.Contains(allowed, name) {
							t.Errorf("%s: controllers/%s calls %s.%s, which is %s's (docs/design.md, Who writes what)",
								p.Fset.Position(n.Pos()), name, recv, sel.Sel.Name, strings.Join(allowed, " and "))
						}
					}
				}
				return true
			})
		}
	}
	for field := range bindingFields {
		if !seen[field] {
			t.Errorf("no controller assigns a binding's spec.%s: the rule is out of date", field)
		}
	}
	for recv, methods := range writes {
		for m := range methods {
			if !seen[recv+"."+m] {
				t.Errorf("no controller calls %s.%s: the rule is out of date", recv, m)
			}
		}
	}
}

// bindingSpecField is the name of the field of a ResourceBindingSpec that e selects, if it
// does.
func bindingSpecField(info *types.Info, e ast.Expr) string {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal || receiverName(s.Recv()) != "ResourceBindingSpec" {
		return ""
	}
	if _, ok := bindingFields[sel.Sel.Name]; !ok {
		return ""
	}
	return sel.Sel.Name
}

// receiverName is the name of a named type, through one pointer.
func receiverName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
