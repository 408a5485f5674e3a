package badger

import (
	"context"
	"fmt"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
)

// resultBufferSize is the buffer of a watch's result channel, as in etcd3.
const resultBufferSize = 100

const watchExpired = "The resourceVersion for the provided watch is too old."

// watchChan implements watch.Interface. Its goroutine delivers the initial
// state if asked, then every event after its start revision: first from the
// persisted event log, then live from the hub; when it falls too far behind
// the hub drops it and it resumes from the log.
type watchChan struct {
	s                *Store
	ctx              context.Context
	cancel           context.CancelFunc
	path             string
	recursive        bool
	pred             storage.SelectionPredicate
	acceptAll        bool
	progressNotify   bool
	recordTimestamps bool
	result           chan watch.Event
	lastRev          int64 // every event up to it was handled
}

// Watch implements storage.Interface.
func (s *Store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	path, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rev, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	watchList := utilfeature.DefaultFeatureGate.Enabled(features.WatchList)
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	initialEvents := (opts.SendInitialEvents == nil && rev == 0) || (watchList && sendInitial)
	endBookmark := watchList && sendInitial && opts.Predicate.AllowWatchBookmarks
	w := &watchChan{
		s:                s,
		path:             path,
		recursive:        opts.Recursive,
		pred:             opts.Predicate,
		acceptAll:        opts.Predicate.Empty(),
		progressNotify:   opts.ProgressNotify,
		recordTimestamps: opts.RecordTimestamps,
		result:           make(chan watch.Event, resultBufferSize),
		lastRev:          int64(rev),
	}
	if w.acceptAll {
		w.pred = storage.Everything
	}
	w.ctx, w.cancel = context.WithCancel(ctx)
	// Fix the starting point now: events written after Watch returns must
	// not be folded into the initial state, nor skipped.
	var snapshot *badgerdb.Txn
	switch {
	case initialEvents && w.lastRev <= s.db.Revision():
		if snapshot, w.lastRev, err = s.db.readTxn(0); err != nil {
			w.cancel()
			return nil, err
		}
	case !initialEvents && w.lastRev == 0:
		w.lastRev = s.db.Revision()
	}
	go w.run(initialEvents, endBookmark, snapshot)
	// Events are served from the local database, so the watch is ready at once.
	utilflowcontrol.WatchInitialized(ctx)
	return w, nil
}

func (w *watchChan) Stop()                          { w.cancel() }
func (w *watchChan) ResultChan() <-chan watch.Event { return w.result }

func (w *watchChan) run(initialEvents, endBookmark bool, snapshot *badgerdb.Txn) {
	defer close(w.result)
	defer w.cancel()
	db := w.s.db
	if initialEvents {
		if snapshot == nil {
			w.sendError(storage.NewTooLargeResourceVersionError(uint64(w.lastRev), uint64(db.Revision()), int(wait.Jitter(time.Second, 3).Seconds())))
			return
		}
		if !w.sendInitialState(snapshot) {
			return
		}
	}
	if endBookmark && !w.sendBookmark(w.lastRev, true) {
		return
	}
	for {
		sub := &subscription{path: w.path, recursive: w.recursive, progress: w.progressNotify}
		liveFrom, ok := db.subscribe(sub)
		if !ok {
			return
		}
		ok = w.catchUp(liveFrom) && w.live(sub)
		db.hub.unsubscribe(sub)
		if !ok {
			return
		}
	}
}

// sendInitialState sends the objects in the snapshot as ADDED events;
// lastRev is the snapshot's revision. The snapshot is released before
// sending, so a reader that does not drain cannot hold the database open.
func (w *watchChan) sendInitialState(txn *badgerdb.Txn) bool {
	rev := w.lastRev
	objects, err := w.readObjects(txn)
	w.s.db.discard(txn)
	if err != nil {
		w.sendError(err)
		return false
	}
	for _, cur := range objects {
		if !w.process(&rawEvent{rev: cur.rev, path: cur.path, typ: eventCreated, data: cur.data}, true) {
			return false
		}
	}
	w.lastRev = rev
	return true
}

func (w *watchChan) readObjects(txn *badgerdb.Txn) ([]*kv, error) {
	if !w.recursive {
		cur, err := getKV(txn, w.path)
		if cur == nil || err != nil {
			return nil, err
		}
		return []*kv{cur}, nil
	}
	var objects []*kv
	it := txn.NewIterator(itOptions(objectKey(w.path)))
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		cur, err := itemKV(it.Item())
		if err != nil {
			return nil, err
		}
		objects = append(objects, cur)
	}
	return objects, nil
}

// catchUp replays the event log after lastRev up to upTo.
func (w *watchChan) catchUp(upTo int64) bool {
	db := w.s.db
	for w.lastRev < upTo {
		if w.lastRev < db.CompactedRevision() {
			w.sendError(apierrors.NewResourceExpired(watchExpired))
			return false
		}
		events, scanned, err := db.readEvents(w.lastRev, upTo, liveBufferSize, w.matches)
		if err == nil && w.lastRev < db.CompactedRevision() {
			// Compaction overtook the read; what we read may be incomplete.
			err = apierrors.NewResourceExpired(watchExpired)
		}
		if err != nil {
			w.sendError(err)
			return false
		}
		for _, ev := range events {
			if !w.process(ev, false) {
				return false
			}
		}
		w.lastRev = scanned
	}
	return true
}

// live handles events from the hub until the watch ends (false) or the hub
// drops the subscription for lagging (true: resume from the log).
func (w *watchChan) live(sub *subscription) bool {
	for {
		select {
		case <-w.ctx.Done():
			return false
		case ev, ok := <-sub.ch:
			switch {
			case !ok:
				return true
			case ev.progress:
				if ev.rev >= w.lastRev {
					w.lastRev = ev.rev
					if !w.sendBookmark(ev.rev, false) {
						return false
					}
				}
			case ev.rev > w.lastRev:
				if !w.process(ev, false) {
					return false
				}
			}
		}
	}
}

func (w *watchChan) matches(path string) bool {
	return (&subscription{path: w.path, recursive: w.recursive}).matches(path)
}

// process turns one raw event into the watch event the predicate asks for.
func (w *watchChan) process(ev *rawEvent, initial bool) bool {
	res, err := w.transform(ev)
	if err != nil {
		w.sendError(err)
		return false
	}
	w.lastRev = ev.rev
	if res == nil {
		return true
	}
	if w.recordTimestamps && !initial {
		res.Object = &timedObject{Object: res.Object, at: time.Now()}
	}
	return w.send(*res)
}

func (w *watchChan) transform(ev *rawEvent) (*watch.Event, error) {
	var cur, old runtime.Object
	var err error
	if ev.typ != eventDeleted {
		if cur, err = w.decodeEvent(ev, false); err != nil {
			return nil, err
		}
	}
	if ev.prevData != nil && (ev.typ == eventDeleted || !w.acceptAll) {
		// The old object carries the revision of the event, as in etcd3.
		if old, err = w.decodeEvent(ev, true); err != nil {
			if ev.typ == eventDeleted && w.s.unsafeDeletion {
				return nil, fmt.Errorf("%s - %w", deletedCorruptPrefix, err)
			}
			return nil, err
		}
	}
	switch {
	case ev.typ == eventDeleted:
		if old == nil || !w.filter(old) {
			return nil, nil
		}
		return &watch.Event{Type: watch.Deleted, Object: old}, nil
	case ev.typ == eventCreated:
		if !w.filter(cur) {
			return nil, nil
		}
		return &watch.Event{Type: watch.Added, Object: cur}, nil
	case w.acceptAll:
		return &watch.Event{Type: watch.Modified, Object: cur}, nil
	}
	curPasses, oldPasses := w.filter(cur), old != nil && w.filter(old)
	switch {
	case curPasses && oldPasses:
		return &watch.Event{Type: watch.Modified, Object: cur}, nil
	case curPasses:
		return &watch.Event{Type: watch.Added, Object: cur}, nil
	case oldPasses:
		return &watch.Event{Type: watch.Deleted, Object: old}, nil
	}
	return nil, nil
}

// decodeEvent decodes the new object of an event, or with prev the one it replaced. An
// event the hub handed to several watchers is decoded once, by the first of them, and each
// gets a copy of its own, which it may change as it likes.
func (w *watchChan) decodeEvent(ev *rawEvent, prev bool) (runtime.Object, error) {
	data := ev.data
	if prev {
		data = ev.prevData
	}
	if ev.watchers < sharedDecodeWatchers {
		return w.decode(ev.path, data, ev.rev)
	}
	d := &ev.decoded
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.store != nil && d.store != w.s {
		// Another store's watcher decoded it, with a codec that may not be ours.
		return w.decode(ev.path, data, ev.rev)
	}
	slot := &d.cur
	if prev {
		slot = &d.prev
	}
	if *slot == nil {
		obj, err := w.decode(ev.path, data, ev.rev)
		if err != nil {
			return nil, err
		}
		d.store, *slot = w.s, obj
	}
	return (*slot).DeepCopyObject(), nil
}

func (w *watchChan) decode(path string, stored []byte, rev int64) (runtime.Object, error) {
	data, _, err := w.s.fromStorage(w.ctx, path, stored)
	if err != nil {
		return nil, err
	}
	return w.s.decodeNew(data, w.s.newFunc, rev)
}

func (w *watchChan) filter(obj runtime.Object) bool {
	if w.acceptAll {
		return true
	}
	matched, err := w.pred.Matches(obj)
	return err == nil && matched
}

// sendBookmark sends a BOOKMARK with an empty object at rev.
func (w *watchChan) sendBookmark(rev int64, initialEventsEnd bool) bool {
	obj := w.s.newFunc()
	if err := w.s.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		w.sendError(fmt.Errorf("failed to propagate object resource version: %w", err))
		return false
	}
	if initialEventsEnd {
		if err := storage.AnnotateInitialEventsEndBookmark(obj); err != nil {
			w.sendError(err)
			return false
		}
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

func (w *watchChan) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// sendError ends the watch with an ERROR event, unless it was stopped.
func (w *watchChan) sendError(err error) {
	if w.ctx.Err() != nil {
		return
	}
	w.send(watch.Event{Type: watch.Error, Object: watchErrorStatus(err)})
}

// timedObject carries the time a watch event was decoded, for the watch
// cache's latency metrics (ListOptions.RecordTimestamps).
type timedObject struct {
	runtime.Object
	at time.Time
}

var _ storage.WatchEventWithRecordTime = &timedObject{}

func (t *timedObject) RecordTime() time.Time  { return t.at }
func (t *timedObject) Unwrap() runtime.Object { return t.Object }
func (t *timedObject) DeepCopyObject() runtime.Object {
	return &timedObject{Object: t.Object.DeepCopyObject(), at: t.at}
}
func (t *timedObject) GetObjectMeta() metav1.Object {
	m, _ := meta.Accessor(t.Object)
	return m
}
