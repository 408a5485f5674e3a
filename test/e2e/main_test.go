// Package e2e holds the end-to-end suites. They run against the lab of the repository's
// .lab when `make up` is running, otherwise against a lab of their own for the run.
package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/test/lab"
)

var theLab *lab.Lab

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped in -short mode")
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	l, stop, err := lab.Shared(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: the lab did not start:", err)
		os.Exit(1)
	}
	theLab = l
	earlyRelease.start()
	code := m.Run()
	earlyRelease.remove()
	if kubectlFed.dir != "" {
		_ = os.RemoveAll(kubectlFed.dir)
	}
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stopping the lab:", err)
		code = 1
	}
	os.Exit(code)
}

// kubectl runs the lab's kubectl with a kubeconfig and returns its standard output; a
// failure fails the test with kubectl's standard error.
func kubectl(t testing.TB, kubeconfig string, args ...string) string {
	t.Helper()
	out, err := runKubectl(kubeconfig, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// kubectlStdin is kubectl with stdin.
func kubectlStdin(t testing.TB, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	out, err := runKubectlWith(kubeconfig, stdin, nil, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// kubectlEnv is kubectl with extra environment variables (KUBE_EDITOR for kubectl edit).
func kubectlEnv(t testing.TB, kubeconfig string, env []string, args ...string) string {
	t.Helper()
	out, err := runKubectlWith(kubeconfig, "", env, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func runKubectl(kubeconfig string, args ...string) (string, error) {
	return runKubectlWith(kubeconfig, "", nil, args...)
}

func runKubectlWith(kubeconfig, stdin string, env []string, args ...string) (string, error) {
	root, err := lab.RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "bin", "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// clientConfigFor loads a kubeconfig file.
func clientConfigFor(kubeconfig string) (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", kubeconfig)
}

// waitFor polls f every 200ms until it succeeds, failing the test (or benchmark) at the
// timeout.
func waitFor(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %v", timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// holds checks that f keeps succeeding for d (a state that must not change), polling
// every 200ms.
func holds(t testing.TB, d time.Duration, f func() error) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
}

// hostClients returns the host admin's clientset and fed's clientset through the host.
func hostClients(t testing.TB) (kubernetes.Interface, versioned.Interface) {
	t.Helper()
	cfg, err := theLab.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	host, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fed, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return host, fed
}

// buildKubectlFed builds the plugin from the working tree, as `make` would, for tests and
// benchmarks alike: once for the whole run (a link takes seconds), in a directory removed
// when the run ends.
func buildKubectlFed(tb testing.TB) string {
	tb.Helper()
	kubectlFed.once.Do(func() {
		root, err := lab.RepoRoot()
		if err != nil {
			kubectlFed.err = err
			return
		}
		dir, err := os.MkdirTemp("", "e2e-kubectl-fed-")
		if err != nil {
			kubectlFed.err = err
			return
		}
		kubectlFed.dir = dir
		bin := filepath.Join(dir, "kubectl-fed")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-fed")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			kubectlFed.err = fmt.Errorf("building kubectl-fed: %v\n%s", err, out)
			return
		}
		kubectlFed.bin = bin
	})
	if kubectlFed.err != nil {
		tb.Fatal(kubectlFed.err)
	}
	return kubectlFed.bin
}

// kubectlFed is the plugin built for the run.
var kubectlFed struct {
	once     sync.Once
	bin, dir string
	err      error
}

// runFed runs a kubectl-fed binary against the lab's host and returns its standard output
// and error.
func runFed(bin string, args ...string) (string, string, error) {
	cmd := exec.Command(bin, append([]string{"--kubeconfig", theLab.Host.Kubeconfig}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// fedLogMark is where fed-apiserver's log ends now, for noPanicSince.
func fedLogMark() int64 {
	if fi, err := os.Stat(filepath.Join(theLab.Dir(), "logs", "fed-apiserver.log")); err == nil {
		return fi.Size()
	}
	return 0
}

// noPanicSince fails the test if fed-apiserver's log has a panic after mark.
func noPanicSince(t testing.TB, mark int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(theLab.Dir(), "logs", "fed-apiserver.log"))
	if err != nil || int64(len(data)) < mark {
		return
	}
	if tail := string(data[mark:]); strings.Contains(tail, "panic") {
		i := strings.Index(tail, "panic")
		t.Errorf("fed-apiserver's log has a panic since the test started:\n%s", tail[max(0, i-200):min(len(tail), i+2000)])
	}
}
