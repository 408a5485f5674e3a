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

// Package rooms checks the import rules of docs/design.md ("Rooms") over `go list`: which
// top-level folder may import which, and that no controller reaches into another.
package rooms

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/fedhq/fed/"

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Deps                               []string
}

// room is the top-level folder of a package of the module.
func room(path string) string {
	r, _, _ := strings.Cut(strings.TrimPrefix(path, module), "/")
	return r
}

func listPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports,Deps", module+"...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]*pkg{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		p := &pkg{}
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of the module", len(pkgs))
	}
	return pkgs
}

// controllerPackages are the packages that run a loop: under controllers/ (not
// controllers/internal/) and on controllers/internal/reconciler.
func controllerPackages(pkgs map[string]*pkg) map[string]bool {
	out := map[string]bool{}
	for path, p := range pkgs {
		if strings.HasPrefix(path, module+"controllers/") && !strings.HasPrefix(path, module+"controllers/internal/") &&
			slices.Contains(p.Imports, module+"controllers/internal/reconciler") {
			out[path] = true
		}
	}
	return out
}

// wiring are the packages that build and start the controllers: fed-apiserver's
// (controllers) and fed-agent's (controllers/pullagent).
var wiring = map[string]bool{module + "controllers": true, module + "controllers/pullagent": true}

// TestNoControllerImportsAnother: a controller is imported only by the wiring; what two
// controllers share lives in a package of its own.
func TestNoControllerImportsAnother(t *testing.T) {
	pkgs := listPackages(t)
	controllers := controllerPackages(pkgs)
	for _, want := range []string{"detector", "scheduler", "binding", "bindingstatus", "execution", "workstatus", "namespace", "cluster", "credentials"} {
		if !controllers[module+"controllers/"+want] {
			t.Errorf("controllers/%s is not a controller package (one that runs internal/reconciler)", want)
		}
	}
	for path, p := range pkgs {
		if wiring[path] {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if controllers[imp] && imp != path {
				t.Errorf("%s imports the controller %s; move what they share into a package of its own",
					strings.TrimPrefix(path, module), strings.TrimPrefix(imp, module))
			}
		}
	}
}

// TestRoomImports: the rooms' rules of docs/design.md, on every package's dependencies.
func TestRoomImports(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		from := room(path)
		for _, dep := range p.Deps {
			if !strings.HasPrefix(dep, module) {
				continue
			}
			to := room(dep)
			var why string
			switch {
			case from == "apis" && to != "apis":
				why = "apis/ is shared by every room and imports none"
			case from == "apiserver" && to == "controllers" && path != module+"apiserver" && path != module+"apiserver/app":
				why = "only the server's wiring (apiserver, apiserver/app) starts the controllers; registry and fleet code imports none"
			case (from == "controllers" || from == "search" || from == "metricsadapter" || from == "clusterclient") && (to == "apiserver" || to == "plugin"):
				why = from + "/ never imports apiserver/ or plugin/"
			case from == "plugin" && (to == "apiserver" || to == "controllers" || to == "search" || to == "metricsadapter"):
				why = "plugin/ talks to the servers over HTTP only"
			case from == "agent" && (to == "apiserver" || to == "plugin"):
				why = "agent/ runs the controllers of a pull cluster; it never imports apiserver/ or plugin/"
			case to == "agent" && from != "agent" && from != "cmd":
				why = "agent/ is fed-agent's; only its command imports it"
			case from == "interpreter" && to != "apis" && to != "interpreter":
				why = "interpreter/ is a library of the controllers and the plugin: it imports apis/ only"
			}
			if why != "" {
				t.Errorf("%s depends on %s: %s", strings.TrimPrefix(path, module), strings.TrimPrefix(dep, module), why)
			}
		}
	}
}

// TestCommandsImportNoCommand: a command package of kubectl fed (plugin/cmd/VERB) is cobra
// glue over the libraries of plugin/; only the root, plugin/cmd, imports it, and it imports
// no other command, so what two commands share is a library of its own.
func TestCommandsImportNoCommand(t *testing.T) {
	pkgs := listPackages(t)
	root := module + "plugin/cmd"
	command := func(path string) bool { return strings.HasPrefix(path, root+"/") }
	n := 0
	for path, p := range pkgs {
		if command(path) {
			n++
		}
		if path == root {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports) {
			if command(imp) && imp != path {
				t.Errorf("%s imports the command %s; only plugin/cmd adds commands, and what they share is a library of plugin/",
					strings.TrimPrefix(path, module), strings.TrimPrefix(imp, module))
			}
		}
	}
	if n < 10 {
		t.Errorf("plugin/cmd has %d command packages; the rule has nothing to check", n)
	}
}

// TestAgentLinksOnlyWhatItRuns: fed-agent runs execution (which makes the namespaces its
// Works need), work status and its cluster's health; it links no other controller, nor the search store,
// the metrics adapter or the server, nor the libraries of a server or of kubectl (51 MB
// instead of 132 MB).
func TestAgentLinksOnlyWhatItRuns(t *testing.T) {
	pkgs := listPackages(t)
	agent := pkgs[module+"cmd/fed-agent"]
	if agent == nil {
		t.Fatal("go list found no cmd/fed-agent")
	}
	runs := map[string]bool{"execution": true, "workstatus": true, "cluster": true}
	controllers := controllerPackages(pkgs)
	for _, dep := range agent.Deps {
		name := strings.TrimPrefix(dep, module)
		switch {
		case controllers[dep] && !runs[strings.TrimPrefix(name, "controllers/")]:
			t.Errorf("fed-agent links the controller %s, which only fed-apiserver runs", name)
		case dep == module+"controllers", room(dep) == "search", room(dep) == "metricsadapter", room(dep) == "apiserver":
			t.Errorf("fed-agent links %s, which only fed-apiserver runs", name)
		case strings.HasPrefix(dep, "k8s.io/apiserver/"), strings.HasPrefix(dep, "k8s.io/kubectl/"), strings.HasPrefix(dep, "k8s.io/cli-runtime/"):
			t.Errorf("fed-agent links %s: an agent is no server and no kubectl (`go mod why` of it shows the path)", dep)
		}
	}
}
