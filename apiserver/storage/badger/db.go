// Package badger implements k8s.io/apiserver's storage.Interface on an
// embedded Badger database, with the semantics of the etcd3 store: one global
// revision used as resourceVersion, lists at exact past revisions until
// compaction, watches that replay a persisted event log, TTLs, and
// value.Transformer support for encryption at rest.
package badger

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	badgerdb "github.com/dgraph-io/badger/v4"
	"k8s.io/klog/v2"
)

// errClosed is returned by operations on a closed DB.
var errClosed = errors.New("badger storage: database is closed")

// DB owns one Badger database shared by every resource: keys are prefixed by
// the resource path, and one revision counter orders all writes.
type DB struct {
	bdb  *badgerdb.DB
	opts options

	// writeMu serializes commits so that revisions are handed out, made
	// visible and published to watchers in order.
	writeMu    sync.Mutex
	rev        atomic.Int64 // newest committed revision
	compactRev atomic.Int64 // revisions below it are gone
	// backups counts the backups streaming now by the revision they read at; Compact
	// keeps those revisions readable (guarded by writeMu).
	backups map[int64]int
	closed  atomic.Bool
	// readMu is held (shared) by every open read snapshot; Close takes it
	// exclusively so Badger is never closed under a reader.
	readMu sync.RWMutex

	hub *hub

	stopCh    chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the database in dir and starts the background
// compactor, value-log GC, TTL reaper and progress notifier.
func Open(dir string, opts ...Option) (*DB, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	bdb, err := badgerdb.OpenManaged(o.badgerOptions(dir))
	if err != nil {
		return nil, fmt.Errorf("opening badger database in %q: %w", dir, err)
	}
	db := &DB{bdb: bdb, opts: o, hub: newHub(), stopCh: make(chan struct{}), backups: map[int64]int{}}
	if err := db.loadRevisions(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	db.startBackground()
	return db, nil
}

// loadRevisions restores the revision counters; a new database starts at
// revision 1 like etcd, so the first write gets resourceVersion 2.
func (db *DB) loadRevisions() error {
	txn := db.bdb.NewTransactionAt(math.MaxUint64, false)
	defer txn.Discard()
	rev, err := readCounter(txn, metaRevKey)
	if err != nil {
		return err
	}
	compact, err := readCounter(txn, metaCompactKey)
	if err != nil {
		return err
	}
	if rev == 0 {
		wtxn := db.bdb.NewTransactionAt(0, true)
		defer wtxn.Discard()
		if err := wtxn.Set(metaRevKey, encodeUint(1)); err != nil {
			return err
		}
		if err := wtxn.CommitAt(1, nil); err != nil {
			return fmt.Errorf("initializing revision: %w", err)
		}
		rev = 1
	}
	db.rev.Store(rev)
	db.compactRev.Store(compact)
	if compact > 0 {
		db.bdb.SetDiscardTs(uint64(compact))
	}
	return nil
}

func readCounter(txn *badgerdb.Txn, key []byte) (int64, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var v int64
	err = item.Value(func(b []byte) error {
		v, err = decodeUint(b)
		return err
	})
	return v, err
}

// Close stops the background work, ends all watches and closes Badger.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		close(db.stopCh)
		db.wg.Wait()
		db.writeMu.Lock()
		db.closed.Store(true)
		db.hub.closeAll()
		db.writeMu.Unlock()
		db.readMu.Lock()
		db.closeErr = db.bdb.Close()
		db.readMu.Unlock()
	})
	return db.closeErr
}

// Revision returns the newest committed revision.
func (db *DB) Revision() int64 { return db.rev.Load() }

// CompactedRevision returns the revision the history was last compacted to.
func (db *DB) CompactedRevision() int64 { return db.compactRev.Load() }

// kv is one stored version of an object.
type kv struct {
	path      string
	data      []byte // transformed bytes, as stored
	rev       int64  // revision that wrote this version
	expiresAt int64
}

// getKV reads one object in txn; nil if it does not exist.
func getKV(txn *badgerdb.Txn, path string) (*kv, error) {
	item, err := txn.Get(objectKey(path))
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return itemKV(item)
}

func itemKV(item *badgerdb.Item) (*kv, error) {
	raw, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	data, expiresAt, err := decodeRecord(raw)
	if err != nil {
		return nil, err
	}
	return &kv{path: pathOf(item.Key()), data: data, rev: int64(item.Version()), expiresAt: expiresAt}, nil
}

// readTxn opens a read snapshot at rev (0 means the newest revision) and
// returns the revision it reads at. Release it with discard.
func (db *DB) readTxn(rev int64) (*badgerdb.Txn, int64, error) {
	db.readMu.RLock()
	if db.closed.Load() {
		db.readMu.RUnlock()
		return nil, 0, errClosed
	}
	if rev == 0 {
		rev = db.rev.Load()
	}
	return db.bdb.NewTransactionAt(uint64(rev), false), rev, nil
}

// discard releases a snapshot from readTxn.
func (db *DB) discard(txn *badgerdb.Txn) {
	txn.Discard()
	db.readMu.RUnlock()
}

// get reads the newest version of path.
func (db *DB) get(path string) (*kv, int64, error) {
	txn, rev, err := db.readTxn(0)
	if err != nil {
		return nil, 0, err
	}
	defer db.discard(txn)
	cur, err := getKV(txn, path)
	return cur, rev, err
}

// write replaces (data != nil) or deletes (data == nil) path if its current
// version was written at expectRev (0: it must not exist). On success it
// returns the new revision and the replaced version; on a conflict it returns
// revision 0 and the current version (nil if absent).
func (db *DB) write(path string, expectRev int64, data []byte, expiresAt int64) (int64, *kv, error) {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.closed.Load() {
		return 0, nil, errClosed
	}
	cur := db.rev.Load()
	txn := db.bdb.NewTransactionAt(uint64(cur), true)
	defer txn.Discard()
	prev, err := getKV(txn, path)
	if err != nil {
		return 0, nil, err
	}
	prevRev := int64(0)
	if prev != nil {
		prevRev = prev.rev
	}
	if prevRev != expectRev || (data == nil && prev == nil) {
		return 0, prev, nil
	}
	rev := cur + 1
	typ := eventModified
	switch {
	case data == nil:
		typ = eventDeleted
		err = txn.Delete(objectKey(path))
	case prev == nil:
		typ = eventCreated
		fallthrough
	default:
		err = txn.Set(objectKey(path), encodeRecord(data, expiresAt))
	}
	if err == nil && prev != nil && prev.expiresAt != 0 {
		err = txn.Delete(ttlKey(prev.expiresAt, path))
	}
	if err == nil && data != nil && expiresAt != 0 {
		err = txn.Set(ttlKey(expiresAt, path), nil)
	}
	if err == nil {
		err = txn.Set(eventKey(rev), encodeEvent(typ, path))
	}
	if err == nil {
		err = txn.Set(metaRevKey, encodeUint(rev))
	}
	if err == nil {
		err = txn.CommitAt(uint64(rev), nil)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("committing revision %d: %w", rev, err)
	}
	db.rev.Store(rev)
	ev := &rawEvent{rev: rev, path: path, typ: typ, data: data}
	if prev != nil {
		ev.prevData = prev.data
	}
	db.hub.publish(ev)
	return rev, prev, nil
}

// klogLogger routes Badger's log lines to klog, demoting its chatter.
type klogLogger struct{}

func (klogLogger) Errorf(f string, args ...interface{})   { klog.Errorf("badger: "+f, args...) }
func (klogLogger) Warningf(f string, args ...interface{}) { klog.Warningf("badger: "+f, args...) }
func (klogLogger) Infof(f string, args ...interface{})    { klog.V(4).Infof("badger: "+f, args...) }
func (klogLogger) Debugf(f string, args ...interface{})   { klog.V(6).Infof("badger: "+f, args...) }
