package badger

import (
	"context"
	"fmt"
	"reflect"

	badgerdb "github.com/dgraph-io/badger/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// Messages of the etcd3 store, which clients and tests match on.
const (
	listExpired     = "The resourceVersion for the provided list is too old."
	continueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	inconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

// GetList implements storage.Interface.
func (s *Store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	keyPrefix, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return err
	}
	listPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(listPtr)
	if err != nil || v.Kind() != reflect.Slice {
		return fmt.Errorf("need ptr to slice: %v", err)
	}
	withRev, continueKey, err := storage.ValidateListOptions(keyPrefix, s.versioner, opts)
	if err != nil {
		return err
	}
	if current := s.db.Revision(); withRev > current {
		return storage.NewTooLargeResourceVersionError(uint64(withRev), uint64(current), 0)
	}
	compacted := func() bool { return withRev > 0 && withRev < s.db.CompactedRevision() }
	if compacted() {
		return s.compactedListError(len(opts.Predicate.Continue) > 0, continueKey, keyPrefix)
	}
	txn, readRev, err := s.db.readTxn(withRev)
	if err != nil {
		return storage.NewInternalError(err)
	}
	defer s.db.discard(txn)
	if withRev == 0 {
		if err := s.validateMinimumResourceVersion(opts.ResourceVersion, readRev); err != nil {
			return err
		}
	}

	l := &lister{s: s, ctx: ctx, pred: opts.Predicate, v: v, newItem: newItemFunc(listObj, v),
		errs: &listErrors{aggregate: s.unsafeDeletion, resource: s.groupResource}}
	var continueValue string
	var remaining *int64
	if opts.Recursive {
		start := keyPrefix
		if continueKey != "" {
			start = continueKey
		}
		lastKey, hasMore, rest, err := l.scan(txn, keyPrefix, start)
		if err != nil {
			return err
		}
		// PrepareContinueToken reports count-limit remaining items.
		continueValue, remaining, err = storage.PrepareContinueToken(lastKey, keyPrefix, readRev, rest+opts.Predicate.Limit, hasMore, opts)
		if err != nil {
			return err
		}
	} else {
		cur, err := getKV(txn, keyPrefix)
		if err != nil {
			return storage.NewInternalError(err)
		}
		if cur != nil {
			if _, err := l.add(cur); err != nil {
				return err
			}
		}
	}
	if compacted() {
		// Badger may have dropped versions of withRev while we read.
		return s.compactedListError(len(opts.Predicate.Continue) > 0, continueKey, keyPrefix)
	}
	if err := l.errs.err(); err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	if err := s.versioner.UpdateList(listObj, uint64(readRev), continueValue, remaining); err != nil {
		return err
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.ShardedListAndWatch) {
		opts.Predicate.SetShardInfoOnList(listObj)
	}
	return nil
}

// compactedListError is the etcd3 store's answer to a list at a compacted
// revision: with a continue token, a new token that continues at the newest
// revision.
func (s *Store) compactedListError(paging bool, continueKey, keyPrefix string) error {
	if !paging {
		return apierrors.NewResourceExpired(listExpired)
	}
	token, err := storage.EncodeContinue(continueKey, keyPrefix, -1)
	if err != nil {
		utilruntime.HandleError(err)
		return apierrors.NewResourceExpired(continueExpired)
	}
	statusErr := apierrors.NewResourceExpired(inconsistentContinue)
	statusErr.ErrStatus.ListMeta.Continue = token
	return statusErr
}

// lister appends the objects matching pred to v.
type lister struct {
	s       *Store
	ctx     context.Context
	pred    storage.SelectionPredicate
	v       reflect.Value
	newItem func() runtime.Object
	errs    *listErrors
}

// scan walks the keys under prefix from start. It stops after Limit matches;
// hasMore then tells whether keys follow, and rest how many (counted only
// for an empty predicate, the only case remainingItemCount is reported for).
func (l *lister) scan(txn *badgerdb.Txn, prefix, start string) (lastKey string, hasMore bool, rest int64, err error) {
	it := txn.NewIterator(badgerdb.IteratorOptions{Prefix: objectKey(prefix)})
	defer it.Close()
	paging := l.pred.Limit > 0
	for it.Seek(objectKey(start)); it.Valid(); it.Next() {
		if paging && int64(l.v.Len()) >= l.pred.Limit {
			hasMore = true
			if l.pred.Empty() {
				for ; it.Valid(); it.Next() {
					rest++
				}
			}
			break
		}
		cur, err := itemKV(it.Item())
		if err != nil {
			return "", false, 0, storage.NewInternalError(err)
		}
		lastKey = cur.path
		if _, err := l.add(cur); err != nil {
			return "", false, 0, err
		}
	}
	return lastKey, hasMore, rest, nil
}

// add decodes one stored object and appends it if it matches.
func (l *lister) add(cur *kv) (bool, error) {
	data, _, err := l.s.fromStorage(l.ctx, cur.path, cur.data)
	if err != nil {
		wrapped := storage.NewInternalError(fmt.Errorf("unable to transform key %q: %w", cur.path, err))
		if l.errs.add(cur.path, wrapped) {
			return false, l.errs.err()
		}
		return false, nil
	}
	if err := l.ctx.Err(); err != nil {
		return false, storage.NewTimeoutError(cur.path, "request did not complete within requested timeout")
	}
	obj, err := l.s.decodeNew(data, l.newItem, cur.rev)
	if err != nil {
		if l.errs.add(cur.path, err) {
			return false, l.errs.err()
		}
		return false, nil
	}
	if matched, err := l.pred.Matches(obj); err == nil && matched {
		l.v.Set(reflect.Append(l.v, reflect.ValueOf(obj).Elem()))
		return true, nil
	}
	return false, nil
}

// newItemFunc creates list items; unstructured lists keep their apiVersion.
func newItemFunc(listObj runtime.Object, v reflect.Value) func() runtime.Object {
	if u, ok := listObj.(*unstructured.UnstructuredList); ok {
		if apiVersion := u.GetAPIVersion(); len(apiVersion) > 0 {
			return func() runtime.Object {
				return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": apiVersion}}
			}
		}
	}
	elem := v.Type().Elem()
	return func() runtime.Object { return reflect.New(elem).Interface().(runtime.Object) }
}

// countPrefix counts the objects under prefix and the bytes of their
// stored (transformed) values.
func (db *DB) countPrefix(ctx context.Context, prefix string) (count, size int64, err error) {
	txn, _, err := db.readTxn(0)
	if err != nil {
		return 0, 0, err
	}
	defer db.discard(txn)
	opts := badgerdb.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = objectKey(prefix)
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		count++
		size += it.Item().ValueSize() - recordHeaderSize
	}
	return count, size, nil
}
