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
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// runFedNoServer runs kubectl fed against a kubeconfig whose server does not answer: the
// errors checked come before any request.
func runFedNoServer(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := cmdline.NewRootWith(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, NewCmdExec, NewCmdAttach, NewCmdLogs, NewCmdDescribe)
	cmd.SetArgs(append([]string{"--server", "https://127.0.0.1:1", "--request-timeout", "1s"}, args...))
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestOneMember(t *testing.T) {
	for _, tc := range []struct {
		flags   fleet.ClusterFlags
		want    string
		wantErr string
	}{
		{flags: fleet.ClusterFlags{Clusters: []string{"member1"}}, want: "member1"},
		{flags: fleet.ClusterFlags{}, wantErr: errNoMember},
		{flags: fleet.ClusterFlags{Clusters: []string{""}}, wantErr: errNoMember},
		{flags: fleet.ClusterFlags{Clusters: []string{"a", "b"}}, wantErr: "got -C a,b"},
		{flags: fleet.ClusterFlags{All: true}, wantErr: "--all-clusters is not supported"},
	} {
		got, err := oneMember(&tc.flags)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%+v: %q, %v; want error %q", tc.flags, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.flags, got, err, tc.want)
		}
	}
}

func TestExecAttachNeedOneMember(t *testing.T) {
	for _, args := range [][]string{
		{"exec", "mypod", "--", "date"},
		{"exec", "mypod", "-C", "member1,member2", "--", "date"},
		{"exec", "mypod", "--clusters", "member1", "--cluster", "member2", "--", "date"},
		{"attach", "mypod"},
		{"attach", "mypod", "-C", "a,b"},
	} {
		_, _, err := runFedNoServer(t, args...)
		if err == nil || !strings.Contains(err.Error(), "specify the member cluster of the pod with -C NAME (kubectl fed get pods lists them)") ||
			!strings.Contains(err.Error(), "See 'kubectl fed "+args[0]+" -h'") {
			t.Errorf("kubectl fed %s: %v, want the usage error", strings.Join(args, " "), err)
		}
	}
}

func TestMemberGetterConfig(t *testing.T) {
	server := "https://host.example:6443"
	cf := genericclioptions.NewConfigFlags(false)
	cf.APIServer = ptr.To(server)
	cluster := ""
	g := fleet.NewMemberGetter(cf, func() string { return cluster })
	if _, err := g.ToRESTConfig(); err == nil {
		t.Errorf("a config without a member")
	}
	cluster = "member1"
	cfg, err := g.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if want := server + "/apis/cluster.fedhq.io/v1alpha1/clusters/member1/proxy"; cfg.Host != want {
		t.Errorf("host %q, want %q", cfg.Host, want)
	}
	// kubectl's commands get the core API's defaults, as from kubectl's own factory.
	fcfg, err := fleet.NewMemberFactory(cf, func() string { return "member2" }).ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if fcfg.GroupVersion == nil || fcfg.GroupVersion.Version != "v1" || fcfg.APIPath != "/api" || !strings.HasSuffix(fcfg.Host, "/clusters/member2/proxy") {
		t.Errorf("factory config: %s %v %s", fcfg.Host, fcfg.GroupVersion, fcfg.APIPath)
	}
}

func TestFedExamples(t *testing.T) {
	got := fedExamples("  # x\n  kubectl exec mypod -- date\n  kubectl execute\n", "exec")
	if want := "  # x\n  kubectl fed exec -C member1 mypod -- date\n  kubectl execute\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, verb := range []string{"exec", "attach", "logs", "describe"} {
		cmd, _, err := cmdline.NewRootWith(genericiooptions.NewTestIOStreamsDiscard(), NewCmdExec, NewCmdAttach, NewCmdLogs, NewCmdDescribe).Find([]string{verb})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cmd.Example, "kubectl fed "+verb+" ") || strings.Contains(cmd.Example, "kubectl "+verb+" ") {
			t.Errorf("the examples of %s are not kubectl fed's:\n%s", verb, cmd.Example)
		}
		if cmd.Flags().ShorthandLookup("C") == nil {
			t.Errorf("%s has no -C", verb)
		}
	}
}
