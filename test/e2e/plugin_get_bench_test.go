package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// podsPerMember is how many pods BenchmarkFedGetPods lists in each member.
const podsPerMember = 1000

// BenchmarkFedGetPods times `kubectl fed get pods -n NS` over the lab's three members with
// 1,000 pods each, in the same run: read from the search cache (a ResourceRegistry of the
// namespace's pods, the default when the cache holds them), read from the members through
// the host's cluster proxy (--cache=false), and `kubectl get pods -n NS` run against each
// member in turn; it prints the ratios. The target: the cache at least 3 times as fast as
// the serial loop. Pods beyond what the members' nodes hold stay Pending, which does not
// matter for a list.
func BenchmarkFedGetPods(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the lab")
	}
	ctx := context.Background()
	bin := buildKubectlFed(b)
	ns := fmt.Sprintf("bench-get-%d", time.Now().UnixNano()%1000000)
	members := []string{"member1", "member2", "member3"}
	for _, m := range members {
		c := theLab.Member(m)
		if c == nil {
			b.Fatalf("the lab has no %s", m)
		}
		cfg, err := c.RESTConfig()
		if err != nil {
			b.Fatal(err)
		}
		cfg.QPS = -1 // no client-side rate limit: 1,000 creations
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		})
		if err := createPods(ctx, client, ns, podsPerMember); err != nil {
			b.Fatalf("%s: %v", m, err)
		}
	}
	cachePods(ctx, b, ns, members)
	want := len(members)*podsPerMember + 1 // and the header

	fedGet := func(b *testing.B, from string, args ...string) time.Duration {
		start := time.Now()
		out, stderr, err := runFed(bin, append([]string{"get", "pods", "-n", ns, "-v=1"}, args...)...)
		if err != nil {
			b.Fatalf("%v: %s", err, stderr)
		}
		if n := strings.Count(out, "\n"); n != want {
			b.Fatalf("%d lines, want %d", n, want)
		}
		if !strings.Contains(stderr, from) {
			b.Fatalf("kubectl fed get pods did not say %q: %s", from, stderr)
		}
		return time.Since(start)
	}
	serialGet := func(b *testing.B) time.Duration {
		start := time.Now()
		for _, m := range members {
			out, err := runKubectl(theLab.Member(m).Kubeconfig, "get", "pods", "-n", ns)
			if err != nil {
				b.Fatal(err)
			}
			if n := strings.Count(out, "\n"); n != podsPerMember+1 {
				b.Fatalf("%s: %d lines, want %d", m, n, podsPerMember+1)
			}
		}
		return time.Since(start)
	}
	// The four in turn in each round, so that each sees the lab as busy as the others do.
	// The members' controllers and kwok take a while to settle 3,000 new pods.
	settled := waitQuiet(2 * time.Minute)
	var cache, unpaged, fromMembers, serial time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cache += fedGet(b, "from the search cache")
		unpaged += fedGet(b, "from the search cache", "--chunk-size=0")
		fromMembers += fedGet(b, "from the members", "--cache=false")
		serial += serialGet(b)
	}
	n := time.Duration(b.N)
	cache, unpaged, fromMembers, serial = cache/n, unpaged/n, fromMembers/n, serial/n
	b.ReportMetric(cache.Seconds(), "s/cache-get")
	b.ReportMetric(unpaged.Seconds(), "s/cache-one-page-get")
	b.ReportMetric(fromMembers.Seconds(), "s/members-get")
	b.ReportMetric(serial.Seconds(), "s/serial-kubectl")
	if cache > 0 && fromMembers > 0 && serial > 0 {
		ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
		fmt.Printf("(the lab settled the pods in %s first)\n", ms(settled))
		fmt.Printf("kubectl fed get pods (3 members x %d pods): from the search cache %s (in one page, --chunk-size=0: %s), from the members %s; serial kubectl get pods per member: %s\n",
			podsPerMember, ms(cache), ms(unpaged), ms(fromMembers), ms(serial))
		fmt.Printf("  the cache is %.2fx the serial loop's speed (target 3x) and %.2fx the members'; the members are %.2fx the serial loop's\n",
			serial.Seconds()/cache.Seconds(), fromMembers.Seconds()/cache.Seconds(), serial.Seconds()/fromMembers.Seconds())
	}
}

// cachePods creates a ResourceRegistry of the pods of namespace ns of the members (deleted
// when the benchmark ends), and waits until its caches are synced and hold every pod the
// members have there.
func cachePods(ctx context.Context, b *testing.B, ns string, members []string) {
	cacheKind(ctx, b, ns, members, searchv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Pod", Namespace: ns}, podsPerMember)
}

// cacheKind creates a ResourceRegistry named name of what selector selects in the members
// (deleted when the benchmark ends), and waits until each member's cache is synced, not
// stale, and holds objects objects (any number when objects is negative).
func cacheKind(ctx context.Context, b *testing.B, name string, members []string, selector searchv1alpha1.ResourceSelector, objects int64) {
	_, fed := hostClients(b)
	rrs := fed.SearchV1alpha1().ResourceRegistries()
	rr := &searchv1alpha1.ResourceRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: searchv1alpha1.ResourceRegistrySpec{
			TargetCluster:     federationv1alpha1.ClusterAffinity{ClusterNames: members},
			ResourceSelectors: []searchv1alpha1.ResourceSelector{selector},
		},
	}
	if _, err := rrs.Create(ctx, rr, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rrs.Delete(context.Background(), rr.Name, metav1.DeleteOptions{}) })
	// The objects counts of the status are refreshed every 10 s.
	waitFor(b, 2*time.Minute, func() error {
		got, err := rrs.Get(ctx, rr.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(got.Status.Caches) != len(members) {
			return fmt.Errorf("caches %+v, want one per member", got.Status.Caches)
		}
		for _, c := range got.Status.Caches {
			if !c.Synced || c.Stale || (objects >= 0 && c.Objects != objects) {
				return fmt.Errorf("cache of %s: synced %v, stale %v, %d objects, want %d", c.Cluster, c.Synced, c.Stale, c.Objects, objects)
			}
		}
		return nil
	})
}

// createPods creates a namespace with n bare pods, in parallel.
func createPods(ctx context.Context, client kubernetes.Interface, ns string, n int) error {
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	// Pods of a namespace need its default service account, which a member's controller
	// manager makes; the lab's light members run none that does, so it is made here when
	// the controller manager has not.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%04d", i), Namespace: ns, Labels: map[string]string{"app": "bench"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/bench:1"}}},
				}
				if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return <-errs
}
