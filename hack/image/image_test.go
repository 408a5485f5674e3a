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

package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// untar extracts the archive into a new directory.
func untar(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The archive is an OCI layout whose one image runs the first binary as nonroot, with the
// binaries, the users and the CA bundle in its layer; the same inputs make the same image.
func TestImageArchive(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o := options{Name: "ghcr.io/fedhq/fed-apiserver:v1.2.3", Platform: "linux/arm64", Version: "v1.2.3",
		CACerts:  write("ca.crt", "CA PEM"),
		Binaries: []string{write("fed-apiserver", "server binary"), write("fed-agent", "agent binary")}}
	o.Output = filepath.Join(dir, "image.tar")
	if err := o.run(); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(o.Output)
	if err != nil {
		t.Fatal(err)
	}
	o.Output = filepath.Join(dir, "again.tar")
	if err := o.run(); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(o.Output); !bytes.Equal(first, again) {
		t.Error("the same binaries made two different archives")
	}

	idx, err := layout.ImageIndexFromPath(untar(t, o.Output))
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index has %d manifests, want 1", len(im.Manifests))
	}
	desc := im.Manifests[0]
	if desc.MediaType != types.OCIManifestSchema1 || desc.Annotations[annotationContainerdName] != o.Name ||
		desc.Annotations["org.opencontainers.image.ref.name"] != o.Name {
		t.Errorf("index entry %+v", desc)
	}
	img, err := idx.Image(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != "arm64" || cf.Config.User != "65532:65532" ||
		!reflect.DeepEqual(cf.Config.Entrypoint, []string{"/usr/local/bin/fed-apiserver"}) ||
		cf.Config.Labels["org.opencontainers.image.version"] != "v1.2.3" {
		t.Errorf("config %+v", cf)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %v, %v; want one", layers, err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	type entry struct {
		mode     int64
		uid      int
		contents string
	}
	got := map[string]entry{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got[hdr.Name] = entry{hdr.Mode, hdr.Uid, string(data)}
	}
	for name, want := range map[string]entry{
		"usr/local/bin/fed-apiserver":       {0o755, 0, "server binary"},
		"usr/local/bin/fed-agent":           {0o755, 0, "agent binary"},
		"etc/ssl/certs/ca-certificates.crt": {0o644, 0, "CA PEM"},
		"home/nonroot/":                     {0o700, 65532, ""},
		"tmp/":                              {0o1777, 0, ""},
	} {
		if got[name] != want {
			t.Errorf("%s: %+v, want %+v", name, got[name], want)
		}
	}
	if e := got["etc/passwd"]; !bytes.Contains([]byte(e.contents), []byte("nonroot:x:65532:65532:")) {
		t.Errorf("etc/passwd: %q", e.contents)
	}
}

func TestImageRefuses(t *testing.T) {
	for name, o := range map[string]options{
		"no binary":     {Platform: "linux/amd64"},
		"bad platform":  {Platform: "amd64", Binaries: []string{"x"}},
		"missing file":  {Platform: "linux/amd64", Binaries: []string{filepath.Join(t.TempDir(), "nope")}},
		"same basename": {Platform: "linux/amd64", Binaries: []string{"/etc/hostname", "/etc/hostname"}},
	} {
		o.Output = filepath.Join(t.TempDir(), "out.tar")
		if err := o.run(); err == nil {
			t.Errorf("%s: built an image", name)
		}
		if _, err := os.Stat(o.Output); err == nil {
			t.Errorf("%s: left %s", name, o.Output)
		}
	}
}
