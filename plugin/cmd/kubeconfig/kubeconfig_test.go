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

package kubeconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
)

const fleetPath = federationv1alpha1.FleetPath

// hostKubeconfig writes a kubeconfig of two contexts in dir: "admin" (client certificate
// and CA by file, namespace team-a) and "robot" (a token, CA data, insecure off, a proxy
// URL and a TLS server name, behind a path prefix).
func hostKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	for name, content := range map[string]string{"ca.crt": "CA PEM", "admin.crt": "CERT PEM", "admin.key": "KEY PEM"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["host"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthority: "ca.crt"}
	cfg.Clusters["behind-proxy"] = &clientcmdapi.Cluster{Server: "https://gw.example.com/clusters/host/", CertificateAuthorityData: []byte("OTHER CA"),
		TLSServerName: "kubernetes.default", ProxyURL: "socks5://127.0.0.1:1080"}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: "admin.crt", ClientKey: "admin.key"}
	cfg.AuthInfos["robot"] = &clientcmdapi.AuthInfo{Token: "s3cr3t"}
	cfg.AuthInfos["sso"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "kubelogin",
		Args: []string{"get-token"}, InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode}}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "host", AuthInfo: "admin", Namespace: "team-a"}
	cfg.Contexts["robot"] = &clientcmdapi.Context{Cluster: "behind-proxy", AuthInfo: "robot"}
	cfg.CurrentContext = "admin"
	path := filepath.Join(dir, "host.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runFed runs `kubectl-fed args...` and returns its standard output.
func runFed(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := cmdline.NewRootWith(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, NewCmdKubeconfig)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func loadFleet(t *testing.T, data []byte) *clientcmdapi.Config {
	t.Helper()
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatalf("output is no kubeconfig: %v\n%s", err, data)
	}
	return cfg
}

func TestKubeconfigCommand(t *testing.T) {
	dir := t.TempDir()
	host := hostKubeconfig(t, dir)
	tests := []struct {
		name string
		args []string
		want *clientcmdapi.Config
	}{{
		name: "current context, files embedded, namespace kept",
		args: nil,
		want: &clientcmdapi.Config{
			Clusters:       map[string]*clientcmdapi.Cluster{"fed-fleet": {Server: "https://127.0.0.1:6443" + fleetPath, CertificateAuthorityData: []byte("CA PEM")}},
			AuthInfos:      map[string]*clientcmdapi.AuthInfo{"fed-fleet": {ClientCertificateData: []byte("CERT PEM"), ClientKeyData: []byte("KEY PEM")}},
			Contexts:       map[string]*clientcmdapi.Context{"fed-fleet": {Cluster: "fed-fleet", AuthInfo: "fed-fleet", Namespace: "team-a"}},
			CurrentContext: "fed-fleet",
		},
	}, {
		name: "another context: token, path prefix, TLS server name and proxy",
		args: []string{"--context", "robot", "--context-name", "prod-fleet"},
		want: &clientcmdapi.Config{
			Clusters: map[string]*clientcmdapi.Cluster{"prod-fleet": {Server: "https://gw.example.com/clusters/host" + fleetPath, CertificateAuthorityData: []byte("OTHER CA"),
				TLSServerName: "kubernetes.default", ProxyURL: "socks5://127.0.0.1:1080"}},
			AuthInfos:      map[string]*clientcmdapi.AuthInfo{"prod-fleet": {Token: "s3cr3t"}},
			Contexts:       map[string]*clientcmdapi.Context{"prod-fleet": {Cluster: "prod-fleet", AuthInfo: "prod-fleet"}},
			CurrentContext: "prod-fleet",
		},
	}, {
		name: "flags override the context: user, namespace, server",
		args: []string{"--user", "sso", "-n", "team-b", "--server", "https://10.1.2.3:443/"},
		want: &clientcmdapi.Config{
			Clusters: map[string]*clientcmdapi.Cluster{"fed-fleet": {Server: "https://10.1.2.3:443" + fleetPath, CertificateAuthorityData: []byte("CA PEM")}},
			AuthInfos: map[string]*clientcmdapi.AuthInfo{"fed-fleet": {Exec: &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "kubelogin",
				Args: []string{"get-token"}, InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode}}},
			Contexts:       map[string]*clientcmdapi.Context{"fed-fleet": {Cluster: "fed-fleet", AuthInfo: "fed-fleet", Namespace: "team-b"}},
			CurrentContext: "fed-fleet",
		},
	}, {
		name: "a token flag is added to the user",
		args: []string{"--token", "flag-token"},
		want: &clientcmdapi.Config{
			Clusters:       map[string]*clientcmdapi.Cluster{"fed-fleet": {Server: "https://127.0.0.1:6443" + fleetPath, CertificateAuthorityData: []byte("CA PEM")}},
			AuthInfos:      map[string]*clientcmdapi.AuthInfo{"fed-fleet": {ClientCertificateData: []byte("CERT PEM"), ClientKeyData: []byte("KEY PEM"), Token: "flag-token"}},
			Contexts:       map[string]*clientcmdapi.Context{"fed-fleet": {Cluster: "fed-fleet", AuthInfo: "fed-fleet", Namespace: "team-a"}},
			CurrentContext: "fed-fleet",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runFed(t, append([]string{"kubeconfig", "--kubeconfig", host}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			got := loadFleet(t, []byte(out))
			// Nothing is left that points outside the kubeconfig.
			for _, c := range got.Clusters {
				c.LocationOfOrigin, c.Extensions = "", nil
			}
			for _, u := range got.AuthInfos {
				u.LocationOfOrigin, u.Extensions = "", nil
			}
			for _, c := range got.Contexts {
				c.LocationOfOrigin, c.Extensions = "", nil
			}
			want := tt.want
			want.Preferences, want.Extensions = got.Preferences, got.Extensions
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("kubeconfig (-want +got):\n%s\n%s", d, out)
			}
		})
	}
}

func TestKubeconfigCommandErrors(t *testing.T) {
	dir := t.TempDir()
	host := hostKubeconfig(t, dir)
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "unknown context", args: []string{"--context", "nope"}, wantErr: "context was not found for specified context: nope"},
		{name: "empty name", args: []string{"--context-name", ""}, wantErr: "--context-name must not be empty"},
		{name: "overwrite without a file", args: []string{"--overwrite"}, wantErr: "--overwrite needs -o FILE"},
		{name: "arguments", args: []string{"member1"}, wantErr: "unexpected arguments: member1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runFed(t, append([]string{"kubeconfig", "--kubeconfig", host}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	empty := filepath.Join(dir, "empty.kubeconfig")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runFed(t, "kubeconfig", "--kubeconfig", empty); err == nil {
		t.Error("an empty kubeconfig gave a fleet kubeconfig")
	}
}

func TestKubeconfigFile(t *testing.T) {
	dir := t.TempDir()
	host := hostKubeconfig(t, dir)
	file := filepath.Join(dir, "new", "dir", "fleet.kubeconfig")

	out, err := runFed(t, "kubeconfig", "--kubeconfig", host, "-o", file)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "kubeconfig for the fleet written to " + file + "\n" +
		"use it as any kubeconfig, e.g.: kubectl --kubeconfig " + file + " get deploy -A\n"
	if out != wantOut {
		t.Errorf("output %q, want %q", out, wantOut)
	}
	checkFleetFile(t, file, "team-a")

	// An existing file stays as it is without --overwrite.
	_, err = runFed(t, "kubeconfig", "--kubeconfig", host, "--context", "robot", "-o", file)
	if err == nil || !strings.Contains(err.Error(), file+" already exists; use --overwrite to replace it") {
		t.Errorf("error %v, want a refusal that names --overwrite", err)
	}
	checkFleetFile(t, file, "team-a")

	// --overwrite replaces it, and a file of another mode ends up 0600 too.
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runFed(t, "kubeconfig", "--kubeconfig", host, "--context", "robot", "-o", file, "--overwrite"); err != nil {
		t.Fatal(err)
	}
	checkFleetFile(t, file, "")
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files left next to the kubeconfig: %v", entries)
	}

	// Relative client files named by flags are read from the working directory.
	t.Chdir(dir)
	rel := filepath.Join(dir, "rel.kubeconfig")
	if _, err := runFed(t, "kubeconfig", "--kubeconfig", host, "--client-certificate", "ca.crt", "-o", rel); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(rel)
	if err != nil {
		t.Fatal(err)
	}
	if u := loadFleet(t, data).AuthInfos["fed-fleet"]; string(u.ClientCertificateData) != "CA PEM" || u.ClientCertificate != "" {
		t.Errorf("user %+v, want the certificate of ca.crt embedded", u)
	}
}

func checkFleetFile(t *testing.T, file, namespace string) {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadFleet(t, data)
	ctx := cfg.Contexts[cfg.CurrentContext]
	if cfg.CurrentContext != "fed-fleet" || ctx == nil || ctx.Namespace != namespace {
		t.Errorf("current context %q, %+v; want fed-fleet in namespace %q", cfg.CurrentContext, ctx, namespace)
	}
	if c := cfg.Clusters["fed-fleet"]; c == nil || !strings.HasSuffix(c.Server, fleetPath) {
		t.Errorf("cluster %+v, want a server ending in %s", c, fleetPath)
	}
}
