package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// topRows parses kubectl fed top's output, kubectl top's table of each member under a line
// "Cluster: NAME", into its rows' fields keyed "NAME CLUSTER".
func topRows(out string) map[string][]string {
	m := map[string][]string{}
	cluster := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "Cluster:":
			cluster = f[1]
		case len(f) == 0 || f[0] == "NAME":
		default:
			m[f[0]+" "+cluster] = f
		}
	}
	return m
}

// TestFedTop checks kubectl fed top against the lab's members, whose metrics-servers scrape
// the usage kwok simulates: every member's nodes under their cluster, and the pods of one
// namespace made in two members with the usage their annotations ask kwok for.
func TestFedTop(t *testing.T) {
	t.Parallel()
	bin := buildKubectlFed(t)

	t.Run("node", func(t *testing.T) {
		out, stderr, err := runFed(bin, "top", "node")
		if err != nil {
			// Another test may have joined a cluster of its own; the lab's must not fail.
			for _, m := range theLab.Members {
				if strings.Contains(stderr, "cluster "+m.Name+":") {
					t.Fatalf("kubectl fed top node: %v\n%s", err, stderr)
				}
			}
		}
		if lines := strings.SplitN(out, "\n", 3); len(lines) < 3 || !strings.HasPrefix(lines[0], "Cluster: ") || !strings.HasPrefix(lines[1], "NAME") {
			t.Errorf("no Cluster line and header:\n%s", out)
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
				if len(f) != 5 || !strings.HasSuffix(f[1], "m") || !strings.HasSuffix(f[3], "Mi") || !strings.HasSuffix(f[2], "%") {
					t.Errorf("row %q: %v, want CPU(cores) CPU(%%) MEMORY(bytes) MEMORY(%%)", key, f)
				}
			}
		}
	})

	t.Run("nodes through the fleet API", func(t *testing.T) {
		fleet := theLab.FleetKubeconfig()
		// The fleet's nodes are the members' (each labelled with its cluster), so kubectl
		// top nodes has their capacity for its percentages.
		out := kubectl(t, fleet, "top", "nodes")
		rows := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(line)
			rows[f[0]] = f
		}
		for _, m := range theLab.Members {
			for i := 0; i < m.Member.Nodes; i++ {
				name := fmt.Sprintf("%s-node-%d", m.Name, i)
				if f := rows[name]; len(f) != 5 || !strings.HasSuffix(f[2], "%") || !strings.HasSuffix(f[4], "%") {
					t.Errorf("kubectl top nodes through the fleet, %s: %v, want CPU(cores) CPU(%%) MEMORY(bytes) MEMORY(%%)\n%s", name, f, out)
				}
			}
		}
		out = kubectl(t, fleet, "get", "nodes", "-l", "cluster.fedhq.io/cluster=member3")
		if !regexp.MustCompile(`(?m)^NAME +CLUSTER +STATUS`).MatchString(out) || !strings.Contains(out, "member3-node-0   member3") || strings.Contains(out, "member1-node-0") {
			t.Errorf("kubectl get nodes -l cluster.fedhq.io/cluster=member3 through the fleet:\n%s", out)
		}
		if out, err := runKubectl(fleet, "delete", "node", "member1-node-0"); err == nil || !strings.Contains(err.Error(), "MethodNotAllowed") {
			t.Errorf("kubectl delete node through the fleet: %v\n%s, want MethodNotAllowed", err, out)
		}
	})

	t.Run("pod", func(t *testing.T) {
		ns := fmt.Sprintf("e2e-top-%d", time.Now().UnixNano()%1000000)
		want := map[string]string{"member1": "64Mi", "member2": "96Mi"}
		all := map[string]string{"member1": "64Mi", "member2": "96Mi", "member3": "32Mi"}
		for m, mem := range all {
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
			out, stderr, err = runFed(bin, "top", "pod", "-n", ns, "-C", "member1,member2")
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
			if len(f) != 3 || f[2] != mem || !strings.HasSuffix(f[1], "m") {
				t.Errorf("web-%s: %v, want CPU(cores) and %s", m, f, mem)
			}
		}

		// Plain kubectl top through the fleet API: the fleet's metrics.k8s.io merges the
		// members', each item labelled with its cluster.
		fleet := theLab.FleetKubeconfig()
		waitFor(t, time.Minute, func() error {
			out = kubectl(t, fleet, "top", "pods", "-n", ns)
			for m, mem := range all {
				if !regexp.MustCompile(`(?m)^web-` + m + ` +\d+m +` + mem + ` *$`).MatchString(out) {
					return fmt.Errorf("kubectl top pods through the fleet lacks web-%s (%s):\n%s", m, mem, out)
				}
			}
			return nil
		})
		out = kubectl(t, fleet, "top", "pods", "-n", ns, "-l", "cluster.fedhq.io/cluster=member2")
		if strings.Contains(out, "web-member1") || !strings.Contains(out, "web-member2") {
			t.Errorf("kubectl top pods -l cluster.fedhq.io/cluster=member2 through the fleet:\n%s", out)
		}
		out = kubectl(t, fleet, "get", "podmetrics", "-n", ns)
		if !strings.Contains(out, "CLUSTER") || !strings.Contains(out, "web-member1   member1") {
			t.Errorf("kubectl get podmetrics through the fleet:\n%s", out)
		}
	})

}
