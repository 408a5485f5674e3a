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
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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

// The release tests run krew itself on what make release builds: bin/kubectl-krew and
// bin/validate-krew-manifest, built by make test from sigs.k8s.io/krew at the Makefile's
// KREW_VERSION. krew never reaches the network here: install --manifest --archive reads
// local files only, KREW_NO_UPGRADE_CHECK turns off its check for a newer krew, git may use
// local repositories only, and HTTP goes to a closed port on loopback.

// releasePlatforms are the os/arch pairs make release builds.
var releasePlatforms = []labels.Set{
	{"os": "linux", "arch": "amd64"}, {"os": "linux", "arch": "arm64"},
	{"os": "darwin", "arch": "amd64"}, {"os": "darwin", "arch": "arm64"},
}

// releaseManifest holds what fed's release promises of its manifest beyond krew's own
// rules (which krew checks): its homepage, description and caveats, exactly the four
// release platforms, and each platform's uri the GitHub release download of its archive
// (an install with --archive never reads the uri).
type releaseManifest struct {
	Spec struct {
		Version     string `json:"version"`
		Homepage    string `json:"homepage"`
		Description string `json:"description"`
		Caveats     string `json:"caveats"`
		Platforms   []struct {
			URI      string                `json:"uri"`
			Selector *metav1.LabelSelector `json:"selector"`
		} `json:"platforms"`
	} `json:"spec"`
}

// krewTool returns the path of one of the binaries make test builds from krew.
func krewTool(t *testing.T, name string) string {
	t.Helper()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%v: make test builds it (make bin/.krew-<KREW_VERSION>)", err)
	}
	return bin
}

// validateKrewManifest runs krew's manifest validator (the one krew-index runs on every
// manifest) on file: krew's structural validation, the plugin named fed (the validator
// takes the name from the file's, so it reads a copy named fed.yaml), every platform's
// selector matching a platform krew supports and none overlapping. -skip-install: its
// install step downloads the uris; the release test installs from the archives instead.
// Then the release's own promises (releaseManifest), which it returns.
func validateKrewManifest(t *testing.T, file string) *releaseManifest {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fed.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	validate := exec.Command(krewTool(t, "validate-krew-manifest"), "-manifest", "fed.yaml", "-skip-install")
	validate.Dir = dir
	validate.Env = offlineEnv(t.TempDir())
	if out, err := validate.CombinedOutput(); err != nil {
		// klog.Fatal's goroutine dump says nothing about the manifest.
		msg, _, _ := strings.Cut(string(out), "\ngoroutine ")
		t.Fatalf("validate-krew-manifest %s: %v\n%s", file, err, msg)
	}

	var m releaseManifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(m.Spec.Homepage == "https://github.com/fedhq/fed", "spec.homepage %q", m.Spec.Homepage)
	check(m.Spec.Description != "" && m.Spec.Caveats != "", "spec.description and spec.caveats must be set")
	check(len(m.Spec.Platforms) == len(releasePlatforms), "%d platforms, want %d", len(m.Spec.Platforms), len(releasePlatforms))
	matched := map[string]int{}
	for i, pl := range m.Spec.Platforms {
		sel, err := metav1.LabelSelectorAsSelector(pl.Selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("platforms[%d]: selector: %w", i, err))
			continue
		}
		var hits []string
		for _, set := range releasePlatforms {
			if sel.Matches(set) {
				hits = append(hits, set["os"]+"-"+set["arch"])
			}
		}
		if len(hits) != 1 {
			errs = append(errs, fmt.Errorf("platforms[%d]: selector %s matches %v of the release platforms, want one", i, sel, hits))
			continue
		}
		matched[hits[0]]++
		want := "https://github.com/fedhq/fed/releases/download/" + m.Spec.Version + "/kubectl-fed-" + hits[0] + ".tar.gz"
		check(pl.URI == want, "platforms[%d]: uri %q, want %q", i, pl.URI, want)
	}
	for _, set := range releasePlatforms {
		osArch := set["os"] + "-" + set["arch"]
		check(matched[osArch] == 1, "%s is matched by %d platforms, want 1", osArch, matched[osArch])
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	return &m
}

// offlineEnv is the environment of krew's commands, without the caller's: HOME, no check
// for a newer krew, git on local repositories only, HTTP(S) through a proxy on a closed
// port of loopback.
func offlineEnv(home string, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"), // git, for krew's indexes
		"HOME=" + home,
		"KREW_NO_UPGRADE_CHECK=1",
		"GIT_ALLOW_PROTOCOL=file",
		"GIT_CONFIG_NOSYSTEM=1",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "NO_PROXY=",
	}, extra...)
}

// krewRoot is a KREW_ROOT of its own with krew's commands run in it.
type krewRoot struct {
	t    *testing.T
	dir  string
	home string
	env  []string
}

// newKrewRoot makes an empty KREW_ROOT and HOME; extra are more variables (KREW_OS, KREW_ARCH).
func newKrewRoot(t *testing.T, extra ...string) *krewRoot {
	dir, home := t.TempDir(), t.TempDir()
	env := offlineEnv(home, append([]string{"KREW_ROOT=" + dir}, extra...)...)
	// krew's bin directory comes first on PATH, as krew's setup instructions put it.
	env[0] = "PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	return &krewRoot{t: t, dir: dir, home: home, env: env}
}

// krew runs bin/kubectl-krew in the root and returns its standard output and error.
func (k *krewRoot) krew(args ...string) (string, string, error) {
	cmd := exec.Command(krewTool(k.t, "kubectl-krew"), args...)
	cmd.Env = k.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// install runs kubectl krew install --manifest --archive and fails the test if krew fails.
func (k *krewRoot) install(manifest, archive string) {
	k.t.Helper()
	if _, stderr, err := k.krew("install", "--manifest="+manifest, "--archive="+archive); err != nil {
		k.t.Fatalf("kubectl krew install --manifest=%s --archive=%s: %v\n%s", manifest, archive, err, stderr)
	}
}

// checkInstalled checks what krew installed of fed at version: in the store exactly the
// three files of the archive, the binary executable, krew's bin/kubectl-fed a link to it,
// and the receipt krew wrote the manifest as krew read it, field for field: a field krew
// does not know would be missing from it.
func (k *krewRoot) checkInstalled(manifest, version string) {
	t := k.t
	t.Helper()
	store := filepath.Join(k.dir, "store", "fed", version)
	entries, err := os.ReadDir(store)
	if err != nil {
		t.Fatalf("krew installed no fed %s: %v", version, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{"LICENSE", "kubectl-fed", "kubectl_complete-fed"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("%s holds %v, want %v", store, names, want)
	}
	if fi, err := os.Stat(filepath.Join(store, "kubectl-fed")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("%s is not an executable: %v", filepath.Join(store, "kubectl-fed"), err)
	}
	if dst, err := os.Readlink(filepath.Join(k.dir, "bin", "kubectl-fed")); err != nil || dst != filepath.Join(store, "kubectl-fed") {
		t.Errorf("krew's bin/kubectl-fed links to %q (%v), want %s", dst, err, filepath.Join(store, "kubectl-fed"))
	}

	read := func(file string) map[string]any {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return m
	}
	want, got := read(manifest), read(filepath.Join(k.dir, "receipts", "fed.yaml"))
	if src, _ := got["status"].(map[string]any)["source"].(map[string]any); src["name"] != "detached" {
		t.Errorf("the receipt's status %v, want the source detached (installed from a manifest)", got["status"])
	}
	delete(got, "status")
	delete(got["metadata"].(map[string]any), "creationTimestamp")
	if diff := yamlDiff("", want, got); len(diff) > 0 {
		t.Errorf("krew's receipt differs from the manifest (fields krew does not read?):\n%s", strings.Join(diff, "\n"))
	}
}

// yamlDiff lists the paths where two decoded YAML documents differ, with both values.
func yamlDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			var diff []string
			for k := range w {
				diff = append(diff, yamlDiff(strings.TrimPrefix(path+"."+k, "."), w[k], g[k])...)
			}
			for k := range g {
				if _, ok := w[k]; !ok {
					diff = append(diff, yamlDiff(strings.TrimPrefix(path+"."+k, "."), nil, g[k])...)
				}
			}
			sort.Strings(diff)
			return diff
		}
	case []any:
		if g, ok := got.([]any); ok && len(g) == len(w) {
			var diff []string
			for i := range w {
				diff = append(diff, yamlDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
			}
			return diff
		}
	}
	if reflect.DeepEqual(want, got) {
		return nil
	}
	return []string{fmt.Sprintf("%s: the manifest has %v, krew %v", path, want, got)}
}

// TestKrewManifestInRepository checks the krew-manifest.yaml that make release last wrote,
// with krew's validator (its archives are not in the repository).
func TestKrewManifestInRepository(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	validateKrewManifest(t, filepath.Join(root, "krew-manifest.yaml"))
}

// TestPluginReleaseKrewInstall builds the release as make release does and installs
// kubectl fed from it with krew, offline: `kubectl krew install --manifest=krew-manifest.yaml
// --archive=…` of each platform's archive (krew told the platform by KREW_OS and KREW_ARCH),
// then of this machine's, after which krew lists fed, kubectl finds the plugin by its own
// discovery in krew's bin directory, it names the manifest's version, completes with the
// link the caveats ask for, and krew uninstalls it. krew refuses a manifest whose sha256
// is not its archive's, another platform's archive, and files the archive does not hold.
// releaseVersion is the version the e2e release builds get.
const releaseVersion = "v0.0.0-e2e.1"

// earlyRelease is hack/release.sh, run in the background from the start of the e2e run
// (TestMain) when TestPluginReleaseKrewInstall is to run: its cross-compiles for four
// platforms take minutes of CPU, which came at the tail of make test (six of its 34
// minutes) and now overlap the tests that mostly wait on the lab.
var earlyRelease release

type release struct {
	done chan struct{}
	dist string
	err  error
}

// start runs hack/release.sh into a directory of its own, unless the test that reads it
// is not to run (go test -run/-skip).
func (r *release) start() {
	if !testSelected("TestPluginReleaseKrewInstall") {
		return
	}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		root, err := lab.RepoRoot()
		if err != nil {
			r.err = err
			return
		}
		if r.dist, err = os.MkdirTemp("", "fed-e2e-release-"); err != nil {
			r.err = err
			return
		}
		cmd := exec.Command(filepath.Join(root, "hack", "release.sh"))
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "VERSION="+releaseVersion, "DIST="+r.dist, "MANIFEST="+filepath.Join(r.dist, "krew-manifest.yaml"))
		if out, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("hack/release.sh: %v\n%s", err, out)
		}
	}()
}

// wait returns the directory of the archives and manifest once the build is done.
func (r *release) wait() (string, error) {
	if r.done == nil {
		return "", errors.New("hack/release.sh was not started (TestMain starts it)")
	}
	<-r.done
	return r.dist, r.err
}

// remove removes what the build made.
func (r *release) remove() {
	if r.done != nil {
		<-r.done
		_ = os.RemoveAll(r.dist)
	}
}

// testSelected says whether go test's -run and -skip select a top-level test (their first
// level only: enough to tell whether a run may reach it).
func testSelected(name string) bool {
	matches := func(flagName string) (set, match bool) {
		f := flag.Lookup(flagName)
		if f == nil || f.Value.String() == "" {
			return false, false
		}
		re, err := regexp.Compile(strings.Split(f.Value.String(), "/")[0])
		return true, err != nil || re.MatchString(name)
	}
	if set, match := matches("test.run"); set && !match {
		return false
	}
	set, match := matches("test.skip")
	return !set || !match
}

func TestPluginReleaseKrewInstall(t *testing.T) {
	t.Parallel()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dist, err := earlyRelease.wait()
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dist, "krew-manifest.yaml")
	m := validateKrewManifest(t, manifest)
	if m.Spec.Version != releaseVersion {
		t.Fatalf("spec.version %q, want %q", m.Spec.Version, releaseVersion)
	}
	archive := func(set labels.Set) string {
		return filepath.Join(dist, "kubectl-fed-"+set["os"]+"-"+set["arch"]+".tar.gz")
	}

	// sha256sums.txt: one line per archive, each the archive's sum (krew checks the
	// manifest's sums against the archives below).
	sums, err := os.ReadFile(filepath.Join(dist, "sha256sums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, set := range releasePlatforms {
		lines = append(lines, fileSHA256(t, archive(set))+"  "+filepath.Base(archive(set))+"\n")
	}
	if string(sums) != strings.Join(lines, "") {
		t.Errorf("sha256sums.txt:\n%swant:\n%s", sums, strings.Join(lines, ""))
	}

	for _, set := range releasePlatforms {
		t.Run(set["os"]+"/"+set["arch"], func(t *testing.T) {
			k := newKrewRoot(t, "KREW_OS="+set["os"], "KREW_ARCH="+set["arch"])
			k.install(manifest, archive(set))
			k.checkInstalled(manifest, releaseVersion)
		})
	}

	here := labels.Set{"os": runtime.GOOS, "arch": runtime.GOARCH}
	var hereArchive, otherArchive string
	for _, set := range releasePlatforms {
		if labels.Equals(set, here) {
			hereArchive = archive(set)
		} else if otherArchive == "" {
			otherArchive = archive(set)
		}
	}
	if hereArchive == "" {
		t.Skipf("make release builds no archive for %s/%s", runtime.GOOS, runtime.GOARCH)
	}

	t.Run("this machine", func(t *testing.T) {
		k := newKrewRoot(t)
		k.install(manifest, hereArchive)
		k.checkInstalled(manifest, releaseVersion)

		// krew's bin/kubectl-fed runs, as the manifest's version.
		fed := exec.Command(filepath.Join(k.dir, "bin", "kubectl-fed"), "version", "--client")
		fed.Env = append(k.env, "KUBECONFIG="+filepath.Join(k.home, "none"))
		if out, err := fed.Output(); err != nil || string(out) != "Client Version: "+releaseVersion+"\n" {
			t.Errorf("%s version --client: %v, printed %q, want %q", fed.Path, err, out, "Client Version: "+releaseVersion+"\n")
		}

		// kubectl list needs an index (it refuses a KREW_ROOT without any, and its default
		// index is a clone of GitHub's krew-index): an empty one of a local repository.
		if _, err := exec.LookPath("git"); err != nil {
			t.Fatalf("git: %v (krew keeps its indexes in git)", err)
		}
		index := filepath.Join(t.TempDir(), "index.git")
		git := exec.Command("git", "init", "--quiet", "--bare", index)
		git.Env = k.env
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		if _, stderr, err := k.krew("index", "add", "local", index); err != nil {
			t.Fatalf("kubectl krew index add: %v\n%s", err, stderr)
		}
		// Not on a terminal, krew list prints the names alone; fed came from no index.
		if out, stderr, err := k.krew("list"); err != nil || out != "detached/fed\n" {
			t.Errorf("kubectl krew list: %v, printed %q, want %q\n%s", err, out, "detached/fed\n", stderr)
		}

		// kubectl finds the plugin in krew's bin directory; kubectl itself comes from
		// another directory of PATH (not the repository's bin/, which has a kubectl-fed too).
		kubectlDir := t.TempDir()
		if err := os.Symlink(filepath.Join(root, "bin", "kubectl"), filepath.Join(kubectlDir, "kubectl")); err != nil {
			t.Fatal(err)
		}
		env := []string{"PATH=" + filepath.Join(k.dir, "bin") + string(os.PathListSeparator) + kubectlDir, "HOME=" + k.home, "KUBECONFIG=" + filepath.Join(k.home, "none")}
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
		if out := run("plugin", "list"); !strings.Contains(out, filepath.Join(k.dir, "bin", "kubectl-fed")) {
			t.Errorf("kubectl plugin list does not list %s:\n%s", filepath.Join(k.dir, "bin", "kubectl-fed"), out)
		}
		if out := run("fed", "version", "--client"); out != "Client Version: "+releaseVersion+"\n" {
			t.Errorf("kubectl fed version --client printed %q, want %q", out, "Client Version: "+releaseVersion+"\n")
		}
		var v struct {
			ClientVersion struct {
				GitVersion, GitCommit, Platform, Major, Minor string
			} `json:"clientVersion"`
		}
		if err := json.Unmarshal([]byte(run("fed", "version", "--client", "-o", "json")), &v); err != nil {
			t.Fatal(err)
		}
		if c := v.ClientVersion; c.GitVersion != releaseVersion || c.Platform != runtime.GOOS+"/"+runtime.GOARCH || c.Major != "0" || c.Minor != "0" {
			t.Errorf("kubectl fed version --client -o json: %+v", c)
		}

		// Completion: the caveats' command links kubectl_complete-fed beside kubectl-fed, and
		// kubectl's plugin completion runs it.
		var link string
		for sc := bufio.NewScanner(strings.NewReader(m.Spec.Caveats)); sc.Scan(); {
			if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "ln -s ") {
				link = l
			}
		}
		if link == "" {
			t.Fatalf("the caveats give no ln -s command for kubectl_complete-fed:\n%s", m.Spec.Caveats)
		}
		sh := exec.Command("sh", "-c", link)
		sh.Env = k.env
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", link, err, out)
		}
		if out := run("__complete", "fed", "ver"); !strings.HasPrefix(out, "version\t") {
			t.Errorf("kubectl __complete fed ver printed %q, want the version command", out)
		}

		// The link is the user's, not krew's: krew leaves it in its bin directory, and with no
		// plugin left installed (here not even krew, which a user's krew has installed itself)
		// it would take a file in its bin directory without a receipt for a krew home of
		// before 0.3 and refuse to run.
		if err := os.Remove(filepath.Join(k.dir, "bin", "kubectl_complete-fed")); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := k.krew("uninstall", "fed"); err != nil {
			t.Fatalf("kubectl krew uninstall fed: %v\n%s", err, stderr)
		}
		if out, stderr, err := k.krew("list"); err != nil || out != "\n" {
			t.Errorf("kubectl krew list after uninstall: %v, printed %q\n%s", err, out, stderr)
		}
		if _, err := os.Lstat(filepath.Join(k.dir, "bin", "kubectl-fed")); !os.IsNotExist(err) {
			t.Errorf("krew's bin/kubectl-fed after uninstall: %v", err)
		}
	})

	// What krew refuses: nothing of fed is installed.
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	hereSum := fileSHA256(t, hereArchive)
	for _, c := range []struct {
		name, manifest, archive, why string
	}{{
		name:     "wrong sha256",
		manifest: strings.Replace(string(data), "sha256: "+hereSum, "sha256: "+strings.Repeat("ab", 32), 1),
		archive:  hereArchive,
		why:      "checksum does not match",
	}, {
		name:     "another platform's archive",
		manifest: string(data),
		archive:  otherArchive,
		why:      "checksum does not match",
	}, {
		name:     "a file not in the archive",
		manifest: strings.ReplaceAll(string(data), "from: LICENSE", "from: COPYING"),
		archive:  hereArchive,
		why:      "no files in the plugin archive matched",
	}} {
		t.Run(c.name, func(t *testing.T) {
			if c.manifest == string(data) && c.archive == hereArchive {
				t.Fatal("the case changes nothing")
			}
			file := filepath.Join(t.TempDir(), "krew-manifest.yaml")
			if err := os.WriteFile(file, []byte(c.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			k := newKrewRoot(t)
			_, stderr, err := k.krew("install", "--manifest="+file, "--archive="+c.archive)
			if err == nil || !strings.Contains(stderr, c.why) {
				t.Errorf("kubectl krew install: %v, want a failure saying %q:\n%s", err, c.why, stderr)
			}
			for _, p := range []string{filepath.Join(k.dir, "bin", "kubectl-fed"), filepath.Join(k.dir, "receipts", "fed.yaml"), filepath.Join(k.dir, "store", "fed", releaseVersion)} {
				if _, err := os.Lstat(p); !os.IsNotExist(err) {
					t.Errorf("%s after a failed install: %v", p, err)
				}
			}
		})
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
