package badger

import (
	"encoding/binary"
	"errors"
)

// Layout of the Badger key space. The database runs in Badger's managed mode:
// every write is committed at a Badger timestamp equal to the global revision,
// so Badger's multi-version store doubles as the MVCC history that lists at an
// exact resourceVersion read from.
//
//	o<path>               object record (header + transformed bytes), one version per revision
//	e<rev:8 BE>           event log: the key written at that revision and how
//	t<expiry:8 BE><path>  TTL index, see ttl.go
//	m/rev, m/compact      revision bookkeeping
const (
	objectSpace = 'o'
	eventSpace  = 'e'
	ttlSpace    = 't'
)

var (
	metaRevKey     = []byte("m/rev")
	metaCompactKey = []byte("m/compact")
	eventPrefix    = []byte{eventSpace}
	ttlPrefix      = []byte{ttlSpace}
)

func objectKey(path string) []byte {
	k := make([]byte, 0, len(path)+1)
	k = append(k, objectSpace)
	return append(k, path...)
}

func pathOf(objKey []byte) string { return string(objKey[1:]) }

func eventKey(rev int64) []byte {
	k := make([]byte, 9)
	k[0] = eventSpace
	binary.BigEndian.PutUint64(k[1:], uint64(rev))
	return k
}

func revOfEventKey(k []byte) int64 { return int64(binary.BigEndian.Uint64(k[1:])) }

func ttlKey(expiresAt int64, path string) []byte {
	k := make([]byte, 9, 9+len(path))
	k[0] = ttlSpace
	binary.BigEndian.PutUint64(k[1:], uint64(expiresAt))
	return append(k, path...)
}

func parseTTLKey(k []byte) (expiresAt int64, path string) {
	return int64(binary.BigEndian.Uint64(k[1:9])), string(k[9:])
}

func encodeUint(v int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

func decodeUint(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, errors.New("badger storage: malformed counter")
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// recordHeaderSize is the size of the header in front of the transformed
// object bytes: one format byte and the expiry (unix seconds, 0 = none).
const recordHeaderSize = 9

const recordFormatV1 = 1

func encodeRecord(data []byte, expiresAt int64) []byte {
	b := make([]byte, recordHeaderSize+len(data))
	b[0] = recordFormatV1
	binary.BigEndian.PutUint64(b[1:recordHeaderSize], uint64(expiresAt))
	copy(b[recordHeaderSize:], data)
	return b
}

func decodeRecord(b []byte) (data []byte, expiresAt int64, err error) {
	if len(b) < recordHeaderSize || b[0] != recordFormatV1 {
		return nil, 0, errors.New("badger storage: malformed object record")
	}
	return b[recordHeaderSize:], int64(binary.BigEndian.Uint64(b[1:recordHeaderSize])), nil
}

// eventType is what a revision did to its key.
type eventType byte

const (
	eventCreated eventType = iota + 1
	eventModified
	eventDeleted
)

func encodeEvent(t eventType, path string) []byte {
	b := make([]byte, 0, 1+len(path))
	b = append(b, byte(t))
	return append(b, path...)
}

func decodeEvent(b []byte) (eventType, string, error) {
	if len(b) < 1 || b[0] < byte(eventCreated) || b[0] > byte(eventDeleted) {
		return 0, "", errors.New("badger storage: malformed event record")
	}
	return eventType(b[0]), string(b[1:]), nil
}
