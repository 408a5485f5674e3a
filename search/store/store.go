/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package store is the search cache: every cached member object in Badger, written by one
// writer at increasing revisions, read by prefix scans at a revision (so that a paginated
// list is one consistent snapshot however the cache changes meanwhile) and watched through
// a bounded ring of recent events.
//
// Badger runs in managed mode: the store stamps every write with the next revision of its
// own, which becomes the object's resourceVersion in search results. Versions stay readable
// for Options.History (continue tokens older than that answer 410 Gone, as with etcd), and
// the member's own resourceVersion each source has reached is kept beside its objects, so
// that after a restart the source resumes its watch where it stopped instead of listing
// the member again.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	badgeroptions "github.com/dgraph-io/badger/v4/options"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// Options size the cache. The defaults fit a small host: Badger's caches and memtables
// take about 150 MiB, whatever the number of objects; the rest is on disk.
type Options struct {
	// Dir is where Badger keeps its files; "" with InMemory.
	Dir      string
	InMemory bool
	// BlockCacheSize and IndexCacheSize bound Badger's caches of data blocks and of table
	// indexes and bloom filters (without the latter bound they grow with the data).
	BlockCacheSize, IndexCacheSize int64
	// MemTableSize and NumMemtables bound the writes Badger holds in memory.
	MemTableSize int64
	NumMemtables int
	// ValueLogGCInterval is how often the value log is rewritten to drop what was
	// overwritten or deleted.
	ValueLogGCInterval time.Duration
	// History is how long older revisions stay readable: a continue token stays valid
	// that long.
	History time.Duration
	// WatchEvents is how many recent events a watch can resume from.
	WatchEvents int
	// MappedBudget bounds the process's RSS of file-backed pages: Badger maps its files and
	// every page of them it wrote or read stays in RSS, so that above this the cache pages
	// its mappings out (Linux; see trimMapped). 0: no bound.
	MappedBudget int64
}

// DefaultOptions are the options fed-apiserver starts with (its --search-cache-* flags).
func DefaultOptions(dir string) Options {
	return Options{
		Dir:                dir,
		BlockCacheSize:     64 << 20,
		IndexCacheSize:     32 << 20,
		MemTableSize:       16 << 20,
		NumMemtables:       2,
		ValueLogGCInterval: 5 * time.Minute,
		History:            5 * time.Minute,
		WatchEvents:        10000,
		MappedBudget:       256 << 20,
	}
}

// Store is the cache.
type Store struct {
	db   *badger.DB
	opts Options
	ops  chan *op
	// visible is the revision up to which every write is in Badger: reads are at it.
	visible atomic.Uint64
	// oldest is the oldest revision still readable (Badger's discard point).
	oldest atomic.Uint64
	events *ring

	mu       sync.Mutex
	counts   map[Source]int64
	annotate map[string]map[string]string
	kinds    map[schema.GroupResource]Kind
	// lost are the sources a failed write lost objects of, until Lost reports it.
	lost map[Source]bool

	stop    context.CancelFunc
	stopped chan struct{}
}

// Open opens (or creates) the cache and starts its writer.
func Open(opts Options) (*Store, error) {
	bo := badger.DefaultOptions(opts.Dir).
		WithLogger(klogLogger{}).
		WithBlockCacheSize(opts.BlockCacheSize).
		WithIndexCacheSize(opts.IndexCacheSize).
		WithMemTableSize(opts.MemTableSize).
		WithNumMemtables(opts.NumMemtables).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithNumCompactors(2).
		// Values over 128 bytes (a pod's is about 500) go to the value log, written once,
		// rather than into the tables, which compactions rewrite level after level, each
		// table built in memory first and mapped beside the tables it replaces.
		WithValueThreshold(128).
		WithValueLogFileSize(128 << 20).
		WithCompression(badgeroptions.None).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		WithSyncWrites(false)
	if opts.InMemory {
		// Without a value log every value stays in the LSM tree, up to Badger's largest
		// threshold (1 MiB).
		bo = bo.WithDir("").WithValueDir("").WithInMemory(true).WithValueThreshold(1 << 20)
	}
	db, err := badger.OpenManaged(bo)
	if err != nil {
		return nil, fmt.Errorf("opening the search cache in %q: %w", opts.Dir, err)
	}
	if err := checkFormat(db); err != nil {
		_ = db.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Store{
		db:       db,
		opts:     opts,
		ops:      make(chan *op, 4096),
		counts:   map[Source]int64{},
		annotate: map[string]map[string]string{},
		lost:     map[Source]bool{},
		stop:     cancel,
		stopped:  make(chan struct{}),
	}
	rev := db.MaxVersion()
	s.visible.Store(rev)
	s.oldest.Store(rev)
	s.events = newRing(max(opts.WatchEvents, 1), rev)
	go s.write(ctx)
	if !opts.InMemory && opts.ValueLogGCInterval > 0 {
		go s.collectValueLog(ctx)
	}
	if !opts.InMemory && opts.MappedBudget > 0 {
		go s.trim(ctx)
	}
	return s, nil
}

// formatKey holds the value format the cache was written in.
const formatKey = "m/format"

// checkFormat empties a cache written in another value format than this one's (it is a
// cache: its sources list their members again) and records the format.
func checkFormat(db *badger.DB) error {
	want := []byte{valueFormat}
	rev := db.MaxVersion()
	txn := db.NewTransactionAt(rev, false)
	item, err := txn.Get([]byte(formatKey))
	var got []byte
	if err == nil {
		got, err = item.ValueCopy(nil)
	}
	txn.Discard()
	switch {
	case err == nil && string(got) == string(want):
		return nil
	case err != nil && !errors.Is(err, badger.ErrKeyNotFound):
		return err
	case rev > 0:
		klog.InfoS("The search cache was written in another format; emptying it", "format", got, "want", want)
		if err := db.DropAll(); err != nil {
			return err
		}
	}
	wb := db.NewManagedWriteBatch()
	defer wb.Cancel()
	if err := wb.SetEntryAt(badger.NewEntry([]byte(formatKey), want), rev+1); err != nil {
		return err
	}
	return wb.Flush()
}

// Close stops the writer, after what was queued before, and closes Badger.
func (s *Store) Close() error {
	s.stop()
	<-s.stopped
	return s.db.Close()
}

// Revision is the revision reads are at now.
func (s *Store) Revision() uint64 { return s.visible.Load() }

// Annotate sets annotations that every object of cluster carries in what the store returns
// (nil: none), e.g. that the cluster cannot be reached and its objects are as last seen.
func (s *Store) Annotate(cluster string, annotations map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(annotations) == 0 {
		delete(s.annotate, cluster)
		return
	}
	s.annotate[cluster] = annotations
}

func (s *Store) annotationsOf(cluster string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.annotate[cluster]
}

// Kind is what a cached resource is: the version and kind its objects are cached at,
// and whether they are namespaced.
type Kind struct {
	Version    string
	Kind       string
	Namespaced bool
}

// SetKinds records the resources that are cached now and their kinds.
func (s *Store) SetKinds(kinds map[schema.GroupResource]Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kinds = kinds
}

// Kind is the kind of a cached resource; false when no source caches it.
func (s *Store) Kind(gr schema.GroupResource) (Kind, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.kinds[gr]
	return k, ok
}

// Lost tells, once, that a write of src failed since the last call: what the store holds
// of src is incomplete, and its reflector must list the member again.
func (s *Store) Lost(src Source) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	lost := s.lost[src]
	delete(s.lost, src)
	return lost
}

// Count is how many objects the source has in the cache, as of the last write; -1 before
// the source was first written to since the store opened.
func (s *Store) Count(src Source) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.counts[src]; ok {
		return n
	}
	return -1
}

// Checkpoint is the member resourceVersion the source had reached when it was last
// written to ("" when it never was, or was dropped).
func (s *Store) Checkpoint(src Source) (string, error) {
	txn := s.db.NewTransactionAt(s.visible.Load(), false)
	defer txn.Discard()
	item, err := txn.Get(src.checkpointKey())
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	return string(v), err
}

// op is one change the writer applies, in the order they were queued.
type op struct {
	kind opKind
	src  Source
	obj  *Object
	// raw is obj encoded, by the caller of Put rather than the writer (there is one
	// writer, and as many callers as sources).
	raw []byte
	// namespace and name of a delete.
	namespace, name string
	// keep are the "namespace/name"s a sweep keeps.
	keep map[string]struct{}
	// checkpoint, when set, is the member resourceVersion the source has reached once
	// this op is written.
	checkpoint string
	done       chan struct{}
}

type opKind int

const (
	opPut opKind = iota
	opDelete
	opSweep
	opDrop
	opMark
	opStart
	opRelease
)

func (s *Store) queue(ctx context.Context, o *op) error {
	select {
	case s.ops <- o:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Put writes obj (of src), and that src has reached the member's resourceVersion
// checkpoint ("": unchanged).
func (s *Store) Put(ctx context.Context, src Source, obj *Object, checkpoint string) error {
	return s.queue(ctx, &op{kind: opPut, src: src, obj: obj, raw: obj.encode(), checkpoint: checkpoint})
}

// Delete removes an object of src.
func (s *Store) Delete(ctx context.Context, src Source, namespace, name, checkpoint string) error {
	return s.queue(ctx, &op{kind: opDelete, src: src, namespace: namespace, name: name, checkpoint: checkpoint})
}

// Sweep removes the objects of src whose "namespace/name" is not in keep: what a fresh
// list of the member no longer has.
func (s *Store) Sweep(ctx context.Context, src Source, keep map[string]struct{}, checkpoint string) error {
	return s.queue(ctx, &op{kind: opSweep, src: src, keep: keep, checkpoint: checkpoint})
}

// Mark records that src has reached the member's resourceVersion checkpoint (a bookmark).
func (s *Store) Mark(ctx context.Context, src Source, checkpoint string) error {
	return s.queue(ctx, &op{kind: opMark, src: src, checkpoint: checkpoint})
}

// Drop removes every object of src and its checkpoint: the source is no longer cached.
func (s *Store) Drop(ctx context.Context, src Source) error {
	return s.queue(ctx, &op{kind: opDrop, src: src})
}

// Start records that src is cached, so that Sources names it even before its first
// checkpoint.
func (s *Store) Start(ctx context.Context, src Source) error {
	return s.queue(ctx, &op{kind: opStart, src: src})
}

// Release forgets src's checkpoint and keeps its objects: another source that covers them
// (the kind in all namespaces, after it was cached in one) takes them over.
func (s *Store) Release(ctx context.Context, src Source) error {
	return s.queue(ctx, &op{kind: opRelease, src: src})
}

// Sources are the sources the store has objects or a checkpoint of, as Start, the
// writes and the checkpoints recorded them: after a restart, what the cache held before.
func (s *Store) Sources() ([]Source, error) {
	txn := s.db.NewTransactionAt(s.visible.Load(), false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = []byte(checkpointPrefix)
	it := txn.NewIterator(opts)
	defer it.Close()
	var out []Source
	for it.Rewind(); it.Valid(); it.Next() {
		parts := strings.SplitN(strings.TrimPrefix(string(it.Item().Key()), checkpointPrefix), "/", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("malformed checkpoint key %q", it.Item().Key())
		}
		out = append(out, Source{Cluster: parts[0], Resource: schema.GroupResource{Group: parts[1], Resource: parts[2]}, Namespace: parts[3]})
	}
	return out, nil
}

// CountScan counts the objects under src by reading their keys (for a namespace of a
// source that caches all of them).
func (s *Store) CountScan(src Source) int64 {
	txn := s.db.NewTransactionAt(s.visible.Load(), false)
	defer txn.Discard()
	return countKeys(txn, src.prefix())
}

// countKeys counts the keys under prefix, reading no values.
func countKeys(txn *badger.Txn, prefix []byte) int64 {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	var n int64
	for it.Rewind(); it.Valid(); it.Next() {
		n++
	}
	return n
}

// Sync returns once everything queued before it is written and visible.
func (s *Store) Sync(ctx context.Context) error {
	o := &op{kind: opMark, done: make(chan struct{})}
	if err := s.queue(ctx, o); err != nil {
		return err
	}
	select {
	case <-o.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stopped:
		return errors.New("the search cache is closed")
	}
}

// maxBatch is how many queued ops one Badger write batch takes at most.
const maxBatch = 2000

// write is the writer: it takes what is queued, a batch at a time, and makes it visible.
func (s *Store) write(ctx context.Context) {
	defer close(s.stopped)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var marks []mark
	for {
		var first *op
		select {
		case first = <-s.ops:
		case now := <-tick.C:
			marks = s.discard(now, marks)
			continue
		case <-ctx.Done():
			// What was queued before Close still goes in.
			for {
				select {
				case o := <-s.ops:
					s.commitLogged([]*op{o})
				default:
					return
				}
			}
		}
		batch := []*op{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case o := <-s.ops:
				batch = append(batch, o)
			default:
				break drain
			}
		}
		if s.commitLogged(batch) && (len(marks) == 0 || time.Since(marks[len(marks)-1].at) >= time.Second) {
			marks = append(marks, mark{at: time.Now(), rev: s.visible.Load()})
		}
	}
}

func (s *Store) commitLogged(batch []*op) bool {
	err := s.commit(batch)
	if err != nil {
		klog.ErrorS(err, "The search cache could not write a batch; its sources list their members again", "ops", len(batch))
		for _, o := range batch {
			if o.src.Cluster != "" {
				s.forget(o.src)
			}
		}
	}
	for _, o := range batch {
		if o.done != nil {
			close(o.done)
		}
	}
	return err == nil
}

// forget drops a source's count and checkpoint after a failed write, and records the loss
// for Lost, so that the source is listed again rather than followed (or, after a
// restart, resumed) past what the cache lost.
func (s *Store) forget(src Source) {
	s.mu.Lock()
	delete(s.counts, src)
	s.lost[src] = true
	s.mu.Unlock()
	wb := s.db.NewManagedWriteBatch()
	rev := s.visible.Load() + 1
	if err := wb.DeleteAt(src.checkpointKey(), rev); err == nil && wb.Flush() == nil {
		s.visible.Store(rev)
	}
}

// mark is a revision and when it became visible, for the discard point.
type mark struct {
	at  time.Time
	rev uint64
}

// discard lets Badger drop versions older than History, and returns the marks still
// younger.
func (s *Store) discard(now time.Time, marks []mark) []mark {
	i := 0
	for i < len(marks) && now.Sub(marks[i].at) > s.opts.History {
		i++
	}
	if i > 0 {
		rev := marks[i-1].rev
		s.db.SetDiscardTs(rev)
		s.oldest.Store(rev)
	}
	return marks[i:]
}

// collectValueLog runs Badger's value log GC periodically.
func (s *Store) collectValueLog(ctx context.Context) {
	t := time.NewTicker(s.opts.ValueLogGCInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for s.db.RunValueLogGC(0.5) == nil {
			}
		}
	}
}

// trim keeps the pages of Badger's mapped files in RSS within Options.MappedBudget,
// checking every second.
func (s *Store) trim(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := trimMapped(s.opts.Dir, s.opts.MappedBudget); err != nil {
				logTrimError(err)
				return
			}
		}
	}
}

type klogLogger struct{}

func (klogLogger) Errorf(f string, a ...any)   { klog.ErrorS(fmt.Errorf(f, a...), "Search cache") }
func (klogLogger) Warningf(f string, a ...any) { klog.V(1).Infof("search cache: "+f, a...) }
func (klogLogger) Infof(f string, a ...any)    { klog.V(4).Infof("search cache: "+f, a...) }
func (klogLogger) Debugf(f string, a ...any)   { klog.V(6).Infof("search cache: "+f, a...) }
