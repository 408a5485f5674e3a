// Package options wires the Badger storage into k8s.io/apiserver's generic
// registry: a RESTOptionsGetter for genericregistry.Store.CompleteWithOptions
// and storage decorators with and without the watch cache, the Badger
// counterparts of genericoptions' etcd RESTOptions factory and
// genericregistry.StorageWithCacher.
package options

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"

	"github.com/fedhq/fed/apiserver/storage/badger"
)

// RESTOptionsGetter hands out RESTOptions whose storage lives in one shared
// Badger database. The StorageFactory supplies, per resource, the storage
// codec, key prefix and value transformer (encryption at rest), exactly as
// for etcd; its transport settings are ignored.
type RESTOptionsGetter struct {
	DB             *badger.DB
	StorageFactory serverstorage.StorageFactory
	// EnableWatchCache puts the apiserver's watch cache (cacher) in front of
	// every resource, as --watch-cache does for etcd.
	EnableWatchCache bool
	// WatchCacheSizes are --watch-cache-sizes: a resource given the size 0 is served
	// without the watch cache (other sizes are ignored, as for etcd: the cache sizes
	// itself).
	WatchCacheSizes         []string
	EnableGarbageCollection bool
	DeleteCollectionWorkers int
	CountMetricPollPeriod   time.Duration
}

var _ generic.RESTOptionsGetter = &RESTOptionsGetter{}

// GetRESTOptions implements generic.RESTOptionsGetter.
func (g *RESTOptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	if g.DB == nil || g.StorageFactory == nil {
		return generic.RESTOptions{}, fmt.Errorf("badger RESTOptionsGetter for %s: DB and StorageFactory are required", resource)
	}
	cfg, err := g.StorageFactory.NewConfig(resource, example)
	if err != nil {
		return generic.RESTOptions{}, fmt.Errorf("unable to find storage destination for %v: %w", resource, err)
	}
	decorator := UndecoratedStorage(g.DB)
	if g.EnableWatchCache {
		sizes, err := genericoptions.ParseWatchCacheSizes(g.WatchCacheSizes)
		if err != nil {
			return generic.RESTOptions{}, err
		}
		if size, ok := sizes[resource]; !ok || size > 0 {
			decorator = StorageWithCacher(g.DB)
		}
	}
	return generic.RESTOptions{
		StorageConfig:           cfg,
		Decorator:               decorator,
		EnableGarbageCollection: g.EnableGarbageCollection,
		DeleteCollectionWorkers: g.DeleteCollectionWorkers,
		ResourcePrefix:          g.StorageFactory.ResourcePrefix(resource),
		CountMetricPollPeriod:   g.CountMetricPollPeriod,
	}, nil
}

// NewRawStorage returns the Badger store of one resource, configured from
// the apiserver's storage config. The destroy function is a no-op: the
// database is shared and closed by its owner.
func NewRawStorage(db *badger.DB, cfg *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	s, err := db.NewStore(badger.Config{
		Codec:          cfg.Codec,
		NewFunc:        newFunc,
		NewListFunc:    newListFunc,
		Prefix:         cfg.Prefix,
		ResourcePrefix: resourcePrefix,
		GroupResource:  cfg.GroupResource,
		Transformer:    cfg.Transformer,
	})
	if err != nil {
		return nil, nil, err
	}
	return s, func() {}, nil
}

// UndecoratedStorage serves a resource straight from Badger.
func UndecoratedStorage(db *badger.DB) generic.StorageDecorator {
	return func(cfg *storagebackend.ConfigForResource, resourcePrefix string, _ func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		return NewRawStorage(db, cfg, newFunc, newListFunc, resourcePrefix)
	}
}

// StorageWithCacher serves a resource through the apiserver's watch cache
// backed by Badger, like genericregistry.StorageWithCacher does for etcd.
func StorageWithCacher(db *badger.DB) generic.StorageDecorator {
	return func(cfg *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, getAttrs storage.AttrFunc, triggerFuncs storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroyRaw, err := NewRawStorage(db, cfg, newFunc, newListFunc, resourcePrefix)
		if err != nil {
			return nil, nil, err
		}
		registerWatchProgressSupport()
		cacher, err := cacherstorage.NewCacherFromConfig(cacherstorage.Config{
			Storage:             s,
			Versioner:           storage.APIObjectVersioner{},
			GroupResource:       cfg.GroupResource,
			EventsHistoryWindow: cfg.EventsHistoryWindow,
			ResourcePrefix:      resourcePrefix,
			KeyFunc:             keyFunc,
			NewFunc:             newFunc,
			NewListFunc:         newListFunc,
			GetAttrsFunc:        getAttrs,
			IndexerFuncs:        triggerFuncs,
			Indexers:            indexers,
			Codec:               cfg.Codec,
		})
		if err != nil {
			return nil, nil, err
		}
		delegator := cacherstorage.NewCacheDelegator(cacher, s)
		var once sync.Once
		return &historyDelegator{CacheDelegator: delegator, raw: s, startRev: db.Revision()}, func() {
			once.Do(func() {
				delegator.Stop()
				cacher.Stop()
				destroyRaw()
			})
		}, nil
	}
}
