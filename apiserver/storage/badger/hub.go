package badger

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// liveBufferSize is how many committed events a watcher may have pending
// before it is dropped from live delivery; it then catches up from the
// persisted event log, so a slow watcher costs disk reads, not memory.
const liveBufferSize = 1024

// rawEvent is one committed change (or a progress marker) as handed to
// watchers: still transformed, not decoded (until the first of them decodes it).
type rawEvent struct {
	rev      int64
	path     string
	typ      eventType
	data     []byte // new version; nil for deletes
	prevData []byte // replaced version; nil if the key did not exist

	progress bool // a progress marker: everything up to rev was delivered

	// watchers is how many live subscriptions the hub handed the event to. With
	// sharedDecodeWatchers or more, the first of them to decode an object of the event
	// keeps it in decoded, and each of them gets a copy: DeepCopy costs a fraction of
	// decoding JSON, and a resource has several watchers (fed's informers, the host's
	// garbage collector and quota controller through the aggregation layer).
	watchers int
	decoded  decodedEvent
}

// sharedDecodeWatchers is how many watchers of an event make it decoded once for all of
// them (a variable for the benchmark's baseline).
var sharedDecodeWatchers = 2

// decodedEvent holds what a store decoded of an event for the event's other watchers.
type decodedEvent struct {
	mu        sync.Mutex
	store     *Store // whose codec decoded them
	cur, prev runtime.Object
}

// subscription is one watcher's registration for live events.
type subscription struct {
	path      string // exact key, or prefix ending in "/" when recursive
	recursive bool
	progress  bool // wants progress markers
	ch        chan *rawEvent
}

func (s *subscription) matches(path string) bool {
	if s.recursive {
		return strings.HasPrefix(path, s.path)
	}
	return path == s.path
}

// hub fans committed events out to live subscriptions. publish and progress
// run under DB.writeMu, so events arrive in revision order.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
}

func newHub() *hub { return &hub{subs: map[*subscription]struct{}{}} }

// subscribe registers s and returns the revision from which on every event
// is delivered live (all revisions after it).
func (db *DB) subscribe(s *subscription) (int64, bool) {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.closed.Load() {
		return 0, false
	}
	s.ch = make(chan *rawEvent, liveBufferSize)
	db.hub.mu.Lock()
	db.hub.subs[s] = struct{}{}
	db.hub.mu.Unlock()
	return db.rev.Load(), true
}

// unsubscribe removes s and closes its channel, unless the hub already did.
func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
}

func (h *hub) publish(ev *rawEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.matches(ev.path) {
			ev.watchers++
		}
	}
	for s := range h.subs {
		if !s.matches(ev.path) {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			// Too far behind: stop live delivery. The watcher sees the
			// closed channel after the events it already has and resumes
			// from the event log.
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// notifyProgress sends a progress marker at rev to subscriptions that asked
// for them. A full channel just misses the marker: progress is best effort.
func (h *hub) notifyProgress(rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev := &rawEvent{rev: rev, progress: true}
	for s := range h.subs {
		if !s.progress {
			continue
		}
		select {
		case s.ch <- ev:
		default:
		}
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}

// RequestProgress makes every watch opened with ProgressNotify send a
// bookmark for the current revision once it has delivered all events up to it.
func (db *DB) RequestProgress() {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	if db.closed.Load() {
		return
	}
	db.hub.notifyProgress(db.rev.Load())
}
