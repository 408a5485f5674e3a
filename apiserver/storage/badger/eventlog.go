package badger

import (
	badgerdb "github.com/dgraph-io/badger/v4"
)

func itOptions(prefix []byte) badgerdb.IteratorOptions {
	opts := badgerdb.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	return opts
}

// readEvents reads the logged events after revision `after` up to `upTo`
// whose key passes match, at most max of them. The values come from the
// MVCC history: the object at the event's revision and, as the previous
// version, the one just before it. scanned is the revision up to which the
// log was read.
func (db *DB) readEvents(after, upTo int64, max int, match func(string) bool) (events []*rawEvent, scanned int64, err error) {
	txn, _, err := db.readTxn(upTo)
	if err != nil {
		return nil, 0, err
	}
	defer db.discard(txn)
	it := txn.NewIterator(itOptions(eventPrefix))
	defer it.Close()
	scanned = upTo
	for it.Seek(eventKey(after + 1)); it.Valid(); it.Next() {
		item := it.Item()
		rev := revOfEventKey(item.Key())
		if rev > upTo {
			break
		}
		if len(events) >= max {
			scanned = rev - 1
			break
		}
		var typ eventType
		var path string
		if err := item.Value(func(b []byte) error {
			typ, path, err = decodeEvent(b)
			return err
		}); err != nil {
			return nil, 0, err
		}
		if !match(path) {
			continue
		}
		ev, err := eventAt(db.bdb, rev, typ, path)
		if err != nil {
			return nil, 0, err
		}
		events = append(events, ev)
	}
	return events, scanned, nil
}

// eventAt rebuilds a logged event from the versions around rev.
// It runs inside readEvents, whose snapshot keeps the database open.
func eventAt(bdb *badgerdb.DB, rev int64, typ eventType, path string) (*rawEvent, error) {
	ev := &rawEvent{rev: rev, path: path, typ: typ}
	if typ != eventDeleted {
		cur, err := versionAt(bdb, rev, path)
		if err != nil {
			return nil, err
		}
		if cur != nil && cur.rev == rev {
			ev.data = cur.data
		}
	}
	if typ != eventCreated {
		prev, err := versionAt(bdb, rev-1, path)
		if err != nil {
			return nil, err
		}
		if prev != nil {
			ev.prevData = prev.data
		}
	}
	return ev, nil
}

func versionAt(bdb *badgerdb.DB, rev int64, path string) (*kv, error) {
	txn := bdb.NewTransactionAt(uint64(rev), false)
	defer txn.Discard()
	return getKV(txn, path)
}
