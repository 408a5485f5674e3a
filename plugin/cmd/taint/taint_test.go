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

package taint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/taints"
)

func TestTaintOptionsComplete(t *testing.T) {
	server := "https://127.0.0.1:1"
	newOptions := func() (*TaintOptions, *cobra.Command) {
		flags := genericclioptions.NewConfigFlags(false)
		flags.APIServer = ptr.To(server)
		cmd, _, err := cmdline.NewRootWith(genericiooptions.NewTestIOStreamsDiscard(), NewCmdTaint, NewCmdCordon, NewCmdUncordon).Find([]string{"taint"})
		if err != nil {
			t.Fatal(err)
		}
		o := &TaintOptions{ConfigFlags: flags, PrintFlags: cmdline.NewPrintFlags(taints.OpTainted)}
		return o, cmd
	}
	tests := []struct {
		args      []string
		names     []string
		taintArgs []string
		wantErr   string
	}{
		{args: []string{"clusters", "m1", "m2", "a=b:NoSchedule", "c-"}, names: []string{"m1", "m2"}, taintArgs: []string{"a=b:NoSchedule", "c-"}},
		{args: []string{"cluster", "m1", "a:NoExecute"}, names: []string{"m1"}, taintArgs: []string{"a:NoExecute"}},
		{args: []string{"nodes", "m1", "a:NoExecute"}, wantErr: "invalid resource type nodes, only clusters are supported"},
		{args: []string{"clusters", "m1", "a:NoExecute", "m2"}, wantErr: "all resources must be specified before taint changes: m2"},
		{args: []string{"clusters", "m1"}, wantErr: "at least one taint update is required"},
		{args: nil, wantErr: "one or more resources must be specified as <resource> <name>"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, cmd := newOptions()
			err := o.Complete(cmd, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr+"\nSee 'kubectl fed taint -h'") {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.names, o.Names); d != "" {
				t.Errorf("names (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.taintArgs, o.TaintArgs); d != "" {
				t.Errorf("taint args (-want +got):\n%s", d)
			}
		})
	}
}
