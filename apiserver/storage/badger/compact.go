package badger

import (
	"context"
	"errors"
	"fmt"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	"k8s.io/klog/v2"
)

// Compact drops the history before rev, as etcd's compaction does: lists at
// an exact resourceVersion older than rev and watches starting before rev
// fail with 410 Gone afterwards; the state at rev itself stays readable.
// Like the apiserver's etcd compaction, the compaction is itself recorded at
// a new revision. It returns the revision compacted to: not past the revision of a backup
// streaming now (see backupAt), whose snapshot must stay whole until it ends.
func (db *DB) Compact(ctx context.Context, rev int64) (int64, error) {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.closed.Load() {
		return 0, errClosed
	}
	cur := db.rev.Load()
	if rev > cur {
		return 0, fmt.Errorf("cannot compact to revision %d: newest revision is %d", rev, cur)
	}
	for backupRev := range db.backups {
		rev = min(rev, backupRev)
	}
	old := db.compactRev.Load()
	if rev <= old {
		return old, nil
	}
	next := cur + 1
	txn := db.bdb.NewTransactionAt(uint64(cur), true)
	defer txn.Discard()
	if err := txn.Set(metaCompactKey, encodeUint(rev)); err != nil {
		return 0, err
	}
	if err := txn.Set(metaRevKey, encodeUint(next)); err != nil {
		return 0, err
	}
	if err := txn.CommitAt(uint64(next), nil); err != nil {
		return 0, fmt.Errorf("recording compaction to %d: %w", rev, err)
	}
	db.rev.Store(next)
	db.compactRev.Store(rev)
	// From now on Badger may drop every version hidden by a newer one at or
	// below rev, and deleted keys whose deletion is at or below rev.
	db.bdb.SetDiscardTs(uint64(rev))
	if err := db.dropEvents(ctx, rev, next); err != nil {
		// The events are unreachable already (watches before rev are
		// refused); the next compaction retries.
		klog.Warningf("badger storage: dropping event log up to %d: %v", rev, err)
	}
	return rev, nil
}

// dropEvents deletes the event log entries up to revision to, committing
// the deletions at revision at.
func (db *DB) dropEvents(ctx context.Context, to, at int64) error {
	txn := db.bdb.NewTransactionAt(uint64(at), false)
	defer txn.Discard()
	opts := badgerdb.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = eventPrefix
	it := txn.NewIterator(opts)
	defer it.Close()
	wb := db.bdb.NewWriteBatchAt(uint64(at))
	defer wb.Cancel()
	// Start at the beginning: entries may survive an interrupted compaction.
	for it.Seek(eventKey(0)); it.Valid(); it.Next() {
		k := it.Item().KeyCopy(nil)
		if revOfEventKey(k) > to {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// startBackground starts the periodic work configured in options.
func (db *DB) startBackground() {
	db.every(db.opts.compactionInterval, db.compactorTick())
	db.every(db.opts.valueLogGCInterval, func() {
		if err := db.RunValueLogGC(); err != nil {
			klog.Warningf("badger storage: value log GC: %v", err)
		}
	})
	db.every(db.opts.ttlCheckInterval, func() {
		if err := db.expireTTLs(time.Now()); err != nil && !errors.Is(err, errClosed) {
			klog.Warningf("badger storage: expiring objects: %v", err)
		}
	})
	db.every(db.opts.progressNotifyInterval, db.RequestProgress)
}

// compactorTick returns the compactor's step: compact to the revision seen
// at the previous tick, so at least one interval of history is kept, like
// the apiserver's etcd compactor.
func (db *DB) compactorTick() func() {
	var seen int64
	return func() {
		if seen > 0 {
			if _, err := db.Compact(context.Background(), seen); err != nil && !errors.Is(err, errClosed) {
				klog.Warningf("badger storage: compacting to %d: %v", seen, err)
			}
		}
		seen = db.Revision()
	}
}

// every runs f every d until the DB closes; d <= 0 disables it.
func (db *DB) every(d time.Duration, f func()) {
	if d <= 0 {
		return
	}
	db.wg.Add(1)
	go func() {
		defer db.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-db.stopCh:
				return
			case <-t.C:
				f()
			}
		}
	}()
}

// RunValueLogGC rewrites value-log files until Badger finds nothing more
// worth reclaiming.
func (db *DB) RunValueLogGC() error {
	if db.closed.Load() {
		return errClosed
	}
	for {
		err := db.bdb.RunValueLogGC(valueLogGCDiscardRatio)
		switch {
		case err == nil:
			continue
		case errors.Is(err, badgerdb.ErrNoRewrite), errors.Is(err, badgerdb.ErrRejected),
			errors.Is(err, badgerdb.ErrGCInMemoryMode):
			return nil
		default:
			return err
		}
	}
}
