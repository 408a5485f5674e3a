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
// version of every key at one revision, the revision counters and the event log included.
//
// Badger lets one process open a directory (it holds a lock file), and a second process
// cannot read a database another has open, even read-only. So the process that has the
// database open takes the backup: a running fed-apiserver serves it on a unix socket in its
// data directory (backupsocket.go), and Backup asks it there; with no server running,
// Backup opens the directory itself. Both stream the same snapshot format.
//
// A backup reads one Badger snapshot at the newest committed revision R: every write is
// committed at its revision, so the snapshot holds exactly the writes up to R, and the
// revision counter in it says R. Writes go on meanwhile at later revisions, which the
// snapshot does not see; Compact stops at R until the backup ends, so that Badger keeps the
// versions the snapshot reads.

// Backup writes the database in dir to w, as of its newest revision, which it returns. When
// a fed-apiserver has the database open, it takes the backup and the writes go on; otherwise
// the directory is opened here.
func Backup(dir string, w io.Writer, opts ...Option) (int64, error) {
	if _, err := os.Stat(filepath.Join(dir, badgerdb.ManifestFilename)); err != nil {
		return 0, fmt.Errorf("no database in %s: %w", dir, err)
	}
	rev, err := backupFromServer(dir, w)
	if !errors.Is(err, errNoServer) {
		return rev, err
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
	rev, err = readCounter(txn, metaRevKey)
	txn.Discard()
	if err != nil {
		return 0, err
	}
	if err := streamBackup(context.Background(), bdb, rev, w); err != nil {
		return 0, fmt.Errorf("backing up %s: %w", dir, err)
	}
	return rev, nil
}

// pinBackup holds the newest revision for a backup of the open database: until release,
// Compact leaves it whole and Close waits.
func (db *DB) pinBackup() (rev int64, release func(), err error) {
	db.readMu.RLock()
	if db.closed.Load() {
		db.readMu.RUnlock()
		return 0, nil, errClosed
	}
	// Under writeMu no commit and no compaction is half done: every revision up to rev is
	// committed, and the discard timestamp is at most the compacted revision, below rev.
	db.writeMu.Lock()
	rev = db.rev.Load()
	db.backups[rev]++
	db.writeMu.Unlock()
	return rev, func() {
		db.writeMu.Lock()
		if db.backups[rev]--; db.backups[rev] == 0 {
			delete(db.backups, rev)
		}
		db.writeMu.Unlock()
		db.readMu.RUnlock()
	}, nil
}

// streamBackup writes Badger's backup of every key as of rev to w, until ctx is done.
func streamBackup(ctx context.Context, bdb *badgerdb.DB, rev int64, w io.Writer) error {
	stream := bdb.NewStreamAt(uint64(rev))
	stream.LogPrefix = "fed-apiserver backup"
	// A backup of a serving database should take little of its CPU and memory: two readers,
	// and batches of a few MiB to the writer.
	stream.NumGo = 2
	stream.MaxSize = 8 << 20
	_, err := stream.Backup(ctxWriter{ctx: ctx, w: w}, 0)
	return err
}

// ctxWriter fails its writes once ctx is done, which ends the stream writing to it.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
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
		return fmt.Errorf("the database in %s is open in another process, and no fed-apiserver answers on %s: "+
			"stop that process first (Badger lets one process open a directory)", dir, filepath.Join(dir, BackupSocket))
	}
	return fmt.Errorf("opening the database in %s: %w", dir, err)
}
