package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

const (
	// simLabel marks the simulated Clusters of BenchmarkScaleSimulated, and their taint
	// keeps every workload but the bench's off them.
	simLabel = "bench.fedhq.io/simulated"
	// simTemplates is how many Deployments the simulation fans out to every simulated
	// Cluster.
	simTemplates = 30
)

// simCounts are the fleet sizes BenchmarkScaleSimulated adds.
var simCounts = []int{100, 1000}

// BenchmarkScaleSimulated is a simulation of 100 and 1,000 members where real ones do not
// fit on the machine: Clusters sim-0001.. registered in push mode with the endpoint and
// credentials of the lab's members, in turn (so 1,000 Clusters are probed in about 30 real
// apiservers, each probed as often as its share of them), labelled and tainted NoSchedule so
// that no other workload goes there. fed-apiserver treats each as a member of its own: it
// probes it, keeps its status, nodes and health taints, and has an execution namespace for
// it. At each count it measures:
//   - the Clusters created at once until the last is Ready (the registration through the
//     API, without kubectl fed join's work in the member);
//   - fed-apiserver's idle RSS, heap, goroutines and CPU in a minute, per Cluster added;
//   - 30 Deployments Duplicated to every simulated Cluster with dispatching suspended (the
//     scheduler and the Works written for each, the fan-out; not applied to a member, which
//     is the members' cost, measured for real up to 30): the time from the policy until
//     every Work exists, Works per second, and fed-apiserver's CPU per Work.
//
// It is a simulation, printed as one: what the members would do is not in it. The
// Clusters and everything else it made are removed at the end. make bench-scale runs it.
func BenchmarkScaleSimulated(b *testing.B) {
	ctx := context.Background()
	host, fed := hostClients(b)
	b.Cleanup(func() { removeSimulated(b) })
	removeSimulated(b)
	waitQuiet(2 * time.Minute)
	type row struct {
		fedIdle
		clusters, added int
		ready           time.Duration
		fanout          time.Duration
		works           int
		fanoutCPU       cpuUse
	}
	idle := func(r *row) {
		time.Sleep(10 * time.Second)
		r.fedIdle = measureFedIdle(b)
	}
	clusters, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	base := row{clusters: len(clusters.Items)}
	idle(&base)
	b.Logf("%d real members: idle RSS %d MiB, heap %d MiB, %d goroutines, CPU %.2fs a minute", base.clusters, base.rss>>20, base.heap>>20, base.goroutines, base.cpuPerMinute.Seconds())
	rows := []row{base}
	made := 0
	for _, n := range simCounts {
		r := row{added: n - made}
		start := time.Now()
		if err := createSimulated(ctx, host, fed, made, n); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 10*time.Minute, func() error {
			list, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{LabelSelector: simLabel})
			if err != nil {
				return err
			}
			ready := 0
			for _, c := range list.Items {
				if meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
					ready++
				}
			}
			if ready < n {
				return fmt.Errorf("%d of %d simulated Clusters Ready", ready, n)
			}
			return nil
		})
		r.ready = time.Since(start)
		made = n
		r.clusters = base.clusters + n
		waitQuiet(3 * time.Minute)
		idle(&r)
		r.fanout, r.works, r.fanoutCPU = simFanout(ctx, b, n)
		rows = append(rows, r)
		b.Logf("%d simulated Clusters (%d more) Ready in %s; idle RSS %d MiB, heap %d MiB, %d goroutines, CPU %.2fs a minute; %d Works in %s",
			n, r.added, r.ready.Round(100*time.Millisecond), r.rss>>20, r.heap>>20, r.goroutines, r.cpuPerMinute.Seconds(), r.works, r.fanout.Round(100*time.Millisecond))
	}
	fmt.Printf("\nsimulated members (Clusters whose endpoints are the lab's %d members in turn; dispatching suspended, so nothing is applied to a member):\n", len(theLab.Members))
	fmt.Printf("%-9s %-15s %-9s %-9s %-11s %-13s %-28s %s\n", "clusters", "added, Ready", "RSS", "heap", "goroutines", "CPU/min idle", "30 templates' Works", "fed CPU per Work")
	for i, r := range rows {
		added, fanout, perWork := "(the real members)", "", ""
		if i > 0 {
			added = fmt.Sprintf("%d in %.1fs", r.added, r.ready.Seconds())
			fanout = fmt.Sprintf("%d in %.1fs (%.0f/s)", r.works, r.fanout.Seconds(), float64(r.works)/r.fanout.Seconds())
			// Net of idle: less what fed-apiserver uses idle at this count (its probes of the
			// clusters) over as long as the fan-out took.
			all := ms(r.fanoutCPU.roles["fed-apiserver"])
			idle := ms(time.Duration(float64(r.cpuPerMinute) * r.fanout.Minutes()))
			perWork = fmt.Sprintf("%.2f ms (%.2f ms net of idle)", all/float64(r.works), (all-idle)/float64(r.works))
		}
		fmt.Printf("%-9d %-15s %-9s %-9s %-11d %-13s %-28s %s\n", r.clusters, added, fmt.Sprintf("%d MiB", r.rss>>20), fmt.Sprintf("%d MiB", r.heap>>20),
			r.goroutines, fmt.Sprintf("%.2fs", r.cpuPerMinute.Seconds()), fanout, perWork)
	}
	last := rows[len(rows)-1]
	added := float64(last.clusters - base.clusters)
	fmt.Printf("per Cluster added (%d to %d): RSS %.2f MiB, heap %.2f MiB, %.1f goroutines, CPU %.3fs a minute\n", base.clusters, last.clusters,
		(float64(last.rss)-float64(base.rss))/added/(1<<20), (float64(last.heap)-float64(base.heap))/added/(1<<20),
		float64(last.goroutines-base.goroutines)/added, (last.cpuPerMinute-base.cpuPerMinute).Seconds()/added)
	for _, r := range rows[1:] {
		fmt.Printf("  %d Clusters, the fan-out's CPU: %s\n", r.clusters, r.fanoutCPU)
	}
	b.ReportMetric((float64(last.rss)-float64(base.rss))/added/(1<<20), "RSS-MiB/cluster")
}

// createSimulated creates the simulated Clusters from+1..to, each with a copy of the
// credentials of a lab member, in turn, 16 at a time.
func createSimulated(ctx context.Context, host kubernetes.Interface, fed versioned.Interface, from, to int) error {
	var sources []*clusterv1alpha1.Cluster
	var secrets []*corev1.Secret
	for _, m := range theLab.Members {
		c, err := fed.ClusterV1alpha1().Clusters().Get(ctx, m.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the simulation copies the lab's joined members: %w", err)
		}
		s, err := host.CoreV1().Secrets(c.Spec.SecretRef.Namespace).Get(ctx, c.Spec.SecretRef.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		sources, secrets = append(sources, c), append(secrets, s)
	}
	var g errgroup.Group
	g.SetLimit(16)
	for i := from + 1; i <= to; i++ {
		src, secret := sources[i%len(sources)], secrets[i%len(sources)]
		name := fmt.Sprintf("sim-%04d", i)
		g.Go(func() error {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: secret.Namespace, Labels: map[string]string{simLabel: "true"}}, Data: secret.Data}
			if _, err := host.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
				return err
			}
			c := &clusterv1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{simLabel: "true"}},
				Spec: clusterv1alpha1.ClusterSpec{
					SyncMode:    clusterv1alpha1.Push,
					APIEndpoint: src.Spec.APIEndpoint,
					SecretRef:   &clusterv1alpha1.LocalSecretReference{Namespace: s.Namespace, Name: name},
					Provider:    src.Spec.Provider, Region: src.Spec.Region, Zone: src.Spec.Zone,
					Taints: []corev1.Taint{{Key: simLabel, Effect: corev1.TaintEffectNoSchedule}},
				},
			}
			_, err := fed.ClusterV1alpha1().Clusters().Create(ctx, c, metav1.CreateOptions{})
			return err
		})
	}
	return g.Wait()
}

// simFanout creates simTemplates Deployments and a policy Duplicating them to every
// simulated Cluster with dispatching suspended, and times from the policy until every Work
// exists (a watch of the Works of every execution namespace); then it deletes them and waits
// until the Works are gone.
func simFanout(ctx context.Context, b *testing.B, clusters int) (time.Duration, int, cpuUse) {
	_, fed := hostClients(b)
	c, err := newPropagationClients()
	if err != nil {
		b.Fatal(err)
	}
	c.templates = simTemplates
	ns := fmt.Sprintf("bench-sim-%d", time.Now().UnixNano()%1_000_000)
	if _, err := c.fleet.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = c.fleet.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) }()
	if err := c.createTemplates(ctx, ns); err != nil {
		b.Fatal(err)
	}
	works := fed.FederationV1alpha1().Works("")
	list, err := works.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	changed := sync.NewCond(&mu)
	live := map[string]bool{}
	rw, err := watchtools.NewRetryWatcherWithContext(watchCtx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return works.Watch(ctx, o) },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer rw.Stop()
	go func() {
		for ev := range rw.ResultChan() {
			// Only this run's Works count: their names start with the namespace.
			obj, err := meta.Accessor(ev.Object)
			if err != nil || !strings.HasPrefix(obj.GetName(), ns+".") {
				continue
			}
			mu.Lock()
			key := obj.GetNamespace() + "/" + obj.GetName()
			if ev.Type == watch.Deleted {
				delete(live, key)
			} else {
				live[key] = true
			}
			changed.Broadcast()
			mu.Unlock()
		}
	}()
	waitWorks := func(n int, timeout time.Duration) {
		deadline := time.AfterFunc(timeout, func() { mu.Lock(); changed.Broadcast(); mu.Unlock() })
		defer deadline.Stop()
		start := time.Now()
		mu.Lock()
		defer mu.Unlock()
		for len(live) != n {
			if time.Since(start) > timeout {
				b.Fatalf("%d Works of %s after %s, want %d", len(live), ns, timeout, n)
			}
			changed.Wait()
		}
	}
	want := simTemplates * clusters
	policy := benchPolicy()
	policy.Spec.Placement.ClusterAffinity = &federationv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{simLabel: "true"}}}
	policy.Spec.Placement.ClusterTolerations = []corev1.Toleration{{Key: simLabel, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	policy.Spec.Suspension = &federationv1alpha1.Suspension{Dispatching: ptr.To(true)}
	mark := markCPU()
	start := time.Now()
	// FED_BENCH_PROFILE=FILE: the fan-out's CPU profile at each count in FILE.<clusters>.
	profiled := c.profile(ctx, b, fmt.Sprintf(".%d", clusters))
	if _, err := c.fed.FederationV1alpha1().PropagationPolicies(ns).Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	waitWorks(want, 15*time.Minute)
	took, cpu := time.Since(start), cpuSince(mark)
	<-profiled
	if err := c.deleteTemplates(ctx, ns); err != nil {
		b.Fatal(err)
	}
	waitWorks(0, 15*time.Minute)
	return took, want, cpu
}

// removeSimulated deletes the simulated Clusters and their Secrets, and waits until the
// Clusters are gone.
func removeSimulated(b *testing.B) {
	ctx := context.Background()
	host, fed := hostClients(b)
	sel := metav1.ListOptions{LabelSelector: simLabel}
	if err := fed.ClusterV1alpha1().Clusters().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil && !apierrors.IsNotFound(err) {
		b.Error(err)
	}
	waitFor(b, 10*time.Minute, func() error {
		l, err := fed.ClusterV1alpha1().Clusters().List(ctx, sel)
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			return fmt.Errorf("%d simulated Clusters left", len(l.Items))
		}
		return nil
	})
	if err := host.CoreV1().Secrets(clusterv1alpha1.FedNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		b.Error(err)
	}
}
