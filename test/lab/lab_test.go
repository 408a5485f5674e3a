package lab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func binDir(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	if _, err := os.Stat(filepath.Join(bin, "kube-apiserver")); err != nil {
		if testing.Short() {
			t.Skip("needs the lab's binaries (make bin)")
		}
		t.Fatalf("the lab's binaries are missing: %v (run `make bin`)", err)
	}
	return bin
}

// TestCrashIsReportedWithLogTail starts a real kube-apiserver that cannot start and checks
// the wait ends at once with the process's own last words, not at the time-out.
func TestCrashIsReportedWithLogTail(t *testing.T) {
	l, err := New(Options{Dir: t.TempDir(), BinDir: binDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := l.process("broken-apiserver", "kube-apiserver", []string{"--secure-port=-1"})
	if err := p.start(false); err != nil {
		t.Fatal(err)
	}
	defer p.stop(time.Second)

	start := time.Now()
	err = l.waitFor(context.Background(), "broken apiserver", []*process{p}, func(context.Context) error {
		return errors.New("not ready")
	})
	var pe *ProcessError
	if !errors.As(err, &pe) {
		t.Fatalf("waitFor = %v, want a *ProcessError", err)
	}
	if pe.Name != "broken-apiserver" || !strings.Contains(pe.LogTail, "secure-port") {
		t.Errorf("error names %q with log tail %q; want the process and its complaint about --secure-port", pe.Name, pe.LogTail)
	}
	if !strings.Contains(err.Error(), pe.Log) {
		t.Errorf("error %q does not name the log file %s", err, pe.Log)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the crash was reported after %s; it should not wait for a time-out", d)
	}
}

// TestStopOnlyOwnProcess checks a PID file pointing at another program is not killed.
func TestStopOnlyOwnProcess(t *testing.T) {
	dir := t.TempDir()
	p := &process{name: "x", bin: "/nonexistent/kube-apiserver", dir: dir}
	if err := os.MkdirAll(filepath.Dir(p.pidPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	// Our own PID runs the test binary, not kube-apiserver: it must not count as the lab's.
	if err := os.WriteFile(p.pidPath(), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	if p.alive() {
		t.Fatal("a PID running another program counts as the lab process")
	}
	if err := p.stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.pidPath()); !os.IsNotExist(err) {
		t.Errorf("stale PID file kept: %v", err)
	}
}
