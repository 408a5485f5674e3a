package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// BenchmarkSearchFreshness is the search issue's freshness figure: a Deployment created in
// member3 until a watch of the search cache through the host has it, and deleted until the
// watch says it is gone (target: 2 s each).
func BenchmarkSearchFreshness(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the lab")
	}
	ctx := context.Background()
	host, fed := hostClients(b)
	ns := fmt.Sprintf("bench-fresh-%d", time.Now().UnixNano()%1000000)
	cfg, err := theLab.Member("member3").RESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	member3, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := member3.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = member3.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	rrs := fed.SearchV1alpha1().ResourceRegistries()
	rr := &searchv1alpha1.ResourceRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: searchv1alpha1.ResourceRegistrySpec{
			TargetCluster:     federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member3"}},
			ResourceSelectors: []searchv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns}},
		},
	}
	if _, err := rrs.Create(ctx, rr, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rrs.Delete(context.Background(), rr.Name, metav1.DeleteOptions{}) })
	waitFor(b, time.Minute, func() error {
		got, err := rrs.Get(ctx, rr.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(got.Status.Caches) != 1 || !got.Status.Caches[0].Synced || got.Status.Caches[0].Stale {
			return fmt.Errorf("caches %+v, want member3's synced", got.Status.Caches)
		}
		return nil
	})

	rc := host.CoreV1().RESTClient()
	path := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	deployments := member3.AppsV1().Deployments(ns)
	var appeared, went []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, list, err := searchList(ctx, rc, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		w, err := rc.Get().AbsPath(searchv1alpha1.CachePath+path).Param("watch", "true").
			Param("resourceVersion", list.GetResourceVersion()).Watch(ctx)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("fresh-%d", i)
		start := time.Now()
		if _, err := deployments.Create(ctx, searchDeployment(name, 0), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		appeared = append(appeared, untilEvent(b, w, watch.Added, name, start))
		start = time.Now()
		if err := deployments.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		went = append(went, untilEvent(b, w, watch.Deleted, name, start))
		w.Stop()
	}
	b.StopTimer()
	slices.Sort(appeared)
	slices.Sort(went)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(percentile(appeared, 0.5)), "appear-p50-ms")
	b.ReportMetric(ms(percentile(appeared, 1)), "appear-max-ms")
	b.ReportMetric(ms(percentile(went, 0.5)), "gone-p50-ms")
	b.ReportMetric(ms(percentile(went, 1)), "gone-max-ms")
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	fmt.Printf("a Deployment created in member3 until search's watch has it (%d times): p50 %s, max %s; deleted until it is gone: p50 %s, max %s (target: 2 s each)\n",
		len(appeared), r(percentile(appeared, 0.5)), r(percentile(appeared, 1)), r(percentile(went, 0.5)), r(percentile(went, 1)))
}

// untilEvent waits for an event of type t about the object name on w, and returns how long
// after start it came.
func untilEvent(b *testing.B, w watch.Interface, t watch.EventType, name string, start time.Time) time.Duration {
	b.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatalf("the watch of the search cache ended before %s %s", t, name)
			}
			if o, err := meta.Accessor(ev.Object); err == nil && ev.Type == t && o.GetName() == name {
				return time.Since(start)
			}
		case <-timeout:
			b.Fatalf("no %s event for %s from the search cache within 30 s", t, name)
		}
	}
}
