package badger

import (
	"fmt"
	"testing"

	"k8s.io/apiserver/pkg/features"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// The watch half of the upstream conformance suite, as etcd3's watcher_test.go runs it.
func TestWatch(t *testing.T) {
	t.Run("Watch", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatch(ctx, t, store)
	})
	t.Run("ClusterScopedWatch", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestClusterScopedWatch(ctx, t, store)
	})
	t.Run("NamespaceScopedWatch", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestNamespaceScopedWatch(ctx, t, store)
	})
	t.Run("DeleteTriggerWatch", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestDeleteTriggerWatch(ctx, t, store)
	})
	t.Run("WatchFromZero", func(t *testing.T) {
		ctx, store, db := testSetup(t)
		storagetesting.RunTestWatchFromZero(ctx, t, store, compactStorage(db))
	})
	t.Run("WatchFromNonZero", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchFromNonZero(ctx, t, store)
	})
	t.Run("DelayedWatchDelivery", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestDelayedWatchDelivery(ctx, t, store)
	})
	t.Run("WatchError", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchError(ctx, t, storeWithPrefixTransformer{store})
	})
	t.Run("WatchContextCancel", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchContextCancel(ctx, t, store)
	})
	t.Run("WatcherTimeout", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatcherTimeout(ctx, t, store)
	})
	t.Run("WatchDeleteEventObjectHaveLatestRV", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchDeleteEventObjectHaveLatestRV(ctx, t, store)
	})
	t.Run("WatchInitializationSignal", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchInitializationSignal(ctx, t, store)
	})
	t.Run("ProgressNotify", func(t *testing.T) {
		ctx, store, db := testSetup(t)
		storagetesting.RunOptionalTestProgressNotify(ctx, t, store, increaseRV(db))
	})
	t.Run("WatchWithUnsafeDelete", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.AllowUnsafeMalformedObjectDeletion, true)
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchWithUnsafeDelete(ctx, t, storeWithTransformerOverride{store}, testCorruptErr())
	})
	t.Run("WatchDispatchBookmarkEvents", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunTestWatchDispatchBookmarkEvents(ctx, t, store, false)
	})
	t.Run("SendInitialEventsBackwardCompatibility", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunSendInitialEventsBackwardCompatibility(ctx, t, store)
	})
	t.Run("WatchSemantics", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunWatchSemantics(ctx, t, store)
	})
	t.Run("WatchSemanticInitialEventsExtended", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunWatchSemanticInitialEventsExtended(ctx, t, store)
	})
	t.Run("WatchListMatchSingle", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunWatchListMatchSingle(ctx, t, store)
	})
	t.Run("WatchErrorEventIsBlockingFurtherEvent", func(t *testing.T) {
		ctx, store, _ := testSetup(t)
		storagetesting.RunWatchErrorIsBlockingFurtherEvents(ctx, t, storeWithPrefixTransformer{store})
	})
}

var _ = fmt.Sprintf
