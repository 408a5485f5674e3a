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
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/internal/jsondict"
)

// Object is one member object as the cache keeps it: where it is, what selectors read
// (labels, and the values of the fields its kind may be selected by), and its JSON in two
// halves, metadata and the rest. The resourceVersion is not in it: an object's
// resourceVersion in the cache is the revision the cache wrote it at.
type Object struct {
	Cluster   string
	Resource  schema.GroupResource
	Namespace string
	Name      string
	Labels    map[string]string
	// Fields are the values of the object's selectable fields (metadata.name and
	// metadata.namespace, and those the kind's apiserver supports).
	Fields map[string]string
	// Meta is the JSON of the object's metadata without resourceVersion; Body is the JSON
	// of the object without metadata. Both are JSON objects.
	Meta, Body []byte
}

func (o *Object) key() []byte { return objectKey(o.Resource, o.Cluster, o.Namespace, o.Name) }

// valueFormat is the first byte of every stored value: a cache in another format is
// emptied when it opens (checkFormat). 3: the JSON compressed with a dictionary, and the
// common label and field strings by index. 4: the same, with Secrets' metadata stripped of
// what may hold a value (a cache of format 3 may hold a Secret's last-applied-configuration).
// 5: the same, with a Secret's annotations kept by name only (one of format 4 may hold an
// annotation under fed's prefixes that anyone could have set). What the cache keeps of a
// Secret changes the format, so that objects stored before never serve again: a reflector
// resumes its watch after a restart, and would not write an unchanged object anew.
const valueFormat = 5

// encode is the stored value of o: a format byte, the labels and fields as counted pairs of
// strings (each a uvarint n: commonStrings[n>>1] when n is odd, else n>>1 bytes that
// follow), then the object's JSON (the metadata's length and bytes, then the body)
// compressed as one S2 block with the dictionary (internal/jsondict). A selector reads the pairs
// without decompressing or decoding anything. Every byte less is less for Badger to write,
// compact and keep on disk, and, as it maps its files, less RSS: a pod's 2.5 kB of JSON
// compresses to 1,460 bytes with S2 alone, to 410 with the dictionary (zstd with it: 390,
// but decoding takes twice as long), and its 315 bytes of selector pairs take about 90.
func (o *Object) encode() []byte {
	n := 1 + 2*binary.MaxVarintLen64
	for k, v := range o.Labels {
		n += 2*binary.MaxVarintLen64 + len(k) + len(v)
	}
	for k, v := range o.Fields {
		n += 2*binary.MaxVarintLen64 + len(k) + len(v)
	}
	raw := make([]byte, 0, binary.MaxVarintLen64+len(o.Meta)+len(o.Body))
	raw = binary.AppendUvarint(raw, uint64(len(o.Meta)))
	raw = append(raw, o.Meta...)
	raw = append(raw, o.Body...)
	b := make([]byte, 0, n+s2.MaxEncodedLen(len(raw)))
	b = append(b, valueFormat)
	b = appendPairs(b, o.Labels)
	b = appendPairs(b, o.Fields)
	return append(b, s2Dict().EncodeBetter(nil, raw)...)
}

// s2Dict is the S2 dictionary stored values are compressed with. Its repeat offset is where
// a metadata object starts (every cached object has annotations: the cluster's).
var s2Dict = sync.OnceValue(func() *s2.Dict {
	return s2.MakeDict(jsondict.Dictionary, []byte(`{"annotations":{"`))
})

func appendPairs(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, m[k])
	}
	return b
}

func appendString(b []byte, s string) []byte {
	if i, ok := commonIndex[s]; ok {
		return binary.AppendUvarint(b, uint64(i)<<1|1)
	}
	b = binary.AppendUvarint(b, uint64(len(s))<<1)
	return append(b, s...)
}

// value is a decoded stored value. Its strings point into the bytes it was decoded from,
// which must not change afterwards. The JSON stays compressed until halves is called.
type value struct {
	labels pairs
	fields pairs
	packed []byte
}

// halves decompresses the object's JSON: its metadata and the rest.
func (v *value) halves() (meta, body []byte, err error) {
	raw, err := s2Dict().Decode(nil, v.packed)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	n, w := binary.Uvarint(raw)
	if w <= 0 || uint64(len(raw)-w) < n {
		return nil, nil, errCorrupt
	}
	return raw[w : w+int(n)], raw[w+int(n):], nil
}

var errCorrupt = errors.New("corrupt cache value")

func decodeValue(b []byte) (*value, error) {
	if len(b) == 0 || b[0] != valueFormat {
		return nil, errCorrupt
	}
	b = b[1:]
	v := &value{}
	var err error
	if v.labels, b, err = readPairs(b); err != nil {
		return nil, err
	}
	if v.fields, b, err = readPairs(b); err != nil {
		return nil, err
	}
	v.packed = b
	return v, nil
}

func readPairs(b []byte) (pairs, []byte, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, nil, errCorrupt
	}
	b = b[w:]
	p := make(pairs, 0, 2*n)
	for range 2 * n {
		l, w := binary.Uvarint(b)
		if w <= 0 {
			return nil, nil, errCorrupt
		}
		b = b[w:]
		if l&1 == 1 {
			if l>>1 >= uint64(len(commonStrings)) {
				return nil, nil, errCorrupt
			}
			p = append(p, commonStrings[l>>1])
			continue
		}
		l >>= 1
		if uint64(len(b)) < l {
			return nil, nil, errCorrupt
		}
		s := b[:l]
		p = append(p, unsafe.String(unsafe.SliceData(s), len(s)))
		b = b[l:]
	}
	return p, b, nil
}

// pairs are keys and values, alternating, sorted by key: labels.Labels and fields.Fields
// without a map.
type pairs []string

func (p pairs) Lookup(k string) (string, bool) {
	lo, hi := 0, len(p)/2
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := strings.Compare(p[2*m], k); {
		case c == 0:
			return p[2*m+1], true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return "", false
}

func (p pairs) Has(k string) bool { _, ok := p.Lookup(k); return ok }

func (p pairs) Get(k string) string { v, _ := p.Lookup(k); return v }

// json is the object's JSON with resourceVersion rv, and with the annotations extra added
// (nil: none; they are rare, so the metadata is decoded only then).
func (v *value) json(rv uint64, extra map[string]string) ([]byte, error) {
	meta, body, err := v.halves()
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		var m map[string]any
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, fmt.Errorf("%w: %v", errCorrupt, err)
		}
		annotations, _ := m["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
		}
		for k, val := range extra {
			annotations[k] = val
		}
		m["annotations"] = annotations
		if meta, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	return assemble(rv, meta, body), nil
}

// assemble writes {"metadata":{"resourceVersion":"rv",<meta>},<body>}.
func assemble(rv uint64, meta, body []byte) []byte {
	b := make([]byte, 0, len(meta)+len(body)+48)
	b = append(b, `{"metadata":{"resourceVersion":"`...)
	b = strconv.AppendUint(b, rv, 10)
	b = append(b, '"')
	b = appendMembers(b, meta)
	b = append(b, '}')
	b = appendMembers(b, body)
	return append(b, '}')
}

// appendMembers appends the members of the JSON object obj, each after a comma.
func appendMembers(b, obj []byte) []byte {
	if len(obj) < 2 || string(obj) == "{}" {
		return b
	}
	b = append(b, ',')
	return append(b, obj[1:len(obj)-1]...)
}
