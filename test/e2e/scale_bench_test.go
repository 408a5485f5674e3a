package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/test/lab"
)

// scaleCounts are the fleet sizes the scale benches measure, as far as the lab has members
// (make up MEMBERS=30).
var scaleCounts = []int{3, 10, 30}

// BenchmarkScaleMembers measures what each member costs fed-apiserver, at 3, 10 and 30
// members: the join of all of them, from the first command until the last is Ready (the
// joins run at once, as a script would start them); then, once the lab is quiet,
// fed-apiserver's RSS and Go heap, its goroutines, the watches it holds open in the
// members (counted by the members' apiservers, less what they served before fed joined),
// and the CPU it uses in a minute with nothing to do. The lab's members are joined again as
// make up joined them at the end. make bench-scale runs it.
func BenchmarkScaleMembers(b *testing.B) {
	counts, fed, bin := startScale(b)
	baseline := map[string]int{}
	for _, m := range theLab.Members[:counts[len(counts)-1]] {
		baseline[m.Name] = memberWatches(b, m)
	}
	type row struct {
		fedIdle
		members          int
		join             time.Duration
		watches          int
		watchesPerMember float64
	}
	var rows []row
	for _, n := range counts {
		unjoinAll(b, fed, bin)
		waitQuiet(time.Minute)
		members := theLab.Members[:n]
		start := time.Now()
		joinAll(b, members)
		r := row{members: n, join: time.Since(start)}
		waitQuiet(2 * time.Minute)
		time.Sleep(10 * time.Second) // the first probes and resyncs after the joins
		for _, m := range members {
			r.watches += memberWatches(b, m) - baseline[m.Name]
		}
		r.watchesPerMember = float64(r.watches) / float64(n)
		r.fedIdle = measureFedIdle(b)
		rows = append(rows, r)
		b.Logf("%d members: joined in %.1fs; idle: RSS %d MiB, heap %d MiB, %d goroutines, %d watches in the members (%.1f each), CPU %.2fs a minute",
			n, r.join.Seconds(), r.rss>>20, r.heap>>20, r.goroutines, r.watches, r.watchesPerMember, r.cpuPerMinute.Seconds())
	}
	first, last := rows[0], rows[len(rows)-1]
	added := float64(last.members - first.members)
	perMember := func(a, b uint64) float64 { return (float64(b) - float64(a)) / added / (1 << 20) }
	fmt.Printf("\nfed-apiserver by member count (joins run at once; idle figures after the lab is quiet):\n")
	fmt.Printf("%-8s %-10s %-9s %-9s %-11s %-16s %s\n", "members", "join", "RSS", "heap", "goroutines", "member watches", "CPU/min idle")
	for _, r := range rows {
		fmt.Printf("%-8d %-10s %-9s %-9s %-11d %-16s %.2fs\n", r.members, fmt.Sprintf("%.1fs", r.join.Seconds()),
			fmt.Sprintf("%d MiB", r.rss>>20), fmt.Sprintf("%d MiB", r.heap>>20), r.goroutines,
			fmt.Sprintf("%d (%.1f each)", r.watches, r.watchesPerMember), r.cpuPerMinute.Seconds())
	}
	fmt.Printf("per member added (%d to %d): RSS %.1f MiB (target under 15 MB), heap %.1f MiB, %.1f goroutines, CPU %.2fs a minute; join of %d: %.1fs (target under 10 s)\n",
		first.members, last.members, perMember(first.rss, last.rss), perMember(first.heap, last.heap),
		float64(last.goroutines-first.goroutines)/added, (last.cpuPerMinute-first.cpuPerMinute).Seconds()/added, last.members, last.join.Seconds())
	b.ReportMetric(perMember(first.rss, last.rss), "RSS-MiB/member")
	b.ReportMetric(last.join.Seconds(), "join-s")
}

// startScale begins a scale bench: the counts of scaleCounts the lab has members for (it
// skips the bench with fewer than two), fed's client and kubectl-fed; every member is
// unjoined and the lab idle, and the members are joined again as make up joined them when
// the bench ends.
func startScale(b *testing.B) (counts []int, fed versioned.Interface, bin string) {
	for _, n := range scaleCounts {
		if n <= len(theLab.Members) {
			counts = append(counts, n)
		}
	}
	if len(counts) < 2 {
		b.Skipf("the lab runs %d members: make up MEMBERS=30 for the scale benches", len(theLab.Members))
	}
	_, fed = hostClients(b)
	bin = buildKubectlFed(b)
	b.Cleanup(func() {
		unjoinAll(b, fed, bin)
		if err := theLab.JoinMembers(context.Background()); err != nil {
			b.Error(err)
		}
	})
	unjoinAll(b, fed, bin)
	settleIdle(b)
	return counts, fed, bin
}

// settleIdle waits, with no member joined, until the lab is quiet, and measures what it uses
// idle then, which waitQuiet allows for afterwards.
func settleIdle(b *testing.B) {
	waitQuiet(time.Minute)
	time.Sleep(20 * time.Second)
	b.Logf("the lab uses %.2f cores idle, with %d members not joined", measureIdle(10*time.Second), len(theLab.Members))
}

// joinAll joins the members at once, each as make up does, and waits for every join (which
// waits until its Cluster is Ready).
func joinAll(b *testing.B, members []*lab.Cluster) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(members))
	for i, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = theLab.Join(context.Background(), m, 2*time.Minute)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// unjoinAll unjoins every member of the fleet at once and waits until no Cluster is left.
func unjoinAll(b *testing.B, fed versioned.Interface, bin string) {
	b.Helper()
	ctx := context.Background()
	list, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, c := range list.Items {
		m := theLab.Member(c.Name)
		if m == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := exec.Command(bin, "--kubeconfig", theLab.Host.Kubeconfig, "unjoin", c.Name, "--cluster-kubeconfig", m.Kubeconfig).CombinedOutput(); err != nil {
				b.Errorf("unjoin %s: %v\n%s", c.Name, err, out)
			}
		}()
	}
	wg.Wait()
	waitFor(b, 2*time.Minute, func() error {
		for _, c := range list.Items {
			if _, err := fed.ClusterV1alpha1().Clusters().Get(ctx, c.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("cluster %s is still there: %v", c.Name, err)
			}
		}
		return nil
	})
}

// memberWatches is how many watches a member's apiserver serves now.
func memberWatches(b *testing.B, m *lab.Cluster) int {
	b.Helper()
	cfg, err := m.RESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := serverMetrics(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return int(sumMetrics(raw, "apiserver_longrunning_requests", `verb="WATCH"`)["apiserver_longrunning_requests"])
}

// fedIdle is fed-apiserver at rest: its RSS, Go heap in use and goroutines, and the CPU it
// uses in a minute.
type fedIdle struct {
	rss, heap    uint64
	goroutines   int
	cpuPerMinute time.Duration
}

// measureFedIdle reads fedIdle now, its CPU over the minute that follows.
func measureFedIdle(b *testing.B) fedIdle {
	b.Helper()
	mem, err := theLab.ProcessMemory("fed-apiserver")
	if err != nil {
		b.Fatal(err)
	}
	m := fedRuntime(b)
	idle := fedIdle{rss: mem.RSS, heap: uint64(m["go_memstats_heap_inuse_bytes"]), goroutines: int(m["go_goroutines"])}
	mark := markCPU()
	time.Sleep(time.Minute)
	idle.cpuPerMinute = cpuSince(mark).roles["fed-apiserver"]
	return idle
}

// fedRuntime is fed-apiserver's Go runtime figures, off its /metrics.
func fedRuntime(b *testing.B) map[string]float64 {
	b.Helper()
	raw, err := fedMetrics(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return sumMetrics(raw, "go_")
}

// sumMetrics sums the samples of a /metrics text whose name starts with prefix and whose
// labels hold every one of labels, by metric name.
func sumMetrics(raw, prefix string, labels ...string) map[string]float64 {
	sums := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
lines:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		fields := strings.Fields(line)
		name, labelText, _ := strings.Cut(fields[0], "{")
		for _, l := range labels {
			if !strings.Contains(labelText, l) {
				continue lines
			}
		}
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			sums[name] += v
		}
	}
	return sums
}
