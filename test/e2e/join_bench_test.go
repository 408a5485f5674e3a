package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/test/lab"
)

// BenchmarkJoinToReady times `kubectl fed join --wait` of a lab member, from the command's
// start (process start included) until it reports the Cluster Ready, as a user sees it.
// Each iteration first unjoins the member and waits for the cleanup (not timed).
func BenchmarkJoinToReady(b *testing.B) {
	m := theLab.Member("member1")
	root, err := lab.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	fed := filepath.Join(root, "bin", "kubectl-fed")
	run := func(args ...string) {
		cmd := exec.Command(fed, append([]string{"--kubeconfig", theLab.Host.Kubeconfig}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("kubectl fed %v: %v\n%s", args, err, out)
		}
	}
	b.Cleanup(func() {
		if err := theLab.JoinMembers(context.Background()); err != nil {
			b.Errorf("joining the lab's members again: %v", err)
		}
	})
	member, err := m.Client()
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		run("unjoin", m.Name, "--cluster-kubeconfig", m.Kubeconfig)
		// A join right after an unjoin first waits for the member to finish deleting fed's
		// namespace; that is the unjoin's cost, not the join's.
		for {
			_, err := member.CoreV1().Namespaces().Get(context.Background(), clusterv1alpha1.FedNamespace, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.StartTimer()
		start := time.Now()
		run("join", m.Name, "--cluster-kubeconfig", m.Kubeconfig, "--region", m.Member.Region,
			"--zone", m.Member.Zone, "--provider", m.Member.Provider, "--wait", "--timeout", "60s")
		total += time.Since(start)
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/join")
}
