package badger

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
)

var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
)

const testTransformerPrefix = "test!"

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
}

func newPod() runtime.Object     { return &example.Pod{} }
func newPodList() runtime.Object { return &example.PodList{} }

// smallBadger keeps each test database's memory small: the suite opens many.
func smallBadger(o badgerdb.Options) badgerdb.Options {
	return o.WithMemTableSize(4 << 20).WithNumMemtables(2).WithBlockCacheSize(4 << 20).
		WithValueLogFileSize(16 << 20).WithNumCompactors(2).WithValueThreshold(64 << 10)
}

// openTestDB opens a database in a temporary directory, closed at cleanup.
// Background compaction and GC are off unless opts turn them on.
func openTestDB(t testing.TB, dir string, opts ...Option) *DB {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	base := []Option{
		WithBadgerOptions(smallBadger),
		WithCompactionInterval(0),
		WithValueLogGCInterval(0),
		WithProgressNotifyInterval(time.Second),
	}
	db, err := Open(dir, append(base, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

type setupOptions struct {
	codec       runtime.Codec
	transformer value.Transformer
	prefix      string
	dbOpts      []Option
}

type setupOption func(*setupOptions)

func withCodec(c runtime.Codec) setupOption { return func(o *setupOptions) { o.codec = c } }
func withTransformer(tr value.Transformer) setupOption {
	return func(o *setupOptions) { o.transformer = tr }
}
func withPrefix(p string) setupOption { return func(o *setupOptions) { o.prefix = p } }

func podConfig(o setupOptions) Config {
	return Config{
		Codec:          o.codec,
		NewFunc:        newPod,
		NewListFunc:    newPodList,
		Prefix:         o.prefix,
		ResourcePrefix: "/pods/",
		GroupResource:  schema.GroupResource{Resource: "pods"},
		Transformer:    o.transformer,
	}
}

// testSetup returns a pod store on a fresh database, like the etcd3 store's
// own tests: the example codec and a prefix transformer.
func testSetup(t testing.TB, opts ...setupOption) (context.Context, *Store, *DB) {
	o := setupOptions{
		codec:       apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion),
		transformer: storagetesting.NewPrefixTransformer([]byte(testTransformerPrefix), false),
	}
	for _, opt := range opts {
		opt(&o)
	}
	db := openTestDB(t, "", o.dbOpts...)
	s, err := db.NewStore(podConfig(o))
	if err != nil {
		t.Fatal(err)
	}
	// Like etcd3's test setup, which builds the store without the factory's
	// corrupt-object error wrappers; the suite injects such errors itself.
	s.classifyCorrupt = false
	return context.Background(), s, db
}

// increaseRV writes an object of another resource on the same database,
// moving the global revision as an unrelated etcd write would.
func increaseRV(db *DB) storagetesting.IncreaseRVFunc {
	other, err := db.NewStore(Config{
		Codec:          apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion),
		NewFunc:        newPod,
		NewListFunc:    newPodList,
		ResourcePrefix: "/increaserv/",
	})
	if err != nil {
		panic(err)
	}
	var n atomic.Int64
	return func(ctx context.Context, t *testing.T) int64 {
		out := &example.Pod{}
		name := fmt.Sprintf("n%d", n.Add(1))
		if err := other.Create(ctx, "/increaserv/"+name, &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, out, 0); err != nil {
			t.Fatalf("increaseRV: %v", err)
		}
		rv, _ := other.Versioner().ParseResourceVersion(out.ResourceVersion)
		return int64(rv)
	}
}

// compactStorage is the suite's compaction hook.
func compactStorage(db *DB) storagetesting.Compaction {
	return func(ctx context.Context, t *testing.T, resourceVersion string) {
		rv, err := storage.APIObjectVersioner{}.ParseResourceVersion(resourceVersion)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Compact(ctx, int64(rv)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkStorageInvariants checks that the stored bytes went through the
// transformer and carry no resourceVersion or selfLink.
func checkStorageInvariants(s *Store) storagetesting.KeyValidation {
	return func(ctx context.Context, t *testing.T, key string) {
		path, err := s.prepareKey(key, false)
		if err != nil {
			t.Fatal(err)
		}
		cur, _, err := s.db.get(path)
		if err != nil || cur == nil {
			t.Fatalf("expecting a stored object at %s: %v", key, err)
		}
		obj, err := runtime.Decode(s.codec, cur.data[len(testTransformerPrefix):])
		if err != nil {
			t.Fatalf("decoding stored object: %v", err)
		}
		pod := obj.(*example.Pod)
		if pod.ResourceVersion != "" || pod.SelfLink != "" {
			t.Errorf("stored object should have empty resourceVersion and selfLink: %#v", pod.ObjectMeta)
		}
	}
}

// checkTransformerReads checks that a list decoded exactly the objects it
// had to: the suite's estimate of processed objects.
func checkTransformerReads(s *Store) storagetesting.CallsValidation {
	tr := s.getTransformer().(*storagetesting.PrefixTransformer)
	return func(t *testing.T, pageSize, estimatedProcessedObjects uint64) {
		if reads := tr.GetReadsAndReset(); reads != estimatedProcessedObjects {
			t.Errorf("unexpected reads: %d, expected: %d", reads, estimatedProcessedObjects)
		}
	}
}

// storeWithPrefixTransformer lets the suite swap the prefix transformer.
type storeWithPrefixTransformer struct{ *Store }

func (s storeWithPrefixTransformer) UpdatePrefixTransformer(modifier storagetesting.PrefixTransformerModifier) func() {
	orig := s.getTransformer().(*storagetesting.PrefixTransformer)
	cp := *orig
	s.setTransformer(modifier(&cp))
	return func() { s.setTransformer(orig) }
}

// storeWithTransformerOverride lets the suite wrap the transformer.
type storeWithTransformerOverride struct{ *Store }

func (s storeWithTransformerOverride) UpdateTransformer(modifier storagetesting.TransformerModifier) func() {
	orig := s.getTransformer()
	s.setTransformer(modifier(orig))
	return func() { s.setTransformer(orig) }
}

// failingTransformer fails reads while fail is set.
type failingTransformer struct {
	value.Transformer
	fail atomic.Bool
}

func (f *failingTransformer) setFailing(b bool) { f.fail.Store(b) }
func (f *failingTransformer) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if f.fail.Load() {
		return nil, false, errors.New("synthetic transform error")
	}
	return f.Transformer.TransformFromStorage(ctx, data, dataCtx)
}

// failingCodec fails decodes while fail is set.
type failingCodec struct {
	runtime.Codec
	fail atomic.Bool
}

func (f *failingCodec) setFailing(b bool) { f.fail.Store(b) }
func (f *failingCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if f.fail.Load() {
		return nil, nil, errors.New("synthetic decode error")
	}
	return f.Codec.Decode(data, defaults, into)
}

func testCorruptErr() error {
	return &corruptObjectError{err: errors.New("bits flipped"), what: "data from the storage is not transformable"}
}
