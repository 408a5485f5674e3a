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

package fleet

import (
	"testing"

	genericoptions "k8s.io/apiserver/pkg/server/options"

	badgeroptions "github.com/fedhq/fed/apiserver/storage/badger/options"
)

// TestWithoutWatchCache: templates are stored with fed-apiserver's storage options, either
// backend's, less the watch cache; the server's own options keep theirs.
func TestWithoutWatchCache(t *testing.T) {
	badger := &badgeroptions.RESTOptionsGetter{EnableWatchCache: true, WatchCacheSizes: []string{"events#0"}}
	got, ok := withoutWatchCache(badger).(*badgeroptions.RESTOptionsGetter)
	if !ok || got.EnableWatchCache || got.WatchCacheSizes[0] != "events#0" {
		t.Errorf("Badger: %#v, want the options without the watch cache", got)
	}
	if !badger.EnableWatchCache {
		t.Error("Badger: the server's own options lost their watch cache")
	}
	etcd := &genericoptions.StorageFactoryRestOptionsFactory{Options: genericoptions.EtcdOptions{EnableWatchCache: true}}
	if got, ok := withoutWatchCache(etcd).(*genericoptions.StorageFactoryRestOptionsFactory); !ok || got.Options.EnableWatchCache {
		t.Errorf("etcd3: %#v, want the options without the watch cache", got)
	}
	if !etcd.Options.EnableWatchCache {
		t.Error("etcd3: the server's own options lost their watch cache")
	}
}
