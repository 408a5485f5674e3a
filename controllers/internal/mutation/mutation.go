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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// cacheSize is how many written objects a cache remembers until the informer catches
// up: more than a burst of writes by every worker of a controller.
const cacheSize = 20000

// Cache serves the newer of the informer's copy of an object and the one last written.
type Cache struct{ cache.MutationCache }

// New returns a Cache over an informer. With includeAdds it also serves objects the
// informer has not seen at all yet (just created).
func New(inf cache.SharedIndexInformer, includeAdds bool) *Cache {
	return &Cache{cache.NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), inf.GetStore(),
		cache.MutationCacheOptions{Indexer: inf.GetIndexer(), MaxCacheSize: cacheSize, IncludeAdds: includeAdds})}
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
