package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/test/lab"
)

// BenchmarkFailover stops member2's kube-apiserver under a Deployment Divided 2/2 over
// member1 and member2 by static weights (no toleration of the health taints) and times,
// from the stop: member2's Ready condition leaving True (fed's probes), its NoExecute
// taint (the lab's --failover-eviction-timeout later), and all 4 replicas ready in
// member1. The last less the taint is fed's own part: scheduling, the Work, the apply and
// the member's controllers. Each iteration starts member2 again and waits, untimed, for
// the workload to be back 2/2.
func BenchmarkFailover(b *testing.B) {
	f := newFailoverBench(b)
	var notReadyAt, taintAt, movedAt []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f.waitBack(b)
		b.StartTimer()
		notReady, tainted, moved := f.stopMember2(b)
		b.StopTimer()
		notReadyAt, taintAt, movedAt = append(notReadyAt, notReady), append(taintAt, tainted), append(movedAt, moved)
		b.Logf("iteration %d: not Ready %s, NoExecute %s, 4 ready in member1 %s after the stop (%s after the taint)", i+1,
			notReady.Round(10*time.Millisecond), tainted.Round(10*time.Millisecond), moved.Round(10*time.Millisecond), (moved - tainted).Round(10*time.Millisecond))
		restartControlPlane(b, "member2")
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(meanSeconds(notReadyAt), "s-to-not-ready")
	b.ReportMetric(meanSeconds(taintAt), "s-to-taint")
	b.ReportMetric(meanSeconds(movedAt), "s-to-ready-elsewhere")
	b.ReportMetric(meanSeconds(movedAt)-meanSeconds(taintAt), "s-taint-to-ready")
	b.ReportMetric(0, "ns/op")
	b.Logf("the lab's --failover-eviction-timeout is %s; fed probes a member every 5 s and marks it not Ready after 2 failed probes (1 s apart)", lab.EvictionTimeout)
}

func meanSeconds(ds []time.Duration) float64 {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return (sum / time.Duration(len(ds))).Seconds()
}

// failoverBench is a Deployment of 4 replicas Divided 2/2 over member1 and member2 by
// static weights, without tolerations of the health taints, in a namespace of its own.
type failoverBench struct {
	ns     string
	fed    versioned.Interface
	m1, m2 kubernetes.Interface
}

func newFailoverBench(b *testing.B) *failoverBench {
	ns := testNamespace(b, theLab.Host.Kubeconfig)
	kubectlStdin(b, theLab.FleetKubeconfig(), fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench
spec:
  replicas: 4
  selector:
    matchLabels: {app: bench}
  template:
    metadata:
      labels: {app: bench}
    spec:
      containers:
      - {name: app, image: nginx}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: bench
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: bench}
  placement: {%s}
`, staticWeights(map[string]int{"member1": 1, "member2": 1})), "apply", "-n", ns, "-f", "-")
	b.Cleanup(func() { _, _ = runKubectl(theLab.FleetKubeconfig(), "delete", "deploy", "bench", "-n", ns) })
	_, fed := hostClients(b)
	return &failoverBench{ns: ns, fed: fed, m1: memberClient(b, "member1"), m2: memberClient(b, "member2")}
}

func (f *failoverBench) cluster() *clusterv1alpha1.Cluster {
	c, err := f.fed.ClusterV1alpha1().Clusters().Get(context.Background(), "member2", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return c
}

func isClusterReady(c *clusterv1alpha1.Cluster) bool {
	return c != nil && meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
}

func clusterNoExecute(c *clusterv1alpha1.Cluster) bool {
	return c != nil && slices.ContainsFunc(c.Spec.Taints, func(t corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute && t.Key == clusterv1alpha1.TaintClusterUnreachable
	})
}

// waitBack waits until member2 is Ready and untainted and each member runs 2 ready replicas.
func (f *failoverBench) waitBack(b *testing.B) {
	ctx := context.Background()
	waitFor(b, 3*time.Minute, func() error {
		if c := f.cluster(); !isClusterReady(c) || clusterNoExecute(c) {
			return fmt.Errorf("member2 is not Ready and untainted yet")
		}
		for name, cs := range map[string]kubernetes.Interface{"member1": f.m1, "member2": f.m2} {
			if uid, n, err := memberDeployment(ctx, cs, f.ns, "bench"); err != nil || uid == "" || n != 2 {
				return fmt.Errorf("%s runs %d ready replicas (%v), want 2", name, n, err)
			}
		}
		return nil
	})
}

// stopMember2 stops member2's kube-apiserver and times, from the stop, member2's Ready
// condition leaving True, its NoExecute taint, and all 4 replicas ready in member1. The
// member stays stopped.
func (f *failoverBench) stopMember2(b *testing.B) (notReady, tainted, moved time.Duration) {
	ctx := context.Background()
	start := time.Now()
	// The lab stops a kube-apiserver gracefully, which takes seconds: it is watched
	// meanwhile, every 25 ms.
	stopped := make(chan error, 1)
	go func() { stopped <- theLab.StopProcess("member2-apiserver") }()
	for deadline := start.Add(2 * time.Minute); ; time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("member1 does not run 4 ready replicas 2 minutes after member2 stopped")
		}
		c := f.cluster()
		if notReady == 0 && c != nil && !isClusterReady(c) {
			notReady = time.Since(start)
		}
		if tainted == 0 && clusterNoExecute(c) {
			tainted = time.Since(start)
		}
		if _, n, err := memberDeployment(ctx, f.m1, f.ns, "bench"); err == nil && n == 4 && tainted > 0 {
			break
		}
	}
	if err := <-stopped; err != nil {
		b.Fatal(err)
	}
	return notReady, tainted, time.Since(start)
}

// stopAndRestart is stopMember2, then member2 started again. A bench that fails with
// member2 stopped starts it again too, so that its clean-up (and the next bench) finds it.
func (f *failoverBench) stopAndRestart(b *testing.B) (notReady, tainted, moved time.Duration) {
	down := true
	b.Cleanup(func() {
		if down {
			restartControlPlane(b, "member2")
		}
	})
	notReady, tainted, moved = f.stopMember2(b)
	restartControlPlane(b, "member2")
	down = false
	return notReady, tainted, moved
}

// BenchmarkFailoverUnderDeletion is BenchmarkFailover while fed has thousands of member
// objects to delete: 4,000 ConfigMaps Duplicated to member1..3 (12,000 member objects, no
// controller acts on them; about a minute of deletions) are deleted at once and member2 is
// stopped right after. Beside it, in the same run, the same failover with nothing else to
// do. The binding controller's and execution's queues take the bindings and Works that
// already have objects in members (member1's, given member2's replicas) ahead of those
// being deleted.
func BenchmarkFailoverUnderDeletion(b *testing.B) {
	ctx := context.Background()
	f := newFailoverBench(b)
	failover := func(what string) time.Duration {
		f.waitBack(b)
		notReady, tainted, moved := f.stopAndRestart(b)
		b.Logf("%s: not Ready %s, NoExecute %s, 4 ready in member1 %s after the stop (%s after the taint)", what,
			notReady.Round(10*time.Millisecond), tainted.Round(10*time.Millisecond), moved.Round(10*time.Millisecond), (moved - tainted).Round(10*time.Millisecond))
		return moved - tainted
	}
	quiet := failover("nothing else to do")

	ns := testNamespace(b, theLab.Host.Kubeconfig)
	cfg, err := clientConfigFor(theLab.FleetKubeconfig())
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	fleet, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	const n, selector = 4000, "bench=mass"
	members := []string{"member1", "member2", "member3"}
	policy := &federationv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "mass"},
		Spec: federationv1alpha1.PropagationSpec{
			ResourceSelectors: []federationv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bench": "mass"}}}},
			Placement: federationv1alpha1.Placement{ClusterAffinity: &federationv1alpha1.ClusterAffinity{ClusterNames: members}},
		},
	}
	if _, err := f.fed.FederationV1alpha1().PropagationPolicies(ns).Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var g errgroup.Group
	g.SetLimit(propagationWriters)
	for i := range n {
		g.Go(func() error {
			_, err := fleet.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("mass-%04d", i), Labels: map[string]string{"bench": "mass"}},
				Data:       map[string]string{"i": fmt.Sprint(i)},
			}, metav1.CreateOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	count := func(member string) int {
		l, err := memberClient(b, member).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return -1
		}
		return len(l.Items)
	}
	waitFor(b, 5*time.Minute, func() error {
		for _, m := range members {
			if c := count(m); c != n {
				return fmt.Errorf("%s has %d of the %d ConfigMaps", m, c, n)
			}
		}
		return nil
	})
	f.waitBack(b)
	go func() {
		_ = fleet.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: selector})
	}()
	b.ResetTimer()
	busy := failover("4,000 templates (12,000 member objects) being deleted")
	b.StopTimer()
	b.Logf("when member1 ran the 4 replicas, member1 and member3 still had %d and %d of the ConfigMaps to delete", count("member1"), count("member3"))
	b.ReportMetric(quiet.Seconds(), "s-taint-to-ready-quiet")
	b.ReportMetric(busy.Seconds(), "s-taint-to-ready-deleting")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEvictionRate times how the scheduler evicts a failed member's workloads with
// fed-apiserver's --resource-eviction-rate, beside the same failover without the flag, in
// the same run: 12 ConfigMaps Duplicated to member1 and member2 (failover.cluster purge
// mode Directly), member2's kube-apiserver stopped, and from its NoExecute taint the time
// until each binding has left member2. With the flag at 2, the last leaves about 5.5 s
// after the first (one every 0.5 s); without it, all at once. fed-apiserver is started
// with the flag for the second failover, and with the lab's own flags again after.
func BenchmarkEvictionRate(b *testing.B) {
	const n, perSecond = 12, 2
	ns := testNamespace(b, theLab.Host.Kubeconfig)
	var yaml strings.Builder
	for i := range n {
		fmt.Fprintf(&yaml, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%02d}\ndata: {i: \"%d\"}\n---\n", i, i)
	}
	yaml.WriteString(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: both}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  placement: {clusterAffinity: {clusterNames: [member1, member2]}}
  failover: {cluster: {purgeMode: Directly}}
`)
	kubectlStdin(b, theLab.FleetKubeconfig(), yaml.String(), "apply", "-n", ns, "-f", "-")
	b.Cleanup(func() {
		_, _ = runKubectl(theLab.FleetKubeconfig(), "delete", "cm", "--all", "-n", ns)
		// The lab's fed-apiserver with its own flags again.
		_ = theLab.StopProcess("fed-apiserver")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := theLab.Up(ctx); err != nil {
			b.Error(err)
		}
	})
	_, fed := hostClients(b)
	onMember2 := func() (int, error) {
		list, err := fed.FederationV1alpha1().ResourceBindings(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		on := 0
		for _, rb := range list.Items {
			if slices.ContainsFunc(rb.Spec.Clusters, func(t federationv1alpha1.TargetCluster) bool { return t.Name == "member2" }) {
				on++
			}
		}
		return on, nil
	}
	failover := func(what string, flags ...string) (first, last time.Duration) {
		if err := theLab.StopProcess("fed-apiserver"); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := theLab.StartFedWith(ctx, flags...); err != nil {
			b.Fatal(err)
		}
		f := &failoverBench{fed: fed}
		waitFor(b, 3*time.Minute, func() error {
			if c := f.cluster(); !isClusterReady(c) || clusterNoExecute(c) {
				return fmt.Errorf("member2 is not Ready and untainted yet")
			}
			if on, err := onMember2(); err != nil || on != n {
				return fmt.Errorf("%d of %d bindings place member2 (%v)", on, n, err)
			}
			return nil
		})
		down := true
		defer func() {
			if down {
				restartControlPlane(b, "member2")
			}
		}()
		stopped := make(chan error, 1)
		go func() { stopped <- theLab.StopProcess("member2-apiserver") }()
		var taint time.Time
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(25 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%s: bindings still on member2 2 minutes after it stopped", what)
			}
			if taint.IsZero() {
				if clusterNoExecute(f.cluster()) {
					taint = time.Now()
				}
				continue
			}
			on, err := onMember2()
			if err != nil {
				continue
			}
			if on < n && first == 0 {
				first = time.Since(taint)
			}
			if on == 0 {
				last = time.Since(taint)
				break
			}
		}
		if err := <-stopped; err != nil {
			b.Fatal(err)
		}
		restartControlPlane(b, "member2")
		down = false
		b.Logf("%s: the first binding left member2 %s after its NoExecute taint, the last %s after", what,
			first.Round(10*time.Millisecond), last.Round(10*time.Millisecond))
		return first, last
	}
	b.ResetTimer()
	var unlimited, limited []time.Duration
	for i := 0; i < b.N; i++ {
		_, l := failover("no limit")
		unlimited = append(unlimited, l)
		first, l := failover(fmt.Sprintf("--resource-eviction-rate=%d", perSecond), fmt.Sprintf("--resource-eviction-rate=%d", perSecond))
		limited = append(limited, l-first)
	}
	b.StopTimer()
	b.ReportMetric(meanSeconds(unlimited), "s-taint-to-all-evicted")
	b.ReportMetric(meanSeconds(limited), "s-first-to-last-eviction-at-2/s")
	b.ReportMetric(0, "ns/op")
}
