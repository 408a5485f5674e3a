package badger

import (
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	badgeroptions "github.com/dgraph-io/badger/v4/options"
)

// Defaults follow the apiserver's etcd settings where one exists.
const (
	// DefaultCompactionInterval matches the apiserver's --etcd-compaction-interval.
	DefaultCompactionInterval = 5 * time.Minute
	// DefaultValueLogGCInterval is how often Badger's value log is garbage collected.
	DefaultValueLogGCInterval = 10 * time.Minute
	// DefaultProgressNotifyInterval is how often watches that asked for
	// progress notifications receive a bookmark (etcd's default is 10m; the
	// watch cache asks explicitly through RequestWatchProgress when it needs one).
	DefaultProgressNotifyInterval = time.Minute
	// DefaultTTLCheckInterval is how often objects written with a TTL are reaped.
	DefaultTTLCheckInterval = time.Second
	// valueThreshold is the size over which Badger keeps a value in its value log.
	valueThreshold = 512
	// valueLogGCDiscardRatio is the ratio passed to RunValueLogGC.
	valueLogGCDiscardRatio = 0.5
)

type options struct {
	compactionInterval     time.Duration
	valueLogGCInterval     time.Duration
	progressNotifyInterval time.Duration
	ttlCheckInterval       time.Duration
	syncWrites             bool
	inMemory               bool
	tune                   func(badgerdb.Options) badgerdb.Options
}

// Option configures Open.
type Option func(*options)

// WithCompactionInterval sets how often old revisions are compacted. Each run
// compacts up to the revision seen by the previous run, so history of at least
// one interval is kept, as the apiserver does for etcd. Zero disables the compactor.
func WithCompactionInterval(d time.Duration) Option {
	return func(o *options) { o.compactionInterval = d }
}

// WithValueLogGCInterval sets how often Badger's value log is garbage
// collected. Zero disables it.
func WithValueLogGCInterval(d time.Duration) Option {
	return func(o *options) { o.valueLogGCInterval = d }
}

// WithProgressNotifyInterval sets how often watches opened with
// ProgressNotify receive a bookmark. Zero disables the periodic bookmarks;
// RequestWatchProgress still works.
func WithProgressNotifyInterval(d time.Duration) Option {
	return func(o *options) { o.progressNotifyInterval = d }
}

// WithTTLCheckInterval sets how often expired objects are deleted.
func WithTTLCheckInterval(d time.Duration) Option {
	return func(o *options) { o.ttlCheckInterval = d }
}

// WithSyncWrites makes every commit fsync before it returns. Without it a
// commit survives a crash of the process (kill -9) but not of the machine.
func WithSyncWrites(sync bool) Option {
	return func(o *options) { o.syncWrites = sync }
}

// WithInMemory keeps everything in memory (tests and benchmarks only);
// the directory passed to Open is ignored.
func WithInMemory() Option {
	return func(o *options) { o.inMemory = true }
}

// WithBadgerOptions lets the caller adjust Badger's own options (memory
// budget, logger, ...). The managed-mode settings this package relies on
// are applied after it and cannot be overridden.
func WithBadgerOptions(tune func(badgerdb.Options) badgerdb.Options) Option {
	return func(o *options) { o.tune = tune }
}

func defaultOptions() options {
	return options{
		compactionInterval:     DefaultCompactionInterval,
		valueLogGCInterval:     DefaultValueLogGCInterval,
		progressNotifyInterval: DefaultProgressNotifyInterval,
		ttlCheckInterval:       DefaultTTLCheckInterval,
	}
}

func (o options) badgerOptions(dir string) badgerdb.Options {
	// Objects are kilobytes and every write stores a whole new version, so values over
	// valueThreshold live in the value log, written once, and compaction moves only keys
	// and pointers; blocks are not compressed (compression cost more CPU than the disk it
	// saved, in the propagation bench). So a memtable holds mostly keys and pointers, three
	// per write (the object, the event, the revision): 8 MiB is tens of thousands of
	// writes. Each memtable's arena is allocated whole and its log mapped whole, and the
	// heap the collector lets grow is twice what is live: a memtable of 16 MiB cost about
	// 40 MiB of RSS.
	bo := badgerdb.DefaultOptions(dir).
		WithLogger(klogLogger{}).
		WithMemTableSize(8 << 20).
		WithNumMemtables(3).
		WithValueThreshold(valueThreshold).
		WithCompression(badgeroptions.None).
		WithBlockCacheSize(64 << 20).
		WithValueLogFileSize(256 << 20)
	if o.inMemory {
		bo = bo.WithDir("").WithValueDir("").WithInMemory(true)
	}
	if o.tune != nil {
		bo = o.tune(bo)
	}
	// Keep every version above the discard timestamp (set by Compact) and
	// the newest one at or below it: that is exactly etcd's compaction.
	return bo.WithNumVersionsToKeep(1).
		WithSyncWrites(o.syncWrites).
		// Writes are serialized by DB.writeMu, so Badger need not track conflicts.
		WithDetectConflicts(false)
}
