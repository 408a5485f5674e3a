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

package install

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/install"
)

// runFedOffline runs kubectl fed with args against a server nothing listens on, which a client
// dry run must not need.
func runFedOffline(args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	root := cmdline.NewRootWith(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}, NewCmdInit, NewCmdDeinit)
	root.SetArgs(append([]string{"--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// init --dry-run=client prints the chart's objects without asking the host, as YAML that
// kubectl apply takes, with a serving certificate that verifies.
func TestInitDryRunClient(t *testing.T) {
	out, _, err := runFedOffline("init", "--dry-run=client")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 30 {
		t.Errorf("%d documents, want the chart's 30 for Badger:\n%s", len(docs), out)
	}
	var secret *corev1.Secret
	for _, d := range docs {
		if strings.Contains(d, "kind: Secret\n") {
			secret = &corev1.Secret{}
			if err := yaml.Unmarshal([]byte(d), secret); err != nil {
				t.Fatal(err)
			}
		}
	}
	if secret == nil {
		t.Fatalf("no Secret in:\n%s", out)
	}
	if _, err := install.CertsFromSecret(secret).Check(time.Now()); err != nil {
		t.Errorf("the Secret's certificate: %v", err)
	}

	out, _, err = runFedOffline("init", "--dry-run=client", "-o", "name", "--storage=etcd3", "--etcd-servers=https://etcd:2379")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"namespace/fed-system\n", "deployment.apps/fed-apiserver\n", "poddisruptionbudget.policy/fed-apiserver\n",
		"apiservice.apiregistration.k8s.io/v1alpha1.search.fedhq.io\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestInitRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--storage=etcd3"}, "--storage=etcd3 needs --etcd-servers"},
		{[]string{"--replicas=2"}, "storage.mode=badger runs one replica"},
		{[]string{"--set", "tls.crt=x"}, "init makes the serving certificate"},
		{[]string{"--dry-run=maybe"}, "Invalid dry-run value (maybe)"},
		{[]string{"extra"}, "init takes no arguments"},
	} {
		_, _, err := runFedOffline(append([]string{"init", "--dry-run=client"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("init %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// The commands init prints carry the kubeconfig flags it was given.
func TestPrintNextSteps(t *testing.T) {
	kubeconfig, ctxName := "/tmp/host.kubeconfig", "host"
	var out bytes.Buffer
	printNextSteps(&out, &genericclioptions.ConfigFlags{KubeConfig: &kubeconfig, Context: &ctxName}, []string{"v1alpha1.cluster.fedhq.io"}, false)
	for _, want := range []string{
		"kubectl --kubeconfig /tmp/host.kubeconfig --context host get apiservices v1alpha1.cluster.fedhq.io\n",
		"kubectl fed --kubeconfig /tmp/host.kubeconfig --context host join NAME --cluster-kubeconfig FILE",
		"kubectl fed --kubeconfig /tmp/host.kubeconfig --context host token create --print-register-command\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/.kube/config": "/home/me/.kube/config",
		"kind-fed@host":         "kind-fed@host",
		"/tmp/my configs/host":  "'/tmp/my configs/host'",
		"it's":                  `'it'\''s'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
