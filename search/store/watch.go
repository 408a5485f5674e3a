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

package store

import (
	"context"
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// event is one change the writer made.
type event struct {
	typ watch.EventType
	rev uint64
	key []byte
	// prev is the object before the change (nil: it did not exist), cur after it (nil:
	// deleted).
	prev, cur *value
}

// ring keeps the most recent events, for watches to follow and to resume from.
type ring struct {
	mu  sync.RWMutex
	buf []*event
	// next is where the next event goes, n how many the ring holds.
	next, n int
	// since is the revision after which the ring holds every event.
	since uint64
	// head is the revision of the last batch added.
	head uint64
	// changed is closed (and replaced) when events are added.
	changed chan struct{}
}

func newRing(capacity int, rev uint64) *ring {
	return &ring{buf: make([]*event, capacity), since: rev, head: rev, changed: make(chan struct{})}
}

// add appends a batch's events, which end at revision rev.
func (r *ring) add(events []*event, rev uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range events {
		if r.n == len(r.buf) {
			r.since = r.buf[r.next].rev // the oldest goes
		} else {
			r.n++
		}
		r.buf[r.next] = e
		r.next = (r.next + 1) % len(r.buf)
	}
	r.head = rev
	close(r.changed)
	r.changed = make(chan struct{})
}

// ErrExpired is returned for a watch from a revision older than the ring holds, or a
// continue token older than the history the cache keeps: the caller lists again.
var ErrExpired = errors.New("too old resource version")

// after returns the events after revision rev, the revision they end at, and a channel
// closed when there are more.
func (r *ring) after(rev uint64) ([]*event, uint64, <-chan struct{}, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if rev < r.since {
		return nil, 0, nil, ErrExpired
	}
	// The newest are at the end: walk back to the first one after rev.
	i := 0
	for i < r.n && r.at(r.n-1-i).rev > rev {
		i++
	}
	out := make([]*event, i)
	for j := range i {
		out[j] = r.at(r.n - i + j)
	}
	return out, max(r.head, rev), r.changed, nil
}

// at is the i-th event held, oldest first.
func (r *ring) at(i int) *event {
	return r.buf[(r.next-r.n+i+len(r.buf))%len(r.buf)]
}

// Event is what a watch of the store delivers: a Kubernetes watch event's type and the
// object's JSON, or (Bookmark) only the revision reached.
type Event struct {
	Type     watch.EventType
	Object   []byte
	Revision uint64
}

// Watch sends on events, until ctx ends or an error, every change after revision from
// (0: from now) of the objects q selects, as a Kubernetes watch of them would: an object
// that comes to match is ADDED, one that stops matching DELETED. When bookmarks is set, a
// Bookmark goes out after every batch, so that a client resumes from the latest revision.
func (s *Store) Watch(ctx context.Context, q Query, from uint64, bookmarks bool, events chan<- Event) error {
	m, err := q.matcher()
	if err != nil {
		return err
	}
	if from == 0 {
		from = s.visible.Load()
	}
	for {
		batch, rev, changed, err := s.events.after(from)
		if err != nil {
			return err
		}
		for _, e := range batch {
			out, ok, err := s.convert(m, e)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			select {
			case events <- out:
			case <-ctx.Done():
				return nil
			}
		}
		if bookmarks && rev > from {
			select {
			case events <- Event{Type: watch.Bookmark, Revision: rev}:
			case <-ctx.Done():
				return nil
			}
		}
		from = rev
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// convert is what a watcher with matcher m sees of e, if anything.
func (s *Store) convert(m *matcher, e *event) (Event, bool, error) {
	p, ok := m.key(e.key)
	if !ok {
		return Event{}, false, nil
	}
	was := e.prev != nil && m.matches(e.prev)
	is := e.cur != nil && m.matches(e.cur)
	var typ watch.EventType
	obj := e.cur
	switch {
	case was && is:
		typ = watch.Modified
	case is:
		typ = watch.Added
	case was:
		typ = watch.Deleted
		if obj == nil {
			obj = e.prev
		}
	default:
		return Event{}, false, nil
	}
	raw, err := obj.json(e.rev, s.annotationsOf(p.cluster))
	if err != nil {
		return Event{}, false, err
	}
	return Event{Type: typ, Object: raw, Revision: e.rev}, true, nil
}
