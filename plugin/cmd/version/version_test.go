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

package version

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/plugin/buildinfo"
)

// versionOptions answers /version from fake servers: the fleet's by its path.
func versionOptions(out, errOut *bytes.Buffer, fleetErr, hostErr error) *VersionOptions {
	flags := genericclioptions.NewConfigFlags(false)
	server := "https://host.example:6443"
	flags.APIServer = ptr.To(server)
	return &VersionOptions{
		IOStreams:   genericiooptions.IOStreams{Out: out, ErrOut: errOut},
		ConfigFlags: flags,
		serverVersion: func(cfg *rest.Config) (*apimachineryversion.Info, error) {
			if strings.HasSuffix(cfg.Host, "/fleets/default/proxy") {
				return &apimachineryversion.Info{GitVersion: "v0.3.0"}, fleetErr
			}
			if cfg.Host != server {
				return nil, errors.New("unexpected server " + cfg.Host)
			}
			return &apimachineryversion.Info{GitVersion: "v1.32.4"}, hostErr
		},
	}
}

func TestVersionRun(t *testing.T) {
	var out, errOut bytes.Buffer
	o := versionOptions(&out, &errOut, nil, nil)
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "Client Version: " + buildinfo.Version().GitVersion + "\nServer Version: v0.3.0\nHost Version: v1.32.4\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}

	out.Reset()
	o.Output = "json"
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var v Versions
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.ClientVersion == nil || v.ServerVersion.GitVersion != "v0.3.0" || v.HostVersion.GitVersion != "v1.32.4" {
		t.Errorf("json: %s", out.String())
	}

	out.Reset()
	o.Output, o.ClientOnly = "yaml", true
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.HasPrefix(s, "clientVersion:\n") || strings.Contains(s, "serverVersion") || strings.Contains(s, "hostVersion") {
		t.Errorf("yaml --client: %s", s)
	}
}

func TestVersionUnreachable(t *testing.T) {
	var out, errOut bytes.Buffer
	o := versionOptions(&out, &errOut, errors.New("fleet down"), nil)
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "fleet down") {
		t.Fatalf("Run() = %v, want the fleet's error", err)
	}
	if want := "Client Version: " + buildinfo.Version().GitVersion + "\nHost Version: v1.32.4\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}

	out.Reset()
	o = versionOptions(&out, &errOut, nil, errors.New("host down"))
	if err := o.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "host down") {
		t.Fatalf("Run() = %v, want the host's error", err)
	}
	if want := "Client Version: " + buildinfo.Version().GitVersion + "\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

func TestVersionValidate(t *testing.T) {
	for _, o := range []string{"", "json", "yaml"} {
		if err := (&VersionOptions{Output: o}).Validate(); err != nil {
			t.Errorf("-o %q: %v", o, err)
		}
	}
	if err := (&VersionOptions{Output: "wide"}).Validate(); err == nil {
		t.Error("-o wide accepted")
	}
}
