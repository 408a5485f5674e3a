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

package interpret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// interpret runs kubectl fed interpret with args, from the examples' folder.
func interpret(t *testing.T, args ...string) (string, error) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	cmd := NewCmdInterpret(streams)
	cmd.SetArgs(args)
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join(wd, "..", "..", "..", "artifacts", "examples"))
	err := cmd.Execute()
	return out.String(), err
}

func TestInterpret(t *testing.T) {
	dir := t.TempDir()
	member := filepath.Join(dir, "member.yaml")
	if err := os.WriteFile(member, []byte(`apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: guestbook-sample, namespace: default}
spec: {size: 2}
status: {replicas: 2}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	items := filepath.Join(dir, "items.yaml")
	if err := os.WriteFile(items, []byte(`- {clusterName: member1, applied: true, health: Healthy, status: {replicas: 1}}
- {clusterName: member2, applied: true, health: Unhealthy, status: {replicas: 0}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string // in the output, or in the error when err
		err  bool
	}{
		{"replicas", []string{"-f", "guestbook-interpreter.yaml", "--operation", "replicaResource", "--desired", "guestbook.yaml"},
			"replicaRequirements:\n  resourceRequest:\n    cpu: 100m\n    memory: 64Mi\nreplicas: 2\n", false},
		{"karmadactl's name, as JSON", []string{"-f", "guestbook-interpreter.yaml", "--operation", "interpretHealth", "--observed", member, "-o", "json"},
			`"health": "Healthy"`, false},
		{"aggregation", []string{"-f", "guestbook-interpreter.yaml", "--operation", "statusAggregation", "--desired", "guestbook.yaml", "--status", items},
			"guestbookStatus: 1/2 clusters healthy\nreplicas: 1\n", false},
		{"revision", []string{"-f", "guestbook-interpreter.yaml", "--operation", "replicaRevision", "--desired", "guestbook.yaml", "--replicas", "7"},
			"size: 7", false},
		{"built in where no script", []string{"-f", "guestbook-interpreter.yaml", "--operation", "dependencyInterpretation", "--desired", "guestbook.yaml"},
			"[]", false},
		{"check", []string{"-f", "deployment-interpreter.yaml", "--check"},
			"retention: ok\nreplicaResource: ok\nstatusAggregation: ok\nhealthInterpretation: ok\n", false},
		{"a missing file", []string{"-f", "guestbook-interpreter.yaml", "--operation", "healthInterpretation"},
			"--operation healthInterpretation needs --observed", true},
		{"an unknown operation", []string{"-f", "guestbook-interpreter.yaml", "--operation", "guess"}, `unknown operation "guess"`, true},
		{"not a customization", []string{"-f", "guestbook.yaml", "--check"}, "no federation.fedhq.io/v1alpha1 ResourceInterpreterCustomization in it", true},
		{"several objects", []string{"-f", "guestbook-interpreter.yaml", "--operation", "healthInterpretation", "--observed", "nginx.yaml"},
			"nginx.yaml holds 3 objects, want one", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := interpret(t, c.args...)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %v, want one saying %q", err, c.want)
				}
				return
			}
			if err != nil || !strings.Contains(out, c.want) {
				t.Errorf("printed %q (%v), want %q", out, err, c.want)
			}
		})
	}
}

// A script that fails says which customization and operation, and why.
func TestInterpretCheckFails(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(f, []byte(`apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: bad}
spec:
  target: {apiVersion: v1, kind: ConfigMap}
  customizations:
    healthInterpretation: {luaScript: "function Healthy() return true end"}
    statusReflection: {luaScript: "while true do end function ReflectStatus(o) return {} end"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := interpret(t, "-f", f, "--check")
	if err == nil || !strings.Contains(err.Error(), "2 of the scripts fail: statusReflection, healthInterpretation") ||
		!strings.Contains(out, "healthInterpretation: spec.customizations.healthInterpretation.luaScript: Invalid value: the script must define function InterpretHealth(observedObj)") ||
		!strings.Contains(out, "statusReflection: the script ran out of time") {
		t.Errorf("printed %q, error %v", out, err)
	}
}
