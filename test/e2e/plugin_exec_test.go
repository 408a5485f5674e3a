package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fedPods creates a Deployment app=name with replicas pods in a member (namespace ns) and
// returns the names of its pods once they run.
func fedPods(t *testing.T, member, ns, name string, replicas int) []string {
	t.Helper()
	kc := theLab.Member(member).Kubeconfig
	if _, err := runKubectl(kc, "get", "namespace", ns); err != nil {
		kubectl(t, kc, "create", "namespace", ns)
		t.Cleanup(func() { _, _ = runKubectl(kc, "delete", "namespace", ns, "--wait=false") })
	}
	kubectl(t, kc, "-n", ns, "create", "deployment", name, "--image", "nginx", "--replicas", fmt.Sprint(replicas))
	var pods []string
	waitFor(t, 60*time.Second, func() error {
		out, err := runKubectl(kc, "-n", ns, "get", "pods", "-l", "app="+name, "--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}")
		if err != nil {
			return err
		}
		pods = strings.Fields(out)
		if len(pods) != replicas {
			return fmt.Errorf("%s: %d of %d pods run", member, len(pods), replicas)
		}
		return nil
	})
	return pods
}

// fedRunner runs a kubectl fed binary against the lab's host.
type fedRunner string

func (fed fedRunner) run(args ...string) (string, string, error) { return runFed(string(fed), args...) }

func (fed fedRunner) ok(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := fed.run(args...)
	if err != nil {
		t.Fatalf("kubectl fed %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// follow starts kubectl fed with args and returns the first line of its output that
// contains want, failing after timeout; the command is killed at the end of the test.
func (fed fedRunner) follow(t *testing.T, timeout time.Duration, want string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, string(fed), append([]string{"--kubeconfig", theLab.Host.Kubeconfig}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("kubectl fed %s ended without printing %q: %s", strings.Join(args, " "), want, stderr.String())
			}
			if strings.Contains(line, want) {
				return line
			}
		case <-deadline:
			t.Fatalf("kubectl fed %s printed no %q within %s", strings.Join(args, " "), want, timeout)
		}
	}
}

// TestFedExecLogsDescribe covers kubectl fed exec, logs and describe on pods of member1
// (2 replicas) and member2 (1 replica), reached through fed's cluster proxy.
func TestFedExecLogsDescribe(t *testing.T) {
	t.Parallel()
	fed := fedRunner(buildKubectlFed(t))
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	ns, app := "fed-exec-"+suffix, "web-"+suffix
	pods1 := fedPods(t, "member1", ns, app, 2)
	pods2 := fedPods(t, "member2", ns, app, 1)
	pod := pods1[0]

	t.Run("TestFedExec", func(t *testing.T) {
		// kwok runs the command in the member's exec directory, on this machine.
		out := fed.ok(t, "exec", pod, "-n", ns, "-C", "member1", "--", "echo", "hello")
		if strings.TrimSpace(out) != "hello" {
			t.Errorf("exec printed %q, want hello", out)
		}
		out = fed.ok(t, "exec", pod, "-n", ns, "-C", "member1", "--", "pwd")
		if !strings.HasSuffix(strings.TrimSpace(out), "member1/exec") {
			t.Errorf("exec ran in %q, not in member1's exec directory", out)
		}
		// The pod is not in member2.
		if _, errOut, err := fed.run("exec", pod, "-n", ns, "-C", "member2", "--", "echo", "hello"); err == nil || !strings.Contains(errOut, "NotFound") {
			t.Errorf("exec in the wrong member: %v, %q, want NotFound", err, errOut)
		}
		for _, args := range [][]string{
			{"exec", pod, "-n", ns, "--", "echo", "hello"},
			{"exec", pod, "-n", ns, "-C", "member1,member2", "--", "echo", "hello"},
		} {
			_, errOut, err := fed.run(args...)
			if err == nil || !strings.Contains(errOut, "specify the member cluster of the pod with -C NAME") {
				t.Errorf("kubectl fed %s: %v, %q, want the usage error", strings.Join(args, " "), err, errOut)
			}
		}
		if _, errOut, err := fed.run("exec", pod, "-n", ns, "-C", "nosuchmember", "--", "echo"); err == nil || !strings.Contains(errOut, `no member cluster "nosuchmember"`) {
			t.Errorf("exec in an unknown member: %v, %q", err, errOut)
		}
	})

	t.Run("TestFedLogs", func(t *testing.T) {
		out := fed.ok(t, "logs", pod, "-n", ns, "-C", "member1")
		for i := 1; i <= 5; i++ {
			if !strings.Contains(out, fmt.Sprintf("member1: log line %d", i)) {
				t.Errorf("logs lack line %d: %q", i, out)
			}
		}
		if _, errOut, err := fed.run("logs", pod, "-n", ns); err == nil || !strings.Contains(errOut, "specify the member cluster of the pod with -C NAME") {
			t.Errorf("logs without -C: %v, %q", err, errOut)
		}
		// --tail and --timestamps are kubectl's.
		out = fed.ok(t, "logs", pod, "-n", ns, "-C", "member1", "--tail=1", "--timestamps")
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "2026-") || !strings.Contains(lines[0], "member1: log line 5") {
			t.Errorf("logs --tail=1 --timestamps: %q", out)
		}

		// -l across members: every pod's lines, each prefixed with cluster/pod/container.
		out = fed.ok(t, "logs", "-l", "app="+app, "-n", ns)
		for _, p := range pods1 {
			if want := "[member1/" + p + "/nginx] member1: log line 5"; !strings.Contains(out, want) {
				t.Errorf("logs -l lack %q: %q", want, out)
			}
		}
		if want := "[member2/" + pods2[0] + "/nginx] member2: log line 1"; !strings.Contains(out, want) {
			t.Errorf("logs -l lack %q: %q", want, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(line, "[member") || strings.Count(line, "log line") != 1 {
				t.Errorf("logs -l printed the line %q, want one prefixed log line", line)
			}
		}
		// -C narrows the members.
		out = fed.ok(t, "logs", "-l", "app="+app, "-n", ns, "-C", "member2,member3")
		if strings.Contains(out, "[member1/") || !strings.Contains(out, "[member2/") {
			t.Errorf("logs -l -C member2,member3: %q", out)
		}
	})

	t.Run("TestFedLogsFollow", func(t *testing.T) {
		line := fed.follow(t, 20*time.Second, "member1: log line", "logs", "-f", pod, "-n", ns, "-C", "member1")
		t.Logf("logs -f: %s", line)
		line = fed.follow(t, 20*time.Second, "[member2/", "logs", "-f", "-l", "app="+app, "-n", ns)
		if !strings.Contains(line, "member2: log line") {
			t.Errorf("logs -f -l printed %q", line)
		}
	})

	t.Run("TestFedDescribe", func(t *testing.T) {
		out := fed.ok(t, "describe", "pod", pod, "-n", ns, "-C", "member1")
		for _, want := range []string{"Name:", pod, "Node:", "member1-node-"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe lacks %q: %.500s", want, out)
			}
		}
		out = fed.ok(t, "describe", "deployment", app, "-n", ns, "-C", "member1,member2")
		i1, i2 := strings.Index(out, "Cluster: member1\n"), strings.Index(out, "Cluster: member2\n")
		if i1 < 0 || i2 < i1 || !strings.Contains(out[i1:i2], "2 desired") || !strings.Contains(out[i2:], "1 desired") {
			t.Errorf("describe in member1 and member2: %s", out)
		}
		if _, errOut, err := fed.run("describe", "pod", pod, "-n", ns); err == nil || !strings.Contains(errOut, "-C NAME") {
			t.Errorf("describe without -C: %v, %q", err, errOut)
		}
	})

	t.Run("TestFedAttach", func(t *testing.T) {
		// kwok's simulated attach follows the member's attach.log (test/lab/nodes.go).
		attachLog := filepath.Join(theLab.Member("member1").Dir, "attach.log")
		if _, err := os.Stat(attachLog); err != nil {
			t.Skipf("the lab's kwok simulates no attach (%v)", err)
		}
		if _, errOut, err := fed.run("attach", pod, "-n", ns); err == nil || !strings.Contains(errOut, "specify the member cluster of the pod with -C NAME") {
			t.Errorf("attach without -C: %v, %q", err, errOut)
		}
		marker := "attached-" + suffix
		stop := make(chan struct{})
		defer close(stop)
		go func() { // what the container prints while attached
			for {
				select {
				case <-stop:
					return
				case <-time.After(500 * time.Millisecond):
				}
				f, err := os.OpenFile(attachLog, os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					return
				}
				fmt.Fprintf(f, "%s stdout F %s\n", time.Now().UTC().Format(time.RFC3339Nano), marker)
				f.Close()
			}
		}()
		fed.follow(t, 20*time.Second, marker, "attach", pod, "-n", ns, "-C", "member1")
	})
}
