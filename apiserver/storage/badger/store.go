package badger

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// Config describes the storage of one resource, like
// storagebackend.ConfigForResource plus the arguments of the etcd3 factory.
type Config struct {
	// Codec encodes objects for storage (the storage version).
	Codec runtime.Codec
	// NewFunc and NewListFunc create an empty object and list of the resource.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// Prefix is prepended to every key (like --etcd-prefix, e.g. "/registry").
	Prefix string
	// ResourcePrefix is the part of the key every key of this resource starts
	// with (e.g. "/pods"); keys outside it are rejected.
	ResourcePrefix string
	// GroupResource names the resource in errors.
	GroupResource schema.GroupResource
	// Transformer encrypts values at rest; nil stores them as encoded.
	Transformer value.Transformer
	// Versioner defaults to storage.APIObjectVersioner.
	Versioner storage.Versioner
}

// Store implements storage.Interface for one resource on a shared DB.
type Store struct {
	db             *DB
	codec          runtime.Codec
	newFunc        func() runtime.Object
	newListFunc    func() runtime.Object
	pathPrefix     string // ends in "/"
	resourcePrefix string
	groupResource  schema.GroupResource
	versioner      storage.Versioner
	// unsafeDeletion: AllowUnsafeMalformedObjectDeletion was on at creation.
	// Lists then collect corrupt objects instead of failing on the first,
	// and Get reports them as storage corrupt-object errors.
	unsafeDeletion bool
	// classifyCorrupt marks every transform or decode failure as a corrupt
	// object (what the etcd3 factory's error-interpreting wrappers do).
	classifyCorrupt bool

	mu            sync.RWMutex
	transformer   value.Transformer
	sizeEstimates bool
}

var _ storage.Interface = &Store{}

// NewStore returns the storage.Interface of one resource.
func (db *DB) NewStore(c Config) (*Store, error) {
	if c.Codec == nil {
		return nil, errors.New("badger storage: Codec is required")
	}
	if c.NewFunc == nil || c.NewListFunc == nil {
		return nil, errors.New("badger storage: NewFunc and NewListFunc are required")
	}
	if c.Transformer == nil {
		c.Transformer = identity.NewEncryptCheckTransformer()
	}
	if c.Versioner == nil {
		c.Versioner = storage.APIObjectVersioner{}
	}
	pathPrefix := path.Join("/", c.Prefix)
	if !strings.HasSuffix(pathPrefix, "/") {
		pathPrefix += "/"
	}
	st := &Store{
		db:             db,
		codec:          c.Codec,
		newFunc:        c.NewFunc,
		newListFunc:    c.NewListFunc,
		pathPrefix:     pathPrefix,
		resourcePrefix: c.ResourcePrefix,
		groupResource:  c.GroupResource,
		versioner:      c.Versioner,
		transformer:    c.Transformer,
		unsafeDeletion: utilfeature.DefaultFeatureGate.Enabled(features.AllowUnsafeMalformedObjectDeletion),
	}
	st.classifyCorrupt = st.unsafeDeletion
	return st, nil
}

func (s *Store) getTransformer() value.Transformer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.transformer
}

// setTransformer swaps the transformer and returns the previous one (tests).
func (s *Store) setTransformer(t value.Transformer) value.Transformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.transformer
	s.transformer = t
	return old
}

// prepareKey validates key and turns it into the stored path.
func (s *Store) prepareKey(key string, recursive bool) (string, error) {
	key, err := storage.PrepareKey(s.resourcePrefix, key, recursive)
	if err != nil {
		return "", err
	}
	return s.pathPrefix + strings.TrimPrefix(key, "/"), nil
}

// Versioner implements storage.Interface.
func (s *Store) Versioner() storage.Versioner { return s.versioner }

// Get implements storage.Interface.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	preparedKey, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	cur, rev, err := s.db.get(preparedKey)
	if err != nil {
		return storage.NewInternalError(err)
	}
	if err := s.validateMinimumResourceVersion(opts.ResourceVersion, rev); err != nil {
		return err
	}
	if cur == nil {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewKeyNotFoundError(preparedKey, 0)
	}
	data, _, err := s.fromStorage(ctx, preparedKey, cur.data)
	if err != nil {
		return asCorrupt(preparedKey, storage.NewInternalError(err))
	}
	return asCorrupt(preparedKey, s.decodeInto(data, out, cur.rev))
}

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	preparedKey, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	if version, err := s.versioner.ObjectResourceVersion(obj); err == nil && version != 0 {
		return storage.ErrResourceVersionSetOnCreate
	}
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return fmt.Errorf("PrepareObjectForStorage failed: %w", err)
	}
	data, err := runtime.Encode(s.codec, obj)
	if err != nil {
		return err
	}
	if err := s.checkSize(data); err != nil {
		return err
	}
	stored, err := s.getTransformer().TransformToStorage(ctx, data, authenticatedData(preparedKey))
	if err != nil {
		return storage.NewInternalError(err)
	}
	rev, _, err := s.db.write(preparedKey, 0, stored, expiry(ttl))
	if err != nil {
		return err
	}
	if rev == 0 {
		return storage.NewKeyExistsError(preparedKey, 0)
	}
	if out != nil {
		return s.decodeInto(data, out, rev)
	}
	return nil
}

// MaxObjectBytes is the most an object may take in storage, encoded: etcd's default
// limit of a request (--max-request-bytes, 1.5 MiB), so that what fed keeps on Badger is
// bounded as on etcd, and a kind's objects too large for one are too large for the other.
const MaxObjectBytes = 3 * 1024 * 1024 / 2

// checkSize refuses an object too large to store, as kube-apiserver answers etcd's refusal.
func (s *Store) checkSize(data []byte) error {
	if len(data) <= MaxObjectBytes {
		return nil
	}
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the %s object is %d bytes when stored, over the storage limit of %d bytes",
		s.groupResource, len(data), MaxObjectBytes))
}

// Stats implements storage.Interface. The average object size is reported
// once EnableResourceSizeEstimation was called, like the etcd3 store does.
func (s *Store) Stats(ctx context.Context) (storage.Stats, error) {
	prefix, err := s.prepareKey(s.resourcePrefix, true)
	if err != nil {
		return storage.Stats{}, err
	}
	count, size, err := s.db.countPrefix(ctx, prefix)
	if err != nil {
		return storage.Stats{}, err
	}
	stats := storage.Stats{ObjectCount: count}
	s.mu.RLock()
	estimate := s.sizeEstimates
	s.mu.RUnlock()
	if estimate && count > 0 {
		stats.EstimatedAverageObjectSizeBytes = size / count
	}
	return stats, nil
}

// EnableResourceSizeEstimation implements storage.Interface. Sizes are read
// from Badger directly, so the keys function is not needed.
func (s *Store) EnableResourceSizeEstimation(getKeys storage.KeysFunc) error {
	if getKeys == nil {
		return errors.New("KeysFunc cannot be nil")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sizeEstimates {
		return errors.New("resourceSizeEstimator already enabled")
	}
	s.sizeEstimates = true
	return nil
}

// ReadinessCheck implements storage.Interface.
func (s *Store) ReadinessCheck() error {
	if s.db.closed.Load() {
		return errClosed
	}
	return nil
}

// RequestWatchProgress implements storage.Interface.
func (s *Store) RequestWatchProgress(ctx context.Context) error {
	s.db.RequestProgress()
	return nil
}

// GetCurrentResourceVersion implements storage.Interface.
func (s *Store) GetCurrentResourceVersion(ctx context.Context) (uint64, error) {
	if s.db.closed.Load() {
		return 0, errClosed
	}
	return uint64(s.db.Revision()), nil
}

// CompactRevision implements storage.Interface.
func (s *Store) CompactRevision() int64 { return s.db.CompactedRevision() }

func (s *Store) validateMinimumResourceVersion(minimumResourceVersion string, actualRevision int64) error {
	if minimumResourceVersion == "" {
		return nil
	}
	minimumRV, err := s.versioner.ParseResourceVersion(minimumResourceVersion)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	if minimumRV > uint64(actualRevision) {
		return storage.NewTooLargeResourceVersionError(minimumRV, uint64(actualRevision), 0)
	}
	return nil
}
