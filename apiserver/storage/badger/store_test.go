package badger

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/features"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// The upstream storage conformance suite (k8s.io/apiserver/pkg/storage/testing),
// run as k8s.io/apiserver/pkg/storage/etcd3's store_test.go runs it.
//
// Not run, and why:
//   - etcd3's TestGetListStreamFallsBackToPaginated, TestGetListStreamMultiChunk,
//     the RangeStream variants of TestList/TestConsistentList/TestListMetrics,
//     TestLeaseMaxObjectCount, TestPrefixGetKeys, Test_growSlice: they test
//     etcd client internals (RangeStream RPC, leases, KV recorder), not the
//     storage.Interface contract.
//   - RunTestList is passed no KubernetesRecorder: it is only read when
//     watchCacheEnabled is true (it records the etcd requests of the cacher).
//   - RunTestOptionalWatchBookmarksWithCorrectResourceVersion and
//     RunTestWatchDispatchBookmarkEvents(expectedWatchBookmarks=true): bookmarks
//     for AllowWatchBookmarks are the watch cache's job; like etcd3 this store
//     only sends them for ProgressNotify and SendInitialEvents. See cacher_test.go.

func TestCreate(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestCreate(ctx, t, store, checkStorageInvariants(store))
}

func TestCreateWithTTL(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestCreateWithTTL(ctx, t, store)
}

func TestCreateWithKeyExist(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestCreateWithKeyExist(ctx, t, store)
}

func TestGet(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGet(ctx, t, store)
}

func TestDelete(t *testing.T) {
	run := map[string]func(*testing.T){
		"Unconditional": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestUnconditionalDelete(ctx, t, s)
		},
		"Conditional": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestConditionalDelete(ctx, t, s)
		},
		"WithSuggestion": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestDeleteWithSuggestion(ctx, t, s)
		},
		"WithSuggestionAndConflict": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestDeleteWithSuggestionAndConflict(ctx, t, s)
		},
		"WithSuggestionOfDeletedObject": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestDeleteWithSuggestionOfDeletedObject(ctx, t, s)
		},
		"ValidateDeletionWithSuggestion": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestValidateDeletionWithSuggestion(ctx, t, s)
		},
		"ValidateDeletionWithOnlySuggestionValid": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestValidateDeletionWithOnlySuggestionValid(ctx, t, s)
		},
		"WithConflict": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestDeleteWithConflict(ctx, t, s)
		},
		"PreconditionalWithSuggestion": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestPreconditionalDeleteWithSuggestion(ctx, t, s)
		},
		"PreconditionalWithOnlySuggestionPass": func(t *testing.T) {
			ctx, s, _ := testSetup(t)
			storagetesting.RunTestPreconditionalDeleteWithOnlySuggestionPass(ctx, t, s)
		},
	}
	for name, f := range run {
		t.Run(name, f)
	}
}

func TestUnsafeDeleteOfMalformedObjects(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.AllowUnsafeMalformedObjectDeletion, true)
	t.Run("ConflictAndMissingExpectedDecodeError", func(t *testing.T) {
		codec := &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
		ctx, s, _ := testSetup(t, withCodec(codec))
		storagetesting.RunTestDeleteWithConflictAndMissingExpectedTransformOrDecodeError(ctx, t, s, codec.setFailing)
	})
	t.Run("ExpectedTransformError", func(t *testing.T) {
		tr := &failingTransformer{Transformer: storagetesting.NewPrefixTransformer([]byte(testTransformerPrefix), false)}
		ctx, s, _ := testSetup(t, withTransformer(tr))
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, s, tr.setFailing)
	})
	t.Run("ExpectedDecodeError", func(t *testing.T) {
		codec := &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
		ctx, s, _ := testSetup(t, withCodec(codec))
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, s, codec.setFailing)
	})
	t.Run("SuggestionAndMissingExpectedError", func(t *testing.T) {
		ctx, s, _ := testSetup(t)
		storagetesting.RunTestDeleteWithSuggestionAndMissingExpectedTransformOrDecodeError(ctx, t, s)
	})
	t.Run("GetListWithErrorAggregation", func(t *testing.T) {
		ctx, s, _ := testSetup(t)
		storagetesting.RunTestGetListWithErrorAggregation(ctx, t, storeWithTransformerOverride{s}, testCorruptErr())
	})
}

func TestGetListWithoutErrorAggregation(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.AllowUnsafeMalformedObjectDeletion, false)
	ctx, s, _ := testSetup(t)
	storagetesting.RunTestGetListWithoutErrorAggregation(ctx, t, storeWithTransformerOverride{s}, testCorruptErr())
}

func TestListPaging(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestListPaging(ctx, t, store)
}

func TestGetListNonRecursive(t *testing.T) {
	ctx, store, db := testSetup(t)
	storagetesting.RunTestGetListNonRecursive(ctx, t, increaseRV(db), store)
}

func TestGetListRecursivePrefix(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGetListRecursivePrefix(ctx, t, store)
}

func TestKeySchema(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestKeySchema(ctx, t, store)
}

func TestGuaranteedUpdate(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGuaranteedUpdate(ctx, t, storeWithPrefixTransformer{store}, checkStorageInvariants(store))
}

func TestGuaranteedUpdateWithTTL(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGuaranteedUpdateWithTTL(ctx, t, store)
}

func TestGuaranteedUpdateChecksStoredData(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGuaranteedUpdateChecksStoredData(ctx, t, storeWithPrefixTransformer{store})
}

func TestGuaranteedUpdateWithConflict(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGuaranteedUpdateWithConflict(ctx, t, store)
}

func TestGuaranteedUpdateWithSuggestionAndConflict(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestGuaranteedUpdateWithSuggestionAndConflict(ctx, t, store)
}

func TestTransformationFailure(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestTransformationFailure(ctx, t, storeWithPrefixTransformer{store})
}

func TestList(t *testing.T) {
	ctx, store, db := testSetup(t)
	storagetesting.RunTestList(ctx, t, store, compactStorage(db), false, nil)
}

func TestConsistentList(t *testing.T) {
	ctx, store, db := testSetup(t)
	storagetesting.RunTestConsistentList(ctx, t, store, increaseRV(db), false, true, false)
}

func TestCompactRevision(t *testing.T) {
	ctx, store, db := testSetup(t)
	storagetesting.RunTestCompactRevision(ctx, t, store, increaseRV(db), compactStorage(db))
}

func TestListContinuation(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestListContinuation(ctx, t, store, checkTransformerReads(store))
}

func TestListPaginationRareObject(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestListPaginationRareObject(ctx, t, store, checkTransformerReads(store))
}

func TestListContinuationWithFilter(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestListContinuationWithFilter(ctx, t, store, checkTransformerReads(store))
}

func TestNamespaceScopedList(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestNamespaceScopedList(ctx, t, store)
}

func TestListInconsistentContinuation(t *testing.T) {
	ctx, store, db := testSetup(t)
	storagetesting.RunTestListInconsistentContinuation(ctx, t, store, compactStorage(db))
}

func TestListResourceVersionMatch(t *testing.T) {
	ctx, store, _ := testSetup(t)
	storagetesting.RunTestListResourceVersionMatch(ctx, t, storeWithPrefixTransformer{store})
}

func TestStats(t *testing.T) {
	for _, sizeEstimation := range []bool{true, false} {
		t.Run(fmt.Sprintf("SizeEstimation=%v", sizeEstimation), func(t *testing.T) {
			ctx, store, _ := testSetup(t)
			if sizeEstimation {
				if err := store.EnableResourceSizeEstimation(func(context.Context) ([]string, error) { return nil, nil }); err != nil {
					t.Fatal(err)
				}
			}
			storagetesting.RunTestStats(ctx, t, store, store.codec, store.getTransformer(), sizeEstimation)
		})
	}
}
