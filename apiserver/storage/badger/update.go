package badger

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
)

// objState is what an update or delete starts from.
type objState struct {
	obj   runtime.Object // nil when the stored bytes are corrupt (unsafe delete)
	meta  storage.ResponseMeta
	rev   int64 // 0: the object does not exist
	data  []byte
	stale bool
}

// currentState reads the newest version of path.
func (s *Store) currentState(ctx context.Context, path string, v reflect.Value, ignoreNotFound, expectCorrupt bool) (*objState, error) {
	cur, _, err := s.db.get(path)
	if err != nil {
		return nil, storage.NewInternalError(err)
	}
	return s.state(ctx, cur, path, v, ignoreNotFound, expectCorrupt)
}

// state builds an objState from a stored version. With expectCorrupt the
// object must fail to transform or decode; the returned state has no obj.
func (s *Store) state(ctx context.Context, cur *kv, path string, v reflect.Value, ignoreNotFound, expectCorrupt bool) (*objState, error) {
	st := &objState{}
	if u, ok := v.Addr().Interface().(runtime.Unstructured); ok {
		st.obj = u.NewEmptyInstance()
	} else {
		st.obj = reflect.New(v.Type()).Interface().(runtime.Object)
	}
	if cur == nil {
		if !ignoreNotFound {
			return nil, storage.NewKeyNotFoundError(path, 0)
		}
		return st, runtime.SetZeroValue(st.obj)
	}
	st.rev = cur.rev
	st.meta.ResourceVersion = uint64(cur.rev)
	if cur.expiresAt != 0 {
		st.meta.TTL = cur.expiresAt - time.Now().Unix()
	}
	data, stale, err := s.fromStorage(ctx, path, cur.data)
	if err != nil {
		if !expectCorrupt {
			return nil, storage.NewInternalError(err)
		}
		st.obj, st.stale = nil, true
		return st, nil
	}
	st.data, st.stale = data, stale
	if err := s.decodeInto(data, st.obj, cur.rev); err != nil {
		if !expectCorrupt {
			return nil, err
		}
		st.obj = nil
		return st, nil
	}
	if expectCorrupt {
		return nil, storage.NewInvalidObjError(path, "unsafe deletion is not allowed because the object is decodable from storage")
	}
	return st, nil
}

// stateFromObject trusts a cached copy of the object; writes still compare
// its revision, so a stale copy only costs a retry.
func (s *Store) stateFromObject(obj runtime.Object) (*objState, error) {
	rv, err := s.versioner.ObjectResourceVersion(obj)
	if err != nil {
		return nil, fmt.Errorf("couldn't get resource version: %w", err)
	}
	st := &objState{obj: obj, rev: int64(rv)}
	st.meta.ResourceVersion = rv
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return nil, fmt.Errorf("PrepareObjectForStorage failed: %w", err)
	}
	st.data, err = runtime.Encode(s.codec, obj)
	if err != nil {
		return nil, err
	}
	if err := s.versioner.UpdateObject(obj, rv); err != nil {
		klog.Errorf("failed to update object version: %v", err)
	}
	return st, nil
}

// GuaranteedUpdate implements storage.Interface.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	path, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(destination)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %w", err)
	}
	current := func() (*objState, error) { return s.currentState(ctx, path, v, ignoreNotFound, false) }
	var orig *objState
	isCurrent := cachedExistingObject == nil
	if isCurrent {
		orig, err = current()
	} else {
		orig, err = s.stateFromObject(cachedExistingObject)
	}
	if err != nil {
		return err
	}
	// refresh re-reads the object after a failure on a possibly stale copy;
	// it reports whether the copy was stale, i.e. whether to retry.
	refresh := func() (bool, error) {
		cachedRev := orig.rev
		fresh, err := current()
		if err != nil {
			return false, err
		}
		orig, isCurrent = fresh, true
		return cachedRev != fresh.rev, nil
	}
	for {
		if err := preconditions.Check(path, orig.obj); err != nil {
			if isCurrent {
				return err
			}
			if _, ferr := refresh(); ferr != nil {
				return ferr
			}
			continue
		}
		ret, ttlPtr, err := tryUpdate(orig.obj, orig.meta)
		if err == nil {
			err = s.versioner.PrepareObjectForStorage(ret)
		}
		if err != nil {
			if isCurrent {
				return err
			}
			retry, ferr := refresh()
			if ferr != nil {
				return ferr
			}
			if !retry {
				return err
			}
			continue
		}
		data, err := runtime.Encode(s.codec, ret)
		if err != nil {
			return err
		}
		if err := s.checkSize(data); err != nil {
			return err
		}
		if orig.rev != 0 && !orig.stale && bytes.Equal(data, orig.data) {
			// A no-op update must not bump the revision, but only the
			// current stored bytes can prove it is one.
			if !isCurrent {
				if _, ferr := refresh(); ferr != nil {
					return ferr
				}
				continue
			}
			return s.decodeInto(orig.data, destination, orig.rev)
		}
		stored, err := s.getTransformer().TransformToStorage(ctx, data, authenticatedData(path))
		if err != nil {
			return storage.NewInternalError(err)
		}
		var ttl uint64
		if ttlPtr != nil {
			ttl = *ttlPtr
		}
		rev, cur, err := s.db.write(path, orig.rev, stored, expiry(ttl))
		if err != nil {
			return err
		}
		if rev == 0 {
			klog.V(4).Infof("GuaranteedUpdate of %s failed because of a conflict, going to retry", path)
			if orig, err = s.state(ctx, cur, path, v, ignoreNotFound, false); err != nil {
				return err
			}
			isCurrent = true
			continue
		}
		return s.decodeInto(data, destination, rev)
	}
}

// Delete implements storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	path, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(out)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %w", err)
	}
	expectCorrupt := opts.ExpectTransformOrDecodeError &&
		utilfeature.DefaultFeatureGate.Enabled(features.AllowUnsafeMalformedObjectDeletion)
	current := func() (*objState, error) { return s.currentState(ctx, path, v, false, expectCorrupt) }
	var orig *objState
	isCurrent := cachedExistingObject == nil || expectCorrupt
	if isCurrent {
		orig, err = current()
	} else {
		orig, err = s.stateFromObject(cachedExistingObject)
	}
	if err != nil {
		return err
	}
	// check runs the caller's conditions; a failure on a cached copy is
	// retried once the copy turns out to be stale.
	check := func() (retry bool, err error) {
		if err = preconditions.Check(path, orig.obj); err == nil {
			err = validateDeletion(ctx, orig.obj)
		}
		if err == nil || isCurrent {
			return false, err
		}
		cachedRev, failure := orig.rev, err
		if orig, err = current(); err != nil {
			return false, err
		}
		isCurrent = true
		if cachedRev == orig.rev {
			return false, failure
		}
		return true, nil
	}
	for {
		if retry, err := check(); err != nil {
			return err
		} else if retry {
			continue
		}
		rev, cur, err := s.db.write(path, orig.rev, nil, 0)
		if err != nil {
			return err
		}
		if rev == 0 {
			klog.V(4).Infof("deletion of %s failed because of a conflict, going to retry", path)
			if orig, err = s.state(ctx, cur, path, v, false, expectCorrupt); err != nil {
				return err
			}
			isCurrent = true
			continue
		}
		if expectCorrupt {
			return nil
		}
		return s.decodeInto(orig.data, out, rev)
	}
}
