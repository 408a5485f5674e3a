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
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Query selects cached objects of one kind.
type Query struct {
	Resource schema.GroupResource
	// Namespace: "" for all.
	Namespace string
	// Clusters: empty for all.
	Clusters []string
	// Labels and Fields select on the objects' labels and selectable fields; nil selects
	// everything.
	Labels labels.Selector
	Fields fields.Selector
}

// matcher is a Query ready to test keys and values.
type matcher struct {
	q        Query
	prefix   []byte
	clusters map[string]bool
	labels   labels.Selector
	fields   fields.Selector
}

func (q Query) matcher() (*matcher, error) {
	if q.Resource.Resource == "" {
		return nil, fmt.Errorf("a search names a resource")
	}
	m := &matcher{q: q, prefix: kindPrefix(q.Resource), labels: q.Labels, fields: q.Fields}
	if len(q.Clusters) > 0 {
		m.clusters = map[string]bool{}
		for _, c := range q.Clusters {
			m.clusters[c] = true
		}
	}
	if m.labels != nil && m.labels.Empty() {
		m.labels = nil
	}
	if m.fields != nil && m.fields.Empty() {
		m.fields = nil
	}
	return m, nil
}

// key tells whether an object key is of the query's kind, cluster and namespace.
func (m *matcher) key(key []byte) (keyParts, bool) {
	p, err := parseKey(m.prefix, key)
	if err != nil {
		return p, false
	}
	if m.clusters != nil && !m.clusters[p.cluster] {
		return p, false
	}
	return p, m.q.Namespace == "" || p.namespace == m.q.Namespace
}

func (m *matcher) matches(v *value) bool {
	return (m.labels == nil || m.labels.Matches(v.labels)) && (m.fields == nil || m.fields.Matches(v.fields))
}

// continueToken is where a paginated list goes on: the revision its first page was read
// at, and the key after which the next page starts.
type continueToken struct {
	Revision uint64 `json:"rv"`
	Start    []byte `json:"start"`
}

func (t continueToken) encode() string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil || t.Revision == 0 {
		return t, fmt.Errorf("%w: continue %q is not a continue token of the search cache", ErrInvalid, s)
	}
	return t, nil
}

// ErrInvalid is returned for a malformed continue token.
var ErrInvalid = fmt.Errorf("invalid")

// Page is one answer of List.
type Page struct {
	// Revision is the revision the list was read at (that of its first page).
	Revision uint64
	// Continue is where the next page starts ("": this was the last one).
	Continue string
}

// List calls emit with the JSON of each object q selects, at most limit of them (0: all),
// grouped by cluster and ordered by namespace and name within it; cont continues an
// earlier list (its Page.Continue) at the revision that list was read at, so that every
// page is of the same snapshot.
func (s *Store) List(ctx context.Context, q Query, limit int64, cont string, emit func(obj []byte) error) (Page, error) {
	m, err := q.matcher()
	if err != nil {
		return Page{}, err
	}
	page := Page{Revision: s.visible.Load()}
	var start []byte
	if cont != "" {
		t, err := decodeContinue(cont)
		if err != nil {
			return Page{}, err
		}
		if t.Revision < s.oldest.Load() || !bytes.HasPrefix(t.Start, m.prefix) {
			return Page{}, fmt.Errorf("%w: the continue token is older than the search cache keeps", ErrExpired)
		}
		page.Revision, start = t.Revision, t.Start
	}
	txn := s.db.NewTransactionAt(page.Revision, false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = m.prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	seek := m.first()
	if start != nil && bytes.Compare(start, seek) > 0 {
		seek = start
	}
	var n int64
	var buf []byte
	var cluster string
	var extra map[string]string
	for it.Seek(seek); it.Valid(); {
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		key := it.Item().Key()
		p, err := parseKey(m.prefix, key)
		if err != nil {
			return Page{}, err
		}
		if next := m.skip(p); next != nil {
			it.Seek(next)
			continue
		}
		if limit > 0 && n == limit {
			page.Continue = continueToken{Revision: page.Revision, Start: it.Item().KeyCopy(nil)}.encode()
			return page, nil
		}
		if buf, err = it.Item().ValueCopy(buf[:0]); err != nil {
			return Page{}, err
		}
		v, err := decodeValue(buf)
		if err != nil {
			return Page{}, fmt.Errorf("%w at %q", err, key)
		}
		if m.matches(v) {
			if p.cluster != cluster { // keys come grouped by cluster
				cluster, extra = p.cluster, s.annotationsOf(p.cluster)
			}
			raw, err := v.json(it.Item().Version(), extra)
			if err != nil {
				return Page{}, err
			}
			if err := emit(raw); err != nil {
				return Page{}, err
			}
			n++
		}
		it.Next()
	}
	return page, nil
}

// first is where a scan for m starts.
func (m *matcher) first() []byte {
	if m.clusters == nil {
		return m.prefix
	}
	// Keys order clusters by "<name>/", which is not always the names' order.
	first := m.q.Clusters[0]
	for _, c := range m.q.Clusters[1:] {
		if c+"/" < first+"/" {
			first = c
		}
	}
	return clusterPrefix(m.q.Resource, first)
}

// skip is, for a key of m's kind that m does not select by cluster or namespace, the key
// to seek to next (nil: the key is selected, or at least its value must be read).
func (m *matcher) skip(p keyParts) []byte {
	gr := m.q.Resource
	if m.clusters != nil && !m.clusters[p.cluster] {
		// On to the next selected cluster after this one, or past the kind.
		var next string
		for c := range m.clusters {
			if c+"/" > p.cluster+"/" && (next == "" || c+"/" < next+"/") {
				next = c
			}
		}
		if next == "" {
			return after(m.prefix)
		}
		return clusterPrefix(gr, next)
	}
	ns := m.q.Namespace
	switch {
	case ns == "" || p.namespace == ns:
		return nil
	case p.namespace < ns:
		return append(clusterPrefix(gr, p.cluster), ns+"/"...)
	default:
		return after(clusterPrefix(gr, p.cluster))
	}
}

// Locate returns the clusters (in key order) that hold the object of a cached kind named
// namespace/name, reading keys only.
func (s *Store) Locate(gr schema.GroupResource, namespace, name string) ([]string, error) {
	txn := s.db.NewTransactionAt(s.visible.Load(), false)
	defer txn.Discard()
	kp := kindPrefix(gr)
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = kp
	it := txn.NewIterator(opts)
	defer it.Close()
	var clusters []string
	for it.Seek(kp); it.Valid(); {
		p, err := parseKey(kp, it.Item().Key())
		if err != nil {
			return nil, err
		}
		if _, err := txn.Get(objectKey(gr, p.cluster, namespace, name)); err == nil {
			clusters = append(clusters, p.cluster)
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return nil, err
		}
		it.Seek(after(clusterPrefix(gr, p.cluster)))
	}
	return clusters, nil
}
