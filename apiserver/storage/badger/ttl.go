package badger

import (
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
)

// Objects written with a TTL (Events, mostly) carry their expiry in the
// record header and in a TTL index ordered by expiry. The reaper deletes
// them through the normal write path, so watchers see a DELETED event at a
// new revision, as with an etcd lease running out.

// expiry converts a TTL in seconds into an absolute unix time; 0 means none.
func expiry(ttl uint64) int64 {
	if ttl == 0 {
		return 0
	}
	return time.Now().Unix() + int64(ttl)
}

// expireTTLs deletes every object whose TTL ran out before now.
func (db *DB) expireTTLs(now time.Time) error {
	txn, _, err := db.readTxn(0)
	if err != nil {
		return err
	}
	type due struct {
		path      string
		expiresAt int64
	}
	var expired []due
	opts := badgerdb.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = ttlPrefix
	it := txn.NewIterator(opts)
	for it.Rewind(); it.Valid(); it.Next() {
		expiresAt, path := parseTTLKey(it.Item().Key())
		if expiresAt > now.Unix() {
			break
		}
		expired = append(expired, due{path: path, expiresAt: expiresAt})
	}
	it.Close()
	db.discard(txn)

	for _, d := range expired {
		cur, _, err := db.get(d.path)
		if err != nil {
			return err
		}
		if cur == nil || cur.expiresAt != d.expiresAt {
			continue // rewritten or deleted since
		}
		// A concurrent write wins: expectRev makes this a no-op then.
		if _, _, err := db.write(d.path, cur.rev, nil, 0); err != nil {
			return err
		}
	}
	return nil
}
