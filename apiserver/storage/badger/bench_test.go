package badger

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
)

// StoreFactory returns an empty storage.Interface for example.k8s.io pods,
// keyed "/pods/<namespace>/<name>". The benchmark bodies below take one, so
// they can run unchanged against another implementation (the etcd3 store,
// or this one behind the watch cache).
type StoreFactory func(b *testing.B) storage.Interface

// badgerPods is the StoreFactory of this package: a fresh database on disk.
func badgerPods(b *testing.B) storage.Interface {
	db := openTestDB(b, "")
	s, err := db.NewStore(podConfig(setupOptions{codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCreate(b *testing.B) { RunBenchmarkCreate(b, badgerPods) }
func BenchmarkGet(b *testing.B)    { RunBenchmarkGet(b, badgerPods) }
func BenchmarkList(b *testing.B)   { RunBenchmarkList(b, badgerPods) }
func BenchmarkWatch(b *testing.B)  { RunBenchmarkWatch(b, badgerPods) }

func benchPod(ns string, i int) *example.Pod {
	return &example.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pod-%06d", i), Labels: map[string]string{"app": "bench", "shard": fmt.Sprint(i % 10)}},
		Spec:       example.PodSpec{NodeName: fmt.Sprintf("node-%d", i%50), RestartPolicy: "Always"},
	}
}

func benchKey(p *example.Pod) string { return "/pods/" + p.Namespace + "/" + p.Name }

// seed creates n pods spread over 10 namespaces.
func seed(b *testing.B, s storage.Interface, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		p := benchPod(fmt.Sprintf("ns-%d", i%10), i)
		if err := s.Create(context.Background(), benchKey(p), p, nil, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// RunBenchmarkCreate measures Create throughput.
func RunBenchmarkCreate(b *testing.B, newStore StoreFactory) {
	s := newStore(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := benchPod("ns", i)
		if err := s.Create(ctx, benchKey(p), p, &example.Pod{}, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// RunBenchmarkGet measures Get of existing objects.
func RunBenchmarkGet(b *testing.B, newStore StoreFactory) {
	const n = 1000
	s := newStore(b)
	seed(b, s, n)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % n
		if err := s.Get(ctx, benchKey(benchPod(fmt.Sprintf("ns-%d", j%10), j)), storage.GetOptions{}, &example.Pod{}); err != nil {
			b.Fatal(err)
		}
	}
}

// RunBenchmarkList measures consistent lists: one namespace of 100 pods,
// and a page of 500 of all 1000.
func RunBenchmarkList(b *testing.B, newStore StoreFactory) {
	s := newStore(b)
	seed(b, s, 1000)
	ctx := context.Background()
	cases := []struct {
		name string
		key  string
		pred storage.SelectionPredicate
		want int
	}{
		{"namespace", "/pods/ns-3", storage.Everything, 100},
		{"page", "/pods/", storage.SelectionPredicate{Label: storage.Everything.Label, Field: storage.Everything.Field, Limit: 500}, 500},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out := &example.PodList{}
				if err := s.GetList(ctx, c.key, storage.ListOptions{Predicate: c.pred, Recursive: true}, out); err != nil {
					b.Fatal(err)
				}
				if len(out.Items) != c.want {
					b.Fatalf("listed %d pods, want %d", len(out.Items), c.want)
				}
			}
		})
	}
}

// RunBenchmarkWatch measures the latency of a write until a recursive watch
// delivers it.
func RunBenchmarkWatch(b *testing.B, newStore StoreFactory) {
	s := newStore(b)
	ctx := context.Background()
	w, err := s.Watch(ctx, "/pods/ns", storage.ListOptions{ResourceVersion: "", SendInitialEvents: new(bool), Predicate: storage.Everything, Recursive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := benchPod("ns", i)
		if err := s.Create(ctx, benchKey(p), p, nil, 0); err != nil {
			b.Fatal(err)
		}
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			b.Fatalf("unexpected event %v: %#v", ev.Type, ev.Object)
		}
	}
}

// BenchmarkWatchers measures a write until each of three recursive watches has it, as a
// resource of fed has three (fed's informer, the host's garbage collector and quota
// controller): each watcher decoding the event itself (the baseline), and the event decoded
// once, each watcher getting a copy.
func BenchmarkWatchers(b *testing.B) {
	for _, c := range []struct {
		name   string
		shared int
	}{{"each-decodes", math.MaxInt}, {"decoded-once", sharedDecodeWatchers}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(v int) { sharedDecodeWatchers = v }(sharedDecodeWatchers)
			sharedDecodeWatchers = c.shared
			s := badgerPods(b)
			ctx := context.Background()
			var watchers []watch.Interface
			for range 3 {
				w, err := s.Watch(ctx, "/pods/ns", storage.ListOptions{SendInitialEvents: new(bool), Predicate: storage.Everything, Recursive: true})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Stop()
				watchers = append(watchers, w)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			defer func() { b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op") }()
			for i := 0; i < b.N; i++ {
				p := benchPod("ns", i)
				p.Annotations = benchAnnotations
				if err := s.Create(ctx, benchKey(p), p, nil, 0); err != nil {
					b.Fatal(err)
				}
				for _, w := range watchers {
					if ev := <-w.ResultChan(); ev.Type != watch.Added {
						b.Fatalf("unexpected event %v: %#v", ev.Type, ev.Object)
					}
				}
			}
		})
	}
}

// processCPU is the CPU time the process used so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchAnnotations give the benchmark's pods about the size of a Work of a small
// Deployment (1 KiB of JSON).
var benchAnnotations = map[string]string{
	"federation.fedhq.io/binding":      "bench/web-deployment",
	"federation.fedhq.io/template-uid": "0e1f2a3b-1111-2222-3333-444455556666",
	"example.com/manifest": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"bench"},` +
		`"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},` +
		`"spec":{"containers":[{"name":"web","image":"registry.example.com/web:1.27.3"},{"name":"sidecar","image":"registry.example.com/sidecar:0.9"}]}}}}`,
}
