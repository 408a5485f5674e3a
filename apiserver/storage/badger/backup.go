package badger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	badgerdb "github.com/dgraph-io/badger/v4"
)

// Backup and restore go through Badger's own backup format (Stream.Backup, DB.Load): every
// version of every key, the revision counters and the event log included.
//
// Both need the database to themselves. Badger lets one process open a directory (it holds
// a lock file), so fed-apiserver must be stopped first; a second process cannot read a
// database another has open, even read-only.

// Backup writes the database in dir to w, as of its newest revision, which it returns.
func Backup(dir string, w io.Writer, opts ...Option) (int64, error) {
	if _, err := os.Stat(filepath.Join(dir, badgerdb.ManifestFilename)); err != nil {
		return 0, fmt.Errorf("no database in %s: %w", dir, err)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	bdb, err := badgerdb.OpenManaged(o.badgerOptions(dir))
	if err != nil {
		return 0, openError(dir, err)
	}
	defer bdb.Close()
	txn := bdb.NewTransactionAt(math.MaxUint64, false)
	rev, err := readCounter(txn, metaRevKey)
	txn.Discard()
	if err != nil {
		return 0, err
	}
	stream := bdb.NewStreamAt(math.MaxUint64)
	stream.LogPrefix = "fed-apiserver backup"
	if _, err := stream.Backup(w, 0); err != nil {
		return 0, fmt.Errorf("backing up %s: %w", dir, err)
	}
	return rev, nil
}

// Restore loads a backup into dir, which must not hold a database, and returns its revision.
// The history before it is compacted away: lists and watches from an older resourceVersion
// get 410 Gone and list again, as after an etcd restore.
func Restore(dir string, r io.Reader, opts ...Option) (int64, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return 0, fmt.Errorf("%s is not empty: restore into a new directory (nothing there was changed)", dir)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	bdb, err := badgerdb.OpenManaged(o.badgerOptions(dir))
	if err != nil {
		return 0, openError(dir, err)
	}
	if err := bdb.Load(r, 256); err != nil {
		_ = bdb.Close()
		return 0, fmt.Errorf("loading the backup: %w", err)
	}
	txn := bdb.NewTransactionAt(math.MaxUint64, false)
	rev, err := readCounter(txn, metaRevKey)
	txn.Discard()
	if err := errors.Join(err, bdb.Close()); err != nil {
		return 0, err
	}
	if rev == 0 {
		return 0, errors.New("the backup holds no fed database (no revision in it)")
	}
	db, err := Open(dir, opts...)
	if err != nil {
		return 0, err
	}
	if _, err := db.Compact(context.Background(), rev); err != nil {
		_ = db.Close()
		return 0, err
	}
	return rev, db.Close()
}

// openError explains the error of a database another process has open.
func openError(dir string, err error) error {
	if strings.Contains(err.Error(), "Another process is using this Badger database") {
		return fmt.Errorf("the database in %s is open in another process (a running fed-apiserver?): stop it first, "+
			"Badger lets one process open a directory", dir)
	}
	return fmt.Errorf("opening the database in %s: %w", dir, err)
}
