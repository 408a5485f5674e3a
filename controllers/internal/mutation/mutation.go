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

// Package mutation gives a controller the objects it wrote itself before its informer
// has them: client-go's mutation cache over the informer's store, told of the informer's
// events so that it drops each copy the informer has caught up with.
package mutation

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/controllers/internal/trim"
)

// cacheSize is how many written objects a cache remembers until the informer catches
// up: more than a burst of writes by every worker of a controller.
const cacheSize = 20000

// Cache serves the newer of the informer's copy of an object and the one last written.
type Cache struct {
	cache.MutationCache
	store cache.Store
}

// New returns a Cache over an informer. It serves the copies of objects the informer has;
// not of those it has not seen at all yet (client-go's IncludeAdds serves such a copy to
// one read only: members.Watched keeps its own).
func New(inf cache.SharedIndexInformer) *Cache {
	return &Cache{cache.NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), inf.GetStore(),
		cache.MutationCacheOptions{Indexer: inf.GetIndexer(), MaxCacheSize: cacheSize}), inf.GetStore()}
}

// Wrote remembers an object as the server answered a write of it, without its
// managedFields (the informers keep none either), unless the informer has that version
// or a newer one already. The informer's event often comes before the answer; a copy
// remembered then would stay until the cache is full (client-go's mutation cache drops
// expired copies only when they are read), 20,000 member objects per resource.
func (c *Cache) Wrote(obj runtime.Object) {
	_, _ = trim.ManagedFields(obj)
	if c.caughtUp(obj) {
		return
	}
	c.Mutation(obj)
}

// caughtUp says whether the informer holds obj's version of it or a newer one.
func (c *Cache) caughtUp(obj runtime.Object) bool {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return false
	}
	current, exists, err := c.store.GetByKey(key)
	if err != nil || !exists {
		return false
	}
	have, ok := resourceVersion(current)
	wrote, ok2 := resourceVersion(obj)
	return ok && ok2 && have >= wrote
}

func resourceVersion(obj any) (uint64, bool) {
	o, err := meta.Accessor(obj)
	if err != nil {
		return 0, false
	}
	rv, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	return rv, err == nil
}

// Observe tells the cache of an event of its informer (an object, or the tombstone of a
// deleted one).
func (c *Cache) Observe(obj any, deleted bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	o, ok := obj.(runtime.Object)
	switch {
	case !ok:
	case deleted:
		c.OnDelete(o)
	default:
		c.OnAddOrUpdate(o)
	}
}
