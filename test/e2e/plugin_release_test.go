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

package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/test/lab"
)

// krewPlugin mirrors krew's index.Plugin (sigs.k8s.io/krew/pkg/index, apiVersion
// krew.googlecontainertools.github.com/v1alpha2) field for field, so that decoding strictly
// into it rejects whatever krew would not read.
type krewPlugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec krewPluginSpec `json:"spec"`
}

type krewPluginSpec struct {
	Version          string         `json:"version,omitempty"`
	ShortDescription string         `json:"shortDescription,omitempty"`
	Description      string         `json:"description,omitempty"`
	Caveats          string         `json:"caveats,omitempty"`
	Homepage         string         `json:"homepage,omitempty"`
	Platforms        []krewPlatform `json:"platforms,omitempty"`
}

type krewPlatform struct {
	URI      string                `json:"uri,omitempty"`
	Sha256   string                `json:"sha256,omitempty"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Files    []krewFileOperation   `json:"files"`
	License  string                `json:"license,omitempty"`
	Bin      string                `json:"bin"`
}

type krewFileOperation struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

var (
	// krew's semver with the v prefix it requires.
	krewVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	krewSHA256  = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// releasePlatforms are the os/arch pairs make release builds.
	releasePlatforms = []labels.Set{
		{"os": "linux", "arch": "amd64"}, {"os": "linux", "arch": "arm64"},
		{"os": "darwin", "arch": "amd64"}, {"os": "darwin", "arch": "arm64"},
	}
)

// loadKrewManifest decodes a krew manifest strictly and checks it as krew's validation
// does, and more: fed's name, four platforms each matched by exactly one selector, the
// release URL of each archive, the files of the archives.
func loadKrewManifest(t *testing.T, file string) *krewPlugin {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p krewPlugin
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		t.Fatalf("%s is not a krew Plugin: %v", file, err)
	}
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(p.APIVersion == "krew.googlecontainertools.github.com/v1alpha2", "apiVersion %q", p.APIVersion)
	check(p.Kind == "Plugin", "kind %q", p.Kind)
	check(p.Name == "fed", "metadata.name %q, want fed", p.Name)
	check(p.Spec.ShortDescription != "", "no spec.shortDescription")
	check(p.Spec.Description != "" && p.Spec.Homepage != "" && p.Spec.Caveats != "", "spec.description, homepage and caveats must be set")
	check(krewVersion.MatchString(p.Spec.Version), "spec.version %q is not a semantic version with a v prefix", p.Spec.Version)
	check(len(p.Spec.Platforms) == len(releasePlatforms), "%d platforms, want %d", len(p.Spec.Platforms), len(releasePlatforms))
	matched := map[string]int{}
	for i, pl := range p.Spec.Platforms {
		where := fmt.Sprintf("platforms[%d]", i)
		check(krewSHA256.MatchString(pl.Sha256), "%s: sha256 %q is not 64 lowercase hex digits", where, pl.Sha256)
		check(pl.Bin == "kubectl-fed", "%s: bin %q", where, pl.Bin)
		check(pl.License == "", "%s: license is not used by fed's manifest", where)
		want := []krewFileOperation{{"kubectl-fed", "."}, {"kubectl_complete-fed", "."}, {"LICENSE", "."}}
		check(fmt.Sprint(pl.Files) == fmt.Sprint(want), "%s: files %v, want %v", where, pl.Files, want)
		if pl.Selector == nil || len(pl.Selector.MatchLabels) == 0 {
			errs = append(errs, fmt.Errorf("%s: no selector.matchLabels", where))
			continue
		}
		for k := range pl.Selector.MatchLabels {
			check(k == "os" || k == "arch", "%s: selector key %q (krew supports os and arch)", where, k)
		}
		for _, e := range pl.Selector.MatchExpressions {
			check(e.Key == "os" || e.Key == "arch", "%s: selector key %q (krew supports os and arch)", where, e.Key)
		}
		sel, err := metav1.LabelSelectorAsSelector(pl.Selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: selector: %w", where, err))
			continue
		}
		var hits []labels.Set
		for _, set := range releasePlatforms {
			if sel.Matches(set) {
				hits = append(hits, set)
			}
		}
		if len(hits) != 1 {
			errs = append(errs, fmt.Errorf("%s: selector %s matches %d of the release platforms, want 1", where, sel, len(hits)))
			continue
		}
		osArch := hits[0]["os"] + "-" + hits[0]["arch"]
		matched[osArch]++
		wantURI := "https://github.com/fedhq/fed/releases/download/" + p.Spec.Version + "/kubectl-fed-" + osArch + ".tar.gz"
		check(pl.URI == wantURI, "%s: uri %q, want %q", where, pl.URI, wantURI)
	}
	for _, set := range releasePlatforms {
		osArch := set["os"] + "-" + set["arch"]
		check(matched[osArch] == 1, "%s is matched by %d platforms, want 1", osArch, matched[osArch])
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	return &p
}

// TestKrewManifestInRepository checks the krew-manifest.yaml that make release last wrote.
func TestKrewManifestInRepository(t *testing.T) {
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	loadKrewManifest(t, filepath.Join(root, "krew-manifest.yaml"))
}

// TestPluginReleaseInstall builds the release as make release does and installs kubectl
// fed from it the way `kubectl krew install --manifest=krew-manifest.yaml --archive=…`
// does, offline: the platform whose selector matches this os/arch, its archive checked
// against the manifest's sha256, only the listed files unpacked, bin linked into a
// directory on PATH. kubectl then finds the plugin by its own discovery.
func TestPluginReleaseInstall(t *testing.T) {
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	const version = "v0.0.0-e2e.1"
	release := exec.Command(filepath.Join(root, "hack", "release.sh"))
	release.Dir = root
	release.Env = append(os.Environ(), "VERSION="+version, "DIST="+dist, "MANIFEST="+filepath.Join(dist, "krew-manifest.yaml"))
	if out, err := release.CombinedOutput(); err != nil {
		t.Fatalf("hack/release.sh: %v\n%s", err, out)
	}
	p := loadKrewManifest(t, filepath.Join(dist, "krew-manifest.yaml"))
	if p.Spec.Version != version {
		t.Fatalf("spec.version %q, want %q", p.Spec.Version, version)
	}

	// sha256sums.txt agrees with the manifest and the archives.
	sums, err := os.ReadFile(filepath.Join(dist, "sha256sums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range p.Spec.Platforms {
		line := pl.Sha256 + "  " + path.Base(pl.URI)
		if !strings.Contains(string(sums), line+"\n") {
			t.Errorf("sha256sums.txt lacks %q:\n%s", line, sums)
		}
		if got := fileSHA256(t, filepath.Join(dist, path.Base(pl.URI))); got != pl.Sha256 {
			t.Errorf("%s: sha256 %s, the manifest says %s", path.Base(pl.URI), got, pl.Sha256)
		}
	}

	// The platform of this machine, as krew picks it.
	here := labels.Set{"os": runtime.GOOS, "arch": runtime.GOARCH}
	var platform *krewPlatform
	for i, pl := range p.Spec.Platforms {
		sel, err := metav1.LabelSelectorAsSelector(pl.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Matches(here) {
			if platform != nil {
				t.Fatalf("two platforms match %v", here)
			}
			platform = &p.Spec.Platforms[i]
		}
	}
	if platform == nil {
		t.Skipf("no platform of the manifest matches %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	archive := filepath.Join(dist, path.Base(platform.URI))
	if got := fileSHA256(t, archive); got != platform.Sha256 {
		t.Fatalf("%s: sha256 %s, want %s", archive, got, platform.Sha256)
	}

	// Unpack, then keep only what the files operations move into the install directory.
	staging, install := t.TempDir(), filepath.Join(t.TempDir(), "fed", version)
	names := untarGz(t, archive, staging)
	sort.Strings(names)
	if want := []string{"LICENSE", "kubectl-fed", "kubectl_complete-fed"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("archive holds %v, want exactly %v at its root", names, want)
	}
	if err := os.MkdirAll(install, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, op := range platform.Files {
		matches, err := filepath.Glob(filepath.Join(staging, filepath.FromSlash(op.From)))
		if err != nil || len(matches) == 0 {
			t.Fatalf("files: from %q matches nothing in the archive (%v)", op.From, err)
		}
		for _, m := range matches {
			dst := filepath.Join(install, filepath.FromSlash(op.To), filepath.Base(m))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(m, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	binPath := filepath.Join(install, filepath.FromSlash(platform.Bin))
	if fi, err := os.Stat(binPath); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("bin %s is not an executable: %v", platform.Bin, err)
	}

	// krew's bin directory holds a link kubectl-fed to the binary; kubectl comes from
	// another directory of PATH (not the repository's bin/, which has a kubectl-fed too).
	krewBin, kubectlDir := t.TempDir(), t.TempDir()
	if err := os.Symlink(binPath, filepath.Join(krewBin, "kubectl-fed")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bin", "kubectl"), filepath.Join(kubectlDir, "kubectl")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + krewBin + string(os.PathListSeparator) + kubectlDir, "HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(kubectlDir, "kubectl"), args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	if out := run("plugin", "list", "--name-only"); !strings.HasSuffix(out, "\n\nkubectl-fed\n") {
		t.Errorf("kubectl plugin list --name-only printed %q, want kubectl-fed alone", out)
	}
	if out := run("plugin", "list"); !strings.Contains(out, filepath.Join(krewBin, "kubectl-fed")) {
		t.Errorf("kubectl plugin list does not list %s:\n%s", filepath.Join(krewBin, "kubectl-fed"), out)
	}
	if out := run("fed", "version", "--client"); out != "Client Version: "+version+"\n" {
		t.Errorf("kubectl fed version --client printed %q, want %q", out, "Client Version: "+version+"\n")
	}
	var v struct {
		ClientVersion struct {
			GitVersion, GitCommit, Platform, Major, Minor string
		} `json:"clientVersion"`
	}
	if err := json.Unmarshal([]byte(run("fed", "version", "--client", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if c := v.ClientVersion; c.GitVersion != version || c.Platform != runtime.GOOS+"/"+runtime.GOARCH || c.Major != "0" || c.Minor != "0" {
		t.Errorf("kubectl fed version --client -o json: %+v", c)
	}

	// kubectl's plugin completion runs kubectl_complete-fed, installed next to the binary.
	if err := os.Symlink(filepath.Join(install, "kubectl_complete-fed"), filepath.Join(krewBin, "kubectl_complete-fed")); err != nil {
		t.Fatal(err)
	}
	if out := run("__complete", "fed", "ver"); !strings.HasPrefix(out, "version\t") {
		t.Errorf("kubectl __complete fed ver printed %q, want the version command", out)
	}
}

func fileSHA256(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// untarGz unpacks the regular files of a .tar.gz into dir and returns their names in the
// archive's order; any other entry, or a name leaving dir, fails the test.
func untarGz(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) {
			t.Fatalf("%s: unexpected entry %q (type %c)", archive, h.Name, h.Typeflag)
		}
		dst := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode)&0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
