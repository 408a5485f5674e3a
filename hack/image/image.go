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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: distroless's nonroot, which the chart's securityContext names.
const (
	nonrootUID = 65532
	binDir     = "usr/local/bin"
	// annotationContainerdName is the name ctr images import gives the image of an index entry.
	annotationContainerdName = "io.containerd.image.name"
)

type options struct {
	Output   string
	Name     string
	Platform string
	CACerts  string
	Version  string
	Binaries []string
}

func (o *options) run() error {
	if len(o.Binaries) == 0 {
		return errors.New("name the binaries to put in the image (the first is its entrypoint)")
	}
	created := sourceDate()
	img, err := o.image(created)
	if err != nil {
		return err
	}
	return writeArchive(o.Output, img, o.Name, created)
}

// image is the image of the binaries, made at created: one layer, no base.
func (o *options) image(created time.Time) (v1.Image, error) {
	osName, arch, ok := strings.Cut(o.Platform, "/")
	if !ok || osName == "" || arch == "" {
		return nil, fmt.Errorf("--platform %q: want OS/ARCH, e.g. linux/amd64", o.Platform)
	}
	data, err := o.layerTar(created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = osName, arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", nonrootUID, nonrootUID),
		Entrypoint:   []string{"/" + path.Join(binDir, filepath.Base(o.Binaries[0]))},
		Env:          []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		WorkingDir:   "/",
		ExposedPorts: map[string]struct{}{"6443/tcp": {}},
		Labels: map[string]string{
			"org.opencontainers.image.source":  "https://github.com/fedhq/fed",
			"org.opencontainers.image.version": o.Version,
			"org.opencontainers.image.title":   "fed",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// sourceDate is the time of the image's files and config: SOURCE_DATE_EPOCH when set (as
// reproducible builds set it), the Unix epoch otherwise, so that the same binaries make the
// same image.
func sourceDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

// layerTar is the layer's filesystem: the directories, the users, the CA bundle and the
// binaries, root's and read-only but for the nonroot user's home and /tmp.
func (o *options) layerTar(mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	for _, d := range []string{"etc", "etc/ssl", "etc/ssl/certs", "home", "usr", "usr/local", binDir} {
		if err := dir(d, 0o755, 0); err != nil {
			return nil, err
		}
	}
	if err := dir("home/nonroot", 0o700, nonrootUID); err != nil {
		return nil, err
	}
	if err := dir("tmp", 0o1777, 0); err != nil {
		return nil, err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonrootUID, nonrootUID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonrootUID)
	if err := file("etc/passwd", 0o644, []byte(passwd)); err != nil {
		return nil, err
	}
	if err := file("etc/group", 0o644, []byte(group)); err != nil {
		return nil, err
	}
	if o.CACerts != "" {
		data, err := os.ReadFile(o.CACerts)
		if err != nil {
			return nil, fmt.Errorf("the CA bundle: %w (--ca-certs= ships none)", err)
		}
		if err := file("etc/ssl/certs/ca-certificates.crt", 0o644, data); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for _, b := range o.Binaries {
		name := filepath.Base(b)
		if seen[name] {
			return nil, fmt.Errorf("two binaries named %s", name)
		}
		seen[name] = true
		data, err := os.ReadFile(b)
		if err != nil {
			return nil, err
		}
		if err := file(path.Join(binDir, name), 0o755, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeArchive writes img as an OCI image layout in a tar file, its index entry named name
// (org.opencontainers.image.ref.name, and containerd's io.containerd.image.name), its files
// dated mtime.
func writeArchive(output string, img v1.Image, name string, mtime time.Time) error {
	dir, err := os.MkdirTemp("", "fed-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": name,
		annotationContainerdName:            name,
	})); err != nil {
		return err
	}
	tmp := output + ".tmp"
	if err := tarDir(dir, tmp, mtime); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, output)
}

// tarDir writes the files under dir to the tar file output, in lexical order, dated mtime.
func tarDir(dir, output string, mtime time.Time) error {
	f, err := os.Create(output)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.ModTime, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = mtime, 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil || d.IsDir() {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
