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

package membership

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/fedhq/fed/plugin/bootstrap"
)

func TestRegisterCommand(t *testing.T) {
	tok := bootstrap.Token{ID: "abcdef", Secret: "0123456789abcdef"}
	h1, h2 := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	got := registerCommand("https://127.0.0.1:6443", tok, []string{h1, h2})
	want := "kubectl fed register https://127.0.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash " + h1 +
		" --discovery-token-ca-cert-hash " + h2
	if got != want {
		t.Fatalf("registerCommand = %q, want %q", got, want)
	}
}

func TestPrintTokens(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tok := bootstrap.Token{ID: "abcdef", Secret: "0123456789abcdef"}
	forever := bootstrap.Token{ID: "zyxwvu", Secret: "0123456789abcdef"}
	var out bytes.Buffer
	if err := printTokens(&out, []corev1.Secret{*bootstrap.NewTokenSecret(tok, "edge", 2*time.Hour, now), *bootstrap.NewTokenSecret(forever, "", 0, now)}, now); err != nil {
		t.Fatal(err)
	}
	want := "TOKEN ID   TTL         EXPIRES                DESCRIPTION\n" +
		"abcdef     120m        2026-11-26T14:00:00Z   edge\n" +
		"zyxwvu     <forever>   <never>                \n"
	if out.String() != want {
		t.Fatalf("printTokens printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestNormalizeServer(t *testing.T) {
	for in, want := range map[string]string{
		"https://10.0.0.1:6443":  "https://10.0.0.1:6443",
		"10.0.0.1:6443":          "https://10.0.0.1:6443",
		"fed.example/":           "https://fed.example",
		"http://10.0.0.1:6443":   "",
		"https://":               "",
		"ftp://fed.example:6443": "",
	} {
		got, err := normalizeServer(in)
		if want == "" {
			if err == nil {
				t.Errorf("normalizeServer(%q) = %q, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("normalizeServer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestRegisterValidate(t *testing.T) {
	pin := "sha256:" + strings.Repeat("a", 64)
	ok := func() *RegisterOptions {
		return &RegisterOptions{ConfigFlags: genericclioptions.NewConfigFlags(false), ClusterName: "edge-1", CAHashes: []string{pin},
			DiscoveryTimeout: time.Minute, ClusterRole: "cluster-admin", Wait: true, WaitTimeout: time.Minute}
	}
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		change func(*RegisterOptions)
		want   string
	}{
		"a context name that is no DNS label": {func(o *RegisterOptions) { o.ClusterName = "kind-fed@host" }, "invalid cluster name"},
		"a subdomain":                         {func(o *RegisterOptions) { o.ClusterName = "edge.example" }, "invalid cluster name"},
		"no CA hash":                          {func(o *RegisterOptions) { o.CAHashes = nil }, "--discovery-token-ca-cert-hash is required"},
		"a bad CA hash":                       {func(o *RegisterOptions) { o.CAHashes = []string{"sha256:abc"} }, "invalid CA certificate hash"},
	} {
		o := ok()
		c.change(o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	o := ok()
	o.CAHashes, o.SkipCAVerification = nil, true
	if err := o.Validate(); err != nil {
		t.Errorf("no hash with --discovery-token-unsafe-skip-ca-verification: %v", err)
	}
}
