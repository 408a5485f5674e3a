package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkPullMode registers member3 in pull mode (its agent a local process) and reports
// the time from kubectl fed register to its Cluster Ready, then the latency of one template
// to each member in the same run: member3 through its agent (which watches its Works
// through the host's aggregation layer), member1 and member2 pushed by fed-apiserver. Each
// iteration creates one Deployment that the bench's policy duplicates to the three members
// and times it until each member's watch has it.
func BenchmarkPullMode(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const pull = "member3"
	took := registerPull(b, buildKubectlFed(b), pull)
	c, err := newPropagationClients()
	if err != nil {
		b.Fatal(err)
	}
	ns := fmt.Sprintf("bench-pull-%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := c.fleet.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	defer c.cleanUp(ns)
	if _, err := c.fed.FederationV1alpha1().PropagationPolicies(ns).Create(ctx, benchPolicy(), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	arrived, err := c.watchMembers(ctx, ns)
	if err != nil {
		b.Fatal(err)
	}
	deployments := c.fleet.AppsV1().Deployments(ns)
	latencies := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		created := time.Now()
		if _, err := deployments.Create(ctx, benchDeployment(i), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := arrived.waitFor(ctx, 1, time.Minute); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		arrived.mu.Lock()
		for m, objs := range arrived.first {
			latencies[m] = append(latencies[m], objs[benchDeploymentName(i)].Sub(created))
		}
		arrived.mu.Unlock()
		if err := deployments.Delete(ctx, benchDeploymentName(i), metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := arrived.waitFor(ctx, 0, time.Minute); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(took.Seconds(), "register-to-ready-s")
	fmt.Printf("kubectl fed register to Cluster %s Ready (the agent started right after register): %.1fs\n", pull, took.Seconds())
	for _, m := range labMembers {
		l := latencies[m]
		slices.Sort(l)
		mode := "push"
		if m == pull {
			mode = "pull"
			b.ReportMetric(ms(percentile(l, 0.5)), "pull-p50-ms")
		} else if m == "member1" {
			b.ReportMetric(ms(percentile(l, 0.5)), "push-p50-ms")
		}
		fmt.Printf("one Deployment to %s (%s): p50 %s, p99 %s (%d times)\n", m, mode,
			percentile(l, 0.5).Round(time.Millisecond), percentile(l, 0.99).Round(time.Millisecond), len(l))
	}
}
