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
	watchtools "k8s.io/client-go/tools/watch"

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
	host, _ := hostClients(b)
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
	cacheKind(ctx, b, ns, []string{"member3"}, searchv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns}, 0)

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
		is := func(t watch.EventType, ev watch.Event) bool {
			o, err := meta.Accessor(ev.Object)
			return err == nil && ev.Type == t && o.GetName() == name
		}
		start := time.Now()
		if _, err := deployments.Create(ctx, searchDeployment(name, 0), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		_, err = watchtools.UntilWithoutRetry(wctx, w, func(ev watch.Event) (bool, error) {
			if !is(watch.Added, ev) {
				return false, nil
			}
			// Seen: now deleted, for the next condition.
			appeared = append(appeared, time.Since(start))
			start = time.Now()
			return true, deployments.Delete(ctx, name, metav1.DeleteOptions{})
		}, func(ev watch.Event) (bool, error) {
			if !is(watch.Deleted, ev) {
				return false, nil
			}
			went = append(went, time.Since(start))
			return true, nil
		})
		cancel()
		if err != nil {
			b.Fatalf("%s in member3, from the search cache's watch: %v", name, err)
		}
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
