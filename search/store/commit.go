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
	"bytes"
	"errors"

	badger "github.com/dgraph-io/badger/v4"
	"k8s.io/apimachinery/pkg/watch"
)

// batch is one commit in the making: the values it wrote so far (nil: deleted), for the
// ops after them that read the same keys, and the events it makes.
type batch struct {
	s       *Store
	txn     *badger.Txn
	wb      *badger.WriteBatch
	rev     uint64
	written map[string]*value
	events  []*event
	counts  map[Source]int64
}

// commit writes the ops at the revisions after the visible one, one per changed object,
// then makes them visible and hands their events to the watches.
func (s *Store) commit(ops []*op) error {
	b := &batch{
		s:       s,
		txn:     s.db.NewTransactionAt(s.visible.Load(), false),
		wb:      s.db.NewManagedWriteBatch(),
		rev:     s.visible.Load(),
		written: map[string]*value{},
		counts:  map[Source]int64{},
	}
	defer b.txn.Discard()
	defer b.wb.Cancel()
	// The checkpoints the batch writes (nil: deletes).
	checkpoints := map[Source]*string{}
	for _, o := range ops {
		if o.src.Cluster == "" { // Sync
			continue
		}
		if err := b.count(o.src); err != nil {
			return err
		}
		var err error
		switch o.kind {
		case opPut:
			err = b.put(o.src, o.obj, o.raw)
		case opDelete:
			err = b.delete(o.src, objectKey(o.src.Resource, o.src.Cluster, o.namespace, o.name))
		case opSweep:
			err = b.sweep(o.src, o.keep)
		case opDrop:
			err = b.sweep(o.src, nil)
			checkpoints[o.src] = nil
		case opRelease:
			checkpoints[o.src] = nil
		case opStart:
			if _, ok := checkpoints[o.src]; !ok {
				if _, err := b.txn.Get(o.src.checkpointKey()); errors.Is(err, badger.ErrKeyNotFound) {
					empty := ""
					checkpoints[o.src] = &empty
				}
			}
		}
		if err != nil {
			return err
		}
		if o.checkpoint != "" {
			cp := o.checkpoint
			checkpoints[o.src] = &cp
		}
	}
	if len(checkpoints) > 0 {
		b.rev++
		for src, cp := range checkpoints {
			var err error
			if cp == nil {
				err = b.wb.DeleteAt(src.checkpointKey(), b.rev)
			} else {
				err = b.wb.SetEntryAt(badger.NewEntry(src.checkpointKey(), []byte(*cp)), b.rev)
			}
			if err != nil {
				return err
			}
		}
	}
	if b.rev == s.visible.Load() {
		return nil
	}
	if err := b.wb.Flush(); err != nil {
		return err
	}
	s.visible.Store(b.rev)
	s.mu.Lock()
	for src, n := range b.counts {
		s.counts[src] = n
	}
	s.mu.Unlock()
	s.events.add(b.events, b.rev)
	return nil
}

// count makes sure the batch knows how many objects src has, counting them once per
// opening of the store.
func (b *batch) count(src Source) error {
	if _, ok := b.counts[src]; ok {
		return nil
	}
	if n := b.s.Count(src); n >= 0 {
		b.counts[src] = n
		return nil
	}
	b.counts[src] = countKeys(b.txn, src.prefix())
	return nil
}

// read is the value of key as of this batch: written earlier in it, or in Badger.
func (b *batch) read(key []byte) (*value, error) {
	if v, ok := b.written[string(key)]; ok {
		return v, nil
	}
	item, err := b.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	return decodeValue(raw)
}

func (b *batch) put(src Source, obj *Object, raw []byte) error {
	key := obj.key()
	old, err := b.read(key)
	if err != nil {
		return err
	}
	if raw == nil {
		raw = obj.encode()
	}
	cur, err := decodeValue(raw)
	if err != nil {
		return err
	}
	b.rev++
	if err := b.wb.SetEntryAt(badger.NewEntry(key, raw), b.rev); err != nil {
		return err
	}
	b.written[string(key)] = cur
	typ := watch.Modified
	if old == nil {
		typ = watch.Added
		b.counts[src]++
	}
	b.events = append(b.events, &event{typ: typ, rev: b.rev, key: key, prev: old, cur: cur})
	return nil
}

func (b *batch) delete(src Source, key []byte) error {
	old, err := b.read(key)
	if err != nil || old == nil {
		return err
	}
	b.rev++
	if err := b.wb.DeleteAt(key, b.rev); err != nil {
		return err
	}
	b.written[string(key)] = nil
	b.counts[src]--
	b.events = append(b.events, &event{typ: watch.Deleted, rev: b.rev, key: key, prev: old})
	return nil
}

// sweep deletes the objects of src not in keep: those in Badger and those written earlier
// in this batch.
func (b *batch) sweep(src Source, keep map[string]struct{}) error {
	prefix := src.prefix()
	kp := kindPrefix(src.Resource)
	var doomed [][]byte
	gone := func(key []byte) bool {
		p, err := parseKey(kp, key)
		if err != nil {
			return false
		}
		_, kept := keep[p.namespace+"/"+p.name]
		return !kept
	}
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := b.txn.NewIterator(opts)
	for it.Rewind(); it.Valid(); it.Next() {
		if key := it.Item().KeyCopy(nil); gone(key) {
			doomed = append(doomed, key)
		}
	}
	it.Close()
	for k, v := range b.written {
		if key := []byte(k); v != nil && bytes.HasPrefix(key, prefix) && gone(key) {
			if _, err := b.txn.Get(key); errors.Is(err, badger.ErrKeyNotFound) {
				doomed = append(doomed, key)
			}
		}
	}
	for _, key := range doomed {
		if err := b.delete(src, key); err != nil {
			return err
		}
	}
	return nil
}
