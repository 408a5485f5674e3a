package options

import (
	"context"
	"strconv"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
)

// historyDelegator serves through the watch cache, except watches from a resourceVersion
// older than the cache's start: those go to the Badger store, whose event log survives a
// restart. A client whose watch was cut by a restart of fed-apiserver thereby resumes
// with exactly the events it missed, where the cache alone would answer 410 Gone and
// force a relist. (Versions compacted away still get 410 Gone, from the store.)
type historyDelegator struct {
	*cacherstorage.CacheDelegator
	raw storage.Interface
	// startRev is the database's revision when the cache was created: the cache holds no
	// event at or before it.
	startRev int64
}

func (d *historyDelegator) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	if rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64); err == nil && rv > 0 && rv < d.startRev {
		return d.raw.Watch(ctx, key, opts)
	}
	return d.CacheDelegator.Watch(ctx, key, opts)
}
