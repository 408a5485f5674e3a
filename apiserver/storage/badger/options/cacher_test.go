package options

import (
	"context"
	"fmt"
	"testing"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/generic"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/fedhq/fed/apiserver/storage/badger"
)

var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
)

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
}

var podsGR = schema.GroupResource{Resource: "pods"}

func openDB(t *testing.T) *badger.DB {
	t.Helper()
	db, err := badger.Open(t.TempDir(),
		badger.WithBadgerOptions(func(o badgerdb.Options) badgerdb.Options {
			return o.WithMemTableSize(4 << 20).WithNumMemtables(2).WithBlockCacheSize(4 << 20).
				WithValueLogFileSize(16 << 20).WithValueThreshold(64 << 10)
		}),
		badger.WithCompactionInterval(0), badger.WithValueLogGCInterval(0),
		badger.WithProgressNotifyInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func podAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*example.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod")
	}
	return labels.Set(pod.Labels), fields.Set{
		"metadata.name":      pod.Name,
		"metadata.namespace": pod.Namespace,
		"spec.nodeName":      pod.Spec.NodeName,
	}, nil
}

func podConfig() *storagebackend.ConfigForResource {
	cfg := storagebackend.NewDefaultConfig("", apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion))
	return cfg.ForResource(podsGR)
}

// cachedSetup returns pods served through the watch cache on Badger, once
// the cache has synced.
func cachedSetup(t *testing.T) (context.Context, storage.Interface, *badger.DB) {
	db := openDB(t)
	s, destroy, err := StorageWithCacher(db)(podConfig(), "/pods/",
		func(obj runtime.Object) (string, error) { return storage.NamespaceKeyFunc("/pods/", obj) },
		func() runtime.Object { return &example.Pod{} }, func() runtime.Object { return &example.PodList{} },
		podAttrs, nil, &cache.Indexers{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroy)
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := s.GetList(ctx, "/pods/", storage.ListOptions{ResourceVersion: "0", Predicate: storage.Everything, Recursive: true}, &example.PodList{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch cache did not become ready: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx, s, db
}

// increaseRV writes to another resource of the same database.
func increaseRV(db *badger.DB) storagetesting.IncreaseRVFunc {
	other, err := db.NewStore(badger.Config{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion),
		NewFunc: func() runtime.Object { return &example.Pod{} }, NewListFunc: func() runtime.Object { return &example.PodList{} },
		ResourcePrefix: "/other/"})
	if err != nil {
		panic(err)
	}
	n := 0
	return func(ctx context.Context, t *testing.T) int64 {
		n++
		out := &example.Pod{}
		name := fmt.Sprint("o", n)
		if err := other.Create(ctx, "/other/"+name, &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, out, 0); err != nil {
			t.Fatal(err)
		}
		rv, _ := other.Versioner().ParseResourceVersion(out.ResourceVersion)
		return int64(rv)
	}
}

// The upstream suite against the watch cache (k8s.io/apiserver/pkg/storage/cacher's
// cacher_test.go) with Badger underneath. Not run here, and why:
//   - RunTestList: with watchCacheEnabled it checks the cacher's requests
//     through an etcd KubernetesRecorder.
//   - RunTestListContinuation, RunTestListPaginationRareObject,
//     RunTestListContinuationWithFilter: their call validation counts
//     etcd requests; they run against the raw store in the badger package.
//   - RunTestWatchFromZero and RunTestCompactRevision: they need the cacher's
//     own compaction hook (it watches etcd's compact key); raw-store
//     compaction is covered in the badger package.
//   - RunTestClusterScopedWatch, RunTestNamespaceScopedWatch: upstream runs
//     them with a cluster-scoped key function and spec.nodeName indexers set
//     up per test; they run against the raw store in the badger package.
//   - RunTestGetListNonRecursive, RunWatchSemantics and the other
//     create-then-read-from-cache tests: upstream wraps Create to wait until
//     the cache saw the write, using cacher internals not exported.
func TestCacherConformance(t *testing.T) {
	tests := map[string]func(ctx context.Context, t *testing.T, s storage.Interface, db *badger.DB){
		"Create": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestCreate(ctx, t, s, func(context.Context, *testing.T, string) {})
		},
		"CreateWithKeyExist": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestCreateWithKeyExist(ctx, t, s)
		},
		"Get": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestGet(ctx, t, s)
		},
		"ConditionalDelete": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestConditionalDelete(ctx, t, s)
		},
		"DeleteWithConflict": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestDeleteWithConflict(ctx, t, s)
		},
		"GuaranteedUpdateWithConflict": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestGuaranteedUpdateWithConflict(ctx, t, s)
		},
		"ListPaging": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestListPaging(ctx, t, s)
		},
		"NamespaceScopedList": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestNamespaceScopedList(ctx, t, s)
		},
		"KeySchema": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestKeySchema(ctx, t, s)
		},
		"Watch": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestWatch(ctx, t, s)
		},
		"DeleteTriggerWatch": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestDeleteTriggerWatch(ctx, t, s)
		},
		"WatchFromNonZero": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestWatchFromNonZero(ctx, t, s)
		},
		"DelayedWatchDelivery": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestDelayedWatchDelivery(ctx, t, s)
		},
		"WatcherTimeout": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestWatcherTimeout(ctx, t, s)
		},
		"WatchDispatchBookmarkEvents": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestWatchDispatchBookmarkEvents(ctx, t, s, true)
		},
		"WatchBookmarksWithCorrectResourceVersion": func(ctx context.Context, t *testing.T, s storage.Interface, _ *badger.DB) {
			storagetesting.RunTestOptionalWatchBookmarksWithCorrectResourceVersion(ctx, t, s)
		},
	}
	for name, run := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, s, db := cachedSetup(t)
			run(ctx, t, s, db)
		})
	}
}

// TestCacherConsistentList checks that consistent reads sync the watch cache
// through RequestWatchProgress, with and without ListFromCacheSnapshot.
func TestCacherConsistentList(t *testing.T) {
	for _, snapshot := range []bool{true, false} {
		t.Run(fmt.Sprintf("ListFromCacheSnapshot=%v", snapshot), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.ListFromCacheSnapshot, snapshot)
			ctx, s, db := cachedSetup(t)
			storagetesting.RunTestConsistentList(ctx, t, s, increaseRV(db), true, true, snapshot)
		})
	}
}

// fakeStorageFactory resolves every resource to the example codec.
type fakeStorageFactory struct{ serverstorage.StorageFactory }

func (fakeStorageFactory) NewConfig(gr schema.GroupResource, _ runtime.Object) (*storagebackend.ConfigForResource, error) {
	cfg := storagebackend.NewDefaultConfig("/registry", apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion))
	return cfg.ForResource(gr), nil
}
func (fakeStorageFactory) ResourcePrefix(gr schema.GroupResource) string { return "/" + gr.Resource }

// TestWatchCacheSizes: --watch-cache-sizes=RESOURCE#0 serves that resource without the
// watch cache, as for etcd; other resources keep it.
func TestWatchCacheSizes(t *testing.T) {
	db := openDB(t)
	getter := &RESTOptionsGetter{DB: db, StorageFactory: fakeStorageFactory{}, EnableWatchCache: true, WatchCacheSizes: []string{"events#0"}}
	for gr, cached := range map[schema.GroupResource]bool{{Resource: "events"}: false, podsGR: true} {
		opts, err := getter.GetRESTOptions(gr, &example.Pod{})
		if err != nil {
			t.Fatal(err)
		}
		s, destroy, err := opts.Decorator(opts.StorageConfig, opts.ResourcePrefix,
			func(obj runtime.Object) (string, error) {
				return storage.NamespaceKeyFunc(opts.ResourcePrefix+"/", obj)
			},
			func() runtime.Object { return &example.Pod{} }, func() runtime.Object { return &example.PodList{} },
			podAttrs, nil, &cache.Indexers{})
		if err != nil {
			t.Fatal(err)
		}
		_, isCached := s.(*historyDelegator)
		destroy()
		if isCached != cached {
			t.Errorf("%s: watch cache %v, want %v", gr, isCached, cached)
		}
	}
	getter.WatchCacheSizes = []string{"events"}
	if _, err := getter.GetRESTOptions(podsGR, &example.Pod{}); err == nil {
		t.Error("a --watch-cache-sizes entry without a size was accepted")
	}
}

func TestRESTOptionsGetter(t *testing.T) {
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchCache=%v", cached), func(t *testing.T) {
			db := openDB(t)
			var getter generic.RESTOptionsGetter = &RESTOptionsGetter{DB: db, StorageFactory: fakeStorageFactory{}, EnableWatchCache: cached}
			opts, err := getter.GetRESTOptions(podsGR, &example.Pod{})
			if err != nil {
				t.Fatal(err)
			}
			if opts.ResourcePrefix != "/pods" {
				t.Fatalf("ResourcePrefix = %q", opts.ResourcePrefix)
			}
			s, destroy, err := opts.Decorator(opts.StorageConfig, opts.ResourcePrefix,
				func(obj runtime.Object) (string, error) {
					return storage.NamespaceKeyFunc(opts.ResourcePrefix+"/", obj)
				},
				func() runtime.Object { return &example.Pod{} }, func() runtime.Object { return &example.PodList{} },
				podAttrs, nil, &cache.Indexers{})
			if err != nil {
				t.Fatal(err)
			}
			defer destroy()
			ctx := context.Background()
			pod := &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
			out := &example.Pod{}
			if err := s.Create(ctx, "/pods/ns/a", pod, out, 0); err != nil {
				t.Fatal(err)
			}
			got := &example.Pod{}
			if err := s.Get(ctx, "/pods/ns/a", storage.GetOptions{ResourceVersion: out.ResourceVersion}, got); err != nil {
				t.Fatal(err)
			}
			if got.ResourceVersion != out.ResourceVersion {
				t.Fatalf("got resourceVersion %s, want %s", got.ResourceVersion, out.ResourceVersion)
			}
		})
	}
}
