package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// podsPerMember is how many pods BenchmarkFedGetPods lists in each member.
const podsPerMember = 1000

// BenchmarkFedGetPods times `kubectl fed get pods -n NS` over the lab's three members with
// 1,000 pods each (through the host's cluster proxy), against `kubectl get pods -n NS` run
// against each member in turn, in the same run, and prints the ratio. Pods beyond what the
// members' nodes hold stay Pending, which does not matter for a list.
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
	want := len(members)*podsPerMember + 1 // and the header

	var fed, serial time.Duration
	b.Run("fed", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			out, stderr, err := runFed(bin, "get", "pods", "-n", ns)
			if err != nil {
				b.Fatalf("%v: %s", err, stderr)
			}
			if n := strings.Count(out, "\n"); n != want {
				b.Fatalf("%d lines, want %d", n, want)
			}
		}
		fed = time.Since(start) / time.Duration(b.N)
		b.ReportMetric(fed.Seconds(), "s/get")
	})
	b.Run("serial-kubectl", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			for _, m := range members {
				out, err := runKubectl(theLab.Member(m).Kubeconfig, "get", "pods", "-n", ns)
				if err != nil {
					b.Fatal(err)
				}
				if n := strings.Count(out, "\n"); n != podsPerMember+1 {
					b.Fatalf("%s: %d lines, want %d", m, n, podsPerMember+1)
				}
			}
		}
		serial = time.Since(start) / time.Duration(b.N)
		b.ReportMetric(serial.Seconds(), "s/get")
	})
	if fed > 0 && serial > 0 {
		fmt.Printf("kubectl fed get pods (3 members x %d pods): %s; serial kubectl get pods per member: %s; fed is %.2fx the serial loop's speed\n",
			podsPerMember, fed.Round(time.Millisecond), serial.Round(time.Millisecond), serial.Seconds()/fed.Seconds())
	}
}

// createPods creates a namespace with n bare pods, in parallel.
func createPods(ctx context.Context, client kubernetes.Interface, ns string, n int) error {
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	// The namespace's default service account is made by the controller manager; pods wait
	// for it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no default service account in %s: %w", ns, err)
		}
		time.Sleep(100 * time.Millisecond)
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
