package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// topFed runs kubectl-fed top against the lab's host.
func topFed(bin string, args ...string) (string, string, error) {
	cmd := exec.Command(bin, append([]string{"--kubeconfig", theLab.Host.Kubeconfig, "top"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// topRows parses a table of kubectl fed top into its rows' fields, keyed "NAME CLUSTER"
// (the first two columns).
func topRows(out string) map[string][]string {
	m := map[string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 2 {
			continue
		}
		m[f[0]+" "+f[1]] = f
	}
	return m
}

// TestFedTop checks kubectl fed top against the lab's members, whose metrics-servers scrape
// the usage kwok simulates: every member's nodes with their CLUSTER, and the pods of one
// namespace made in two members with the usage their annotations ask kwok for.
func TestFedTop(t *testing.T) {
	bin := buildKubectlFed(t)

	t.Run("node", func(t *testing.T) {
		out, stderr, err := topFed(bin, "node")
		if err != nil {
			// Another test may have joined a cluster of its own; the lab's must not fail.
			for _, m := range theLab.Members {
				if strings.Contains(stderr, "cluster "+m.Name+":") {
					t.Fatalf("kubectl fed top node: %v\n%s", err, stderr)
				}
			}
		}
		if !strings.HasPrefix(out, "NAME") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "CLUSTER") {
			t.Errorf("no header with CLUSTER:\n%s", out)
		}
		rows := topRows(out)
		for _, m := range theLab.Members {
			for i := 0; i < m.Member.Nodes; i++ {
				key := fmt.Sprintf("%s-node-%d %s", m.Name, i, m.Name)
				f, ok := rows[key]
				if !ok {
					t.Errorf("no row %q in:\n%s", key, out)
					continue
				}
				if len(f) != 6 || !strings.HasSuffix(f[2], "m") || !strings.HasSuffix(f[4], "Mi") || !strings.HasSuffix(f[3], "%") {
					t.Errorf("row %q: %v, want CPU(cores) CPU(%%) MEMORY(bytes) MEMORY(%%)", key, f)
				}
			}
		}
	})

	t.Run("pod", func(t *testing.T) {
		ns := fmt.Sprintf("e2e-top-%d", time.Now().UnixNano()%1000000)
		want := map[string]string{"member1": "64Mi", "member2": "96Mi"}
		for m, mem := range want {
			kc := theLab.Member(m).Kubeconfig
			kubectl(t, kc, "create", "namespace", ns)
			t.Cleanup(func() { _, _ = runKubectl(kc, "delete", "namespace", ns, "--wait=false") })
			kubectl(t, kc, "run", "web-"+m, "-n", ns, "--image=nginx:1.27",
				"--annotations=kwok.x-k8s.io/usage-cpu=100m", "--annotations=kwok.x-k8s.io/usage-memory="+mem)
		}
		var out string
		// metrics-server needs two scrapes of a new pod (10s apart) to tell its CPU rate.
		waitFor(t, 2*time.Minute, func() error {
			var stderr string
			var err error
			out, stderr, err = topFed(bin, "pod", "-n", ns, "-C", "member1,member2")
			if err != nil {
				return fmt.Errorf("%v: %s", err, stderr)
			}
			rows := topRows(out)
			for m := range want {
				if _, ok := rows["web-"+m+" "+m]; !ok {
					return fmt.Errorf("no metrics of web-%s in %s yet:\n%s%s", m, m, out, stderr)
				}
			}
			return nil
		})
		rows := topRows(out)
		if len(rows) != 2 {
			t.Errorf("%d rows, want the 2 pods:\n%s", len(rows), out)
		}
		for m, mem := range want {
			f := rows["web-"+m+" "+m]
			if len(f) != 4 || f[3] != mem || !strings.HasSuffix(f[2], "m") {
				t.Errorf("web-%s: %v, want CPU(cores) and %s", m, f, mem)
			}
		}
	})
}
