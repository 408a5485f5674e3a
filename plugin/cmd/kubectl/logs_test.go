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

package kubectl

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/fedhq/fed/plugin/cmdline"
)

func TestLogsValidate(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		wantFanOut bool
		wantErr    string
	}{
		{args: []string{"mypod", "-C", "member1"}},
		{args: []string{"mypod", "-C", "member1", "-f", "-c", "nginx", "--tail=3"}},
		{args: []string{"-l", "app=x", "-C", "member1"}}, // kubectl logs -l in member1
		{args: []string{"-l", "app=x"}, wantFanOut: true},
		{args: []string{"-l", "app=x", "--all-clusters", "-f", "--all-containers"}, wantFanOut: true},
		{args: []string{"-l", "app=x", "-C", "member1,member2", "--since=1h", "--timestamps"}, wantFanOut: true},
		{args: []string{"mypod"}, wantErr: errNoMember},
		{args: []string{"mypod", "-C", "a,b"}, wantErr: errNoMember},
		{args: []string{"mypod", "--all-clusters"}, wantErr: "--all-clusters needs a selector (-l)"},
		{args: []string{"mypod", "-l", "app=x"}, wantErr: "only a selector (-l) or a POD name is allowed"},
		{args: []string{"-l", "app=x", "--since=1h", "--since-time=2026-01-01T00:00:00Z"}, wantErr: "at most one of `sinceTime` or `sinceSeconds`"},
		{args: []string{"-l", "app=x", "--all-containers", "-c", "nginx"}, wantErr: "--all-containers=true should not be specified with container name nginx"},
		{args: []string{"-l", "app=x", "--tail=-2"}, wantErr: "--tail must be greater than or equal to -1"},
	} {
		cmd, o := newCmdLogs(nil, genericiooptions.NewTestIOStreamsDiscard())
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if err := o.Complete(cmd, cmd.Flags().Args()); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		err := o.Validate()
		fanOut := o.fanOut
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || fanOut != tc.wantFanOut {
			t.Errorf("%v: fan-out %v, %v; want %v", tc.args, fanOut, err, tc.wantFanOut)
		}
	}
}

func TestLogsWithoutMemberIsAUsageError(t *testing.T) {
	_, _, err := runFedNoServer(t, "logs", "mypod")
	if err == nil || !strings.Contains(err.Error(), errNoMember) || !strings.Contains(err.Error(), "See 'kubectl fed logs -h'") {
		t.Errorf("logs without -C: %v", err)
	}
}

func TestLogsHelpIsKubectls(t *testing.T) {
	var out bytes.Buffer
	cmd := cmdline.NewRootWith(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}, NewCmdExec, NewCmdAttach, NewCmdLogs, NewCmdDescribe)
	cmd.SetArgs([]string{"logs", "--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kubectl fed logs nginx -C member1", "kubectl fed logs -l app=nginx", "kubectl fed logs -C member1 -f -c ruby web-1",
		"--all-containers", "--since", "--timestamps", "--tail", "-C, --clusters", "--all-clusters", "[CLUSTER/POD/CONTAINER]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kubectl fed logs --help lacks %q", want)
		}
	}
}

func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	lw := &lineWriter{out: &out}
	s := &logStream{cluster: "member1", pod: "web-1", container: "nginx"}
	w := &prefixWriter{prefix: []byte(s.prefix()), out: lw}
	if n, err := w.Write([]byte("line 1\n")); err != nil || n != 7 {
		t.Fatalf("%d, %v", n, err)
	}
	_, _ = w.Write([]byte("no newline at the end"))
	if want := "[member1/web-1/nginx] line 1\n[member1/web-1/nginx] no newline at the end\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}

	// Parallel writers never mix within a line.
	out.Reset()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &prefixWriter{prefix: []byte(strings.Repeat(string(rune('a'+i)), 3) + " "), out: lw}
			for range 200 {
				_, _ = w.Write([]byte(strings.Repeat(string(rune('a'+i)), 50) + "\n"))
			}
		}()
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if c := line[0]; line != strings.Repeat(string(c), 3)+" "+strings.Repeat(string(c), 50) {
			t.Fatalf("a mixed line: %q", line)
		}
	}
}
