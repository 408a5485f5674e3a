package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// scalePodsPerMember is how many pods each member holds for the listing figures of
// BenchmarkScaleFleet.
const scalePodsPerMember = 100

// scaleListPrefix begins the names of the namespaces of BenchmarkScaleFleet's pods.
const scaleListPrefix = "bench-scale-list-"

// deleteNamespaces deletes a member's namespaces whose names begin with prefix and waits
// until they are gone.
func deleteNamespaces(ctx context.Context, client kubernetes.Interface, prefix string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		left := 0
		for _, ns := range list.Items {
			if strings.HasPrefix(ns.Name, prefix) {
				left++
				if ns.DeletionTimestamp == nil {
					if err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
						return err
					}
				}
			}
		}
		if left == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d namespaces %s… are still there: %w", left, prefix, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// BenchmarkScaleFleet measures fed's write path, its listings and its failover at 3, 10 and
// 30 members (make up MEMBERS=30), the members joined as make up joins them, each figure
// beside the same work done straight to the same members in the same run:
//   - 1,000 Deployments Duplicated to every member, with the members' controller managers
//     stopped (the light members run none that acts on Deployments): the direct server-side
//     apply of the same objects to the same members, then fed's propagation from the
//     policy's creation until every member object exists; objects per second, p50 and p99
//     per object from its binding, fed-apiserver's CPU per member object, its writes per
//     template, and its memory at the end;
//   - the same 1,000 Divided over every member (as many replicas as members: one each), and
//     then one template changed: the time until every member has the change;
//   - `kubectl fed get pods -A` from the search cache and from the members, beside `kubectl
//     get pods -A` run against each member in turn, and one LIST of the search API over
//     every member's pods, with 100 pods in each member;
//   - member2 stopped under a Deployment Divided over member1 and member2: the time until it
//     is not Ready, until it is tainted NoExecute, and until member1 runs every replica.
//
// make bench-scale runs it.
func BenchmarkScaleFleet(b *testing.B) {
	counts, fed, bin := startScale(b)
	ctx := context.Background()
	listNS := fmt.Sprintf("%s%d", scaleListPrefix, time.Now().UnixNano()%1_000_000)
	var pods errgroup.Group
	for _, m := range theLab.Members[:counts[len(counts)-1]] {
		cfg, err := clientConfigFor(m.Kubeconfig)
		if err != nil {
			b.Fatal(err)
		}
		cfg.QPS = -1 // no client-side rate limit
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(context.Background(), listNS, metav1.DeleteOptions{}) })
		pods.Go(func() error {
			// The pods of a run that stopped with a member down stay there, and would leave
			// member1 (one node of 110 pods) no room for the failover's replicas.
			if err := deleteNamespaces(ctx, client, scaleListPrefix); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if err := createPods(ctx, client, listNS, scalePodsPerMember); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			return nil
		})
	}
	if err := pods.Wait(); err != nil {
		b.Fatal(err)
	}
	var rows []scaleRow
	for _, n := range counts {
		unjoinAll(b, fed, bin)
		members := theLab.Members[:n]
		joinAll(b, members)
		quiet := waitQuiet(3 * time.Minute)
		var names []string
		for _, m := range members {
			names = append(names, m.Name)
		}
		r := scaleRow{members: n}
		c, err := newPropagationClients(names...)
		if err != nil {
			b.Fatal(err)
		}
		if r.direct, err = c.direct(ctx, true); err != nil {
			b.Fatal(err)
		}
		if r.duplicated, err = c.run(ctx, b, true); err != nil {
			b.Fatal(err)
		}
		c.divided = true
		c.afterPropagation = func(ctx context.Context, ns string) error {
			var err error
			r.changed, err = c.changeOne(ctx, ns)
			return err
		}
		if r.divided, err = c.run(ctx, b, true); err != nil {
			b.Fatal(err)
		}
		r.list = scaleListing(ctx, b, bin, listNS, names)
		r.notReady, r.tainted, r.moved = scaleFailover(b)
		rows = append(rows, r)
		b.Logf("%d members (lab quiet after %s): %s", n, quiet.Round(time.Second), r)
	}
	reportScaleFleet(b, rows)
}

// scaleRow is what BenchmarkScaleFleet measured at one member count.
type scaleRow struct {
	members                  int
	direct                   directRun
	duplicated, divided      propagationRun
	changed                  time.Duration
	list                     scaleList
	notReady, tainted, moved time.Duration
}

func (r scaleRow) String() string {
	return fmt.Sprintf("Duplicated %s (direct %s), Divided %s, one template changed everywhere in %s; get pods -A: cache %s, members %s, serial kubectl %s, search LIST %s; member2 stopped: not Ready %s, tainted %s, moved %s",
		r.duplicated.all.Round(time.Millisecond), r.direct.exist.Round(time.Millisecond), r.divided.all.Round(time.Millisecond), r.changed.Round(time.Millisecond),
		r.list.cache.Round(time.Millisecond), r.list.members.Round(time.Millisecond), r.list.serial.Round(time.Millisecond), r.list.search.Round(time.Millisecond),
		r.notReady.Round(100*time.Millisecond), r.tainted.Round(100*time.Millisecond), r.moved.Round(100*time.Millisecond))
}

// changeOne changes the image of the first template of ns and returns how long until every
// member's copy has it.
func (c *propagationClients) changeOne(ctx context.Context, ns string) (time.Duration, error) {
	name := benchDeploymentName(0)
	const image = "registry.example/bench:2"
	start := time.Now()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, image)
	if _, err := c.fleet.AppsV1().Deployments(ns).Patch(ctx, name, "application/strategic-merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(c.memberNames))
	for i, m := range c.memberNames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
				d, err := c.members[m].AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
				if err == nil && d.Spec.Template.Spec.Containers[0].Image == image {
					return
				}
				if time.Now().After(deadline) {
					errs[i] = fmt.Errorf("%s does not have the changed %s after 2 minutes (%v)", m, name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// scaleList is how long the listings of every member's pods took.
type scaleList struct {
	pods                           int
	cache, members, serial, search time.Duration
}

// scaleListing caches the pods of every member (a ResourceRegistry of all of them) and
// times, once each: `kubectl fed get pods -A` from the search cache and from the members
// (--cache=false), `kubectl get pods -A` against each member in turn, and one unpaged LIST
// of the search API's pods over every member. Each must list every pod the members hold.
func scaleListing(ctx context.Context, b *testing.B, bin, ns string, members []string) scaleList {
	var l scaleList
	for _, m := range members {
		pods, err := memberClient(b, m).CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		l.pods += len(pods.Items)
	}
	registry := fmt.Sprintf("%s-all-%d", ns, len(members))
	cacheKind(ctx, b, registry, members, searchv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Pod"}, -1)
	_, fed := hostClients(b)
	defer func() { _ = fed.SearchV1alpha1().ResourceRegistries().Delete(ctx, registry, metav1.DeleteOptions{}) }()
	waitFor(b, time.Minute, func() error {
		rr, err := fed.SearchV1alpha1().ResourceRegistries().Get(ctx, registry, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var cached int64
		for _, c := range rr.Status.Caches {
			cached += c.Objects
		}
		if cached != int64(l.pods) {
			return fmt.Errorf("the cache holds %d pods, the members %d", cached, l.pods)
		}
		return nil
	})
	fedGet := func(from string, args ...string) time.Duration {
		start := time.Now()
		out, stderr, err := runFed(bin, append([]string{"get", "pods", "-A", "-v=1"}, args...)...)
		if err != nil {
			b.Fatalf("%v: %s", err, stderr)
		}
		if n := strings.Count(out, "\n") - 1; n != l.pods {
			b.Fatalf("kubectl fed get pods -A %v listed %d pods, the members hold %d", args, n, l.pods)
		}
		if !strings.Contains(stderr, from) {
			b.Fatalf("kubectl fed get pods did not say %q: %s", from, stderr)
		}
		return time.Since(start)
	}
	l.cache = fedGet("from the search cache")
	l.members = fedGet("from the members", "--cache=false")
	start := time.Now()
	listed := 0
	for _, m := range members {
		out, err := runKubectl(theLab.Member(m).Kubeconfig, "get", "pods", "-A", "--no-headers")
		if err != nil {
			b.Fatal(err)
		}
		listed += strings.Count(out, "\n")
	}
	l.serial = time.Since(start)
	if listed != l.pods {
		b.Fatalf("kubectl get pods -A in each member listed %d pods, the members hold %d", listed, l.pods)
	}
	start = time.Now()
	raw, err := fed.SearchV1alpha1().RESTClient().Get().AbsPath("/apis/search.fedhq.io/v1alpha1/search/cache/api/v1/pods").DoRaw(ctx)
	l.search = time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(raw, &list); err != nil {
		b.Fatal(err)
	}
	if len(list.Items) != l.pods {
		b.Fatalf("the search API's LIST of pods held %d, the members hold %d", len(list.Items), l.pods)
	}
	return l
}

// scaleFailover stops member2 under a Deployment Divided over member1 and member2, times
// it as BenchmarkFailover does, starts member2 again and waits until the workload is back.
func scaleFailover(b *testing.B) (notReady, tainted, moved time.Duration) {
	f := newFailoverBench(b)
	f.waitBack(b)
	notReady, tainted, moved = f.stopAndRestart(b)
	f.waitBack(b)
	// Its 4 pods go, so that member1 (one node of 110 pods, 100 of them the listing's) has
	// room for the next count's.
	kubectl(b, theLab.FleetKubeconfig(), "delete", "deploy", "bench", "-n", f.ns)
	return notReady, tainted, moved
}

// reportScaleFleet prints the table by member count.
func reportScaleFleet(b *testing.B, rows []scaleRow) {
	sec := func(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
	fmt.Printf("\nfed by member count (1,000 Deployments; the members' controller managers stopped; the direct apply is the same objects server-side applied straight to the same members):\n")
	fmt.Printf("%-8s %-9s %-9s %-7s %-10s %-17s %-13s %-13s %-10s %-9s %-9s\n", "members", "direct", "fed", "ratio", "objects/s", "p50/p99 per obj", "fed CPU/obj", "writes/tmpl", "fed RSS", "Divided", "changed")
	for _, r := range rows {
		d := r.duplicated
		objects := float64(propagationTemplates * r.members)
		lat := append([]time.Duration(nil), d.latencies...)
		fmt.Printf("%-8d %-9s %-9s %-7s %-10.0f %-17s %-13s %-13.2f %-10s %-9s %-9s\n", r.members, sec(r.direct.exist), sec(d.all),
			fmt.Sprintf("%.2fx", d.all.Seconds()/r.direct.exist.Seconds()), objects/d.all.Seconds(),
			fmt.Sprintf("%s/%s", sec(percentile(lat, 0.5)), sec(percentile(lat, 0.99))),
			fmt.Sprintf("%.2f ms", ms(d.cpu.roles["fed-apiserver"])/objects), d.fedWrites/propagationTemplates,
			fmt.Sprintf("%.0f MiB", d.memory.rss/(1<<20)), sec(r.divided.all), sec(r.changed))
	}
	fmt.Printf("\nlistings of every member's pods, and a member stopped among them:\n")
	fmt.Printf("%-8s %-6s %-16s %-16s %-16s %-12s %-10s %-9s %-9s\n", "members", "pods", "fed get (cache)", "fed get (members)", "serial kubectl", "search LIST", "not Ready", "NoExecute", "moved")
	for _, r := range rows {
		fmt.Printf("%-8d %-6d %-16s %-16s %-16s %-12s %-10s %-9s %-9s\n", r.members, r.list.pods, sec(r.list.cache), sec(r.list.members), sec(r.list.serial), sec(r.list.search),
			sec(r.notReady), sec(r.tainted), sec(r.moved))
	}
	for _, r := range rows {
		fmt.Printf("  %d members, the Duplicated run's CPU: %s\n", r.members, r.duplicated.cpu)
		fmt.Printf("  %d members, the direct apply's CPU: %s\n", r.members, r.direct.existCPU)
	}
	first, last := rows[0], rows[len(rows)-1]
	ratio := last.duplicated.all.Seconds() / last.direct.exist.Seconds()
	fmt.Printf("at %d members fed's propagation is %.2f times the direct apply (target 2.5); a member stopped moves in %s at %d members, %s at %d\n",
		last.members, ratio, sec(last.moved), last.members, sec(first.moved), first.members)
	b.ReportMetric(ratio, "ratio-at-max")
	b.ReportMetric(last.moved.Seconds(), "moved-s-at-max")
}
