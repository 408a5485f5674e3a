package options

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apiserver/pkg/storage"
	etcdfeature "k8s.io/apiserver/pkg/storage/feature"
)

// The watch cache serves consistent reads (and watch-list streams) from the
// cache only when storage supports RequestWatchProgress. It learns that from
// a process-wide checker that probes etcd versions. The Badger store does
// support it, so the checker is told so by answering its version probe
// like an etcd that has the fixes it looks for.

// badgerEndpoint answers the checker's probe; it is never dialled.
type badgerEndpoint struct{}

func (badgerEndpoint) Endpoints() []string { return []string{"badger://local"} }

func (badgerEndpoint) Status(context.Context, string) (*clientv3.StatusResponse, error) {
	return &clientv3.StatusResponse{Version: "3.5.13"}, nil
}

var progressOnce sync.Once

// registerWatchProgressSupport marks RequestWatchProgress as supported.
func registerWatchProgressSupport() {
	progressOnce.Do(func() {
		etcdfeature.DefaultFeatureSupportChecker.CheckClient(context.Background(), badgerEndpoint{}, storage.RequestWatchProgress)
	})
}
