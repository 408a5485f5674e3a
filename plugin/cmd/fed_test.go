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

package cmd

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestCompletion(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"completion bash", "# bash completion V2 for kubectl-fed"},
		{"completion zsh", "#compdef kubectl-fed"},
		{"completion fish", "# fish completion for kubectl-fed"},
		{"completion powershell", "# powershell completion for kubectl-fed"},
		{"__complete ver", "version\t"},
	} {
		var out bytes.Buffer
		root := NewCmdFed(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &bytes.Buffer{}})
		root.SetArgs(strings.Fields(tt.args))
		if err := root.Execute(); err != nil {
			t.Errorf("kubectl fed %s: %v", tt.args, err)
			continue
		}
		if !strings.HasPrefix(out.String(), tt.want) {
			t.Errorf("kubectl fed %s printed %.80q…, want it to start with %q", tt.args, out.String(), tt.want)
		}
	}
	root := NewCmdFed(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.SetArgs([]string{"completion", "tcsh"})
	if err := root.Execute(); err == nil {
		t.Error("completion tcsh accepted")
	}
}

// kubectl fed search has kubectl get's flags, -C, and the root's -v.
func TestSearchFlags(t *testing.T) {
	var out bytes.Buffer
	root := NewCmdFed(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &bytes.Buffer{}})
	root.SetArgs([]string{"search", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-l, --selector", "--field-selector", "-A, --all-namespaces", "-C, --clusters", "-o, --output", "--chunk-size", "-w, --watch", "-v, --v"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("kubectl fed search --help lacks %s", flag)
		}
	}
	out.Reset()
	root = NewCmdFed(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &bytes.Buffer{}})
	root.SetArgs([]string{"get", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--cache") {
		t.Errorf("kubectl fed get --help lacks --cache")
	}
}
