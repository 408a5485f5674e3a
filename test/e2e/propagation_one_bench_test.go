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

// BenchmarkPropagationOneTemplate is the latency of one template to three idle members:
// with the bench's policy (Duplicated to the three members) in place, each iteration creates
// one Deployment in the fleet and times it until watches of the three members, started
// before, have all seen it; the Deployment is deleted, off the clock, before the next one.
// fed reacts to watch events all the way (no polling), so this is the pipeline's own delay.
func BenchmarkPropagationOneTemplate(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := newPropagationClients()
	if err != nil {
		b.Fatal(err)
	}
	ns := fmt.Sprintf("bench-one-%d", time.Now().UnixNano()%1_000_000_000)
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
	var latencies []time.Duration
	b.ResetTimer()
	for i := range b.N {
		created := time.Now()
		if _, err := deployments.Create(ctx, benchDeployment(i), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := arrived.waitFor(ctx, 1, time.Minute); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, arrived.lastOf(benchDeploymentName(i)).Sub(created))
		b.StopTimer()
		if err := deployments.Delete(ctx, benchDeploymentName(i), metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := arrived.waitFor(ctx, 0, time.Minute); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(latencies)
	p50, p99, worst := percentile(latencies, 0.5), percentile(latencies, 0.99), percentile(latencies, 1)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(worst), "max-ms")
	fmt.Printf("one Deployment created in the fleet until all %d idle members have it (%d times): p50 %s, p99 %s, max %s (target: under 150 ms)\n",
		len(labMembers), len(latencies), p50.Round(time.Millisecond), p99.Round(time.Millisecond), worst.Round(time.Millisecond))
}

// lastOf is when the last source first saw the object name.
func (a *arrivals) lastOf(name string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var last time.Time
	for _, objs := range a.first {
		if t := objs[name]; t.After(last) {
			last = t
		}
	}
	return last
}

// BenchmarkPropagationMemory propagates 10,000 Deployments (replicas 0) to the three members
// (30,000 member objects) and reports fed-apiserver's memory when the last one arrived. The
// members' controller managers are stopped meanwhile: this measures fed, and the members'
// own work on 30,000 Deployments would take this machine half an hour.
func BenchmarkPropagationMemory(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Minute)
	defer cancel()
	c, err := newPropagationClients()
	if err != nil {
		b.Fatal(err)
	}
	c.templates = 10 * propagationTemplates
	idle, err := c.fedMemory(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var r propagationRun
	for range b.N {
		if r, err = c.run(ctx, b, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.memory.rss/(1<<20), "rss-MiB")
	b.ReportMetric(r.memory.peak/(1<<20), "peak-rss-MiB")
	b.ReportMetric(r.memory.file/(1<<20), "file-rss-MiB")
	b.ReportMetric(r.memory.heap/(1<<20), "heap-MiB")
	b.ReportMetric(r.all.Seconds(), "s")
	fmt.Printf("fed-apiserver before: %s; with %d templates propagated (%d member objects, %s after the policy, %.1f ms of fed-apiserver's CPU and %.2f writes per template): %s (target: RSS under 500 MB)\n",
		idle, c.templates, c.templates*len(labMembers), r.all.Round(time.Second),
		ms(r.cpu.roles["fed-apiserver"])/float64(c.templates), r.fedWrites/float64(c.templates), r.memory)
}
