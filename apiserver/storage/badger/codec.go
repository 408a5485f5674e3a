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

package badger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// authenticatedData binds transformed bytes to their key, as the etcd3 store does.
type authenticatedData string

func (d authenticatedData) AuthenticatedData() []byte { return []byte(d) }

// fromStorage undoes the transformer; with unsafe deletion of malformed
// objects enabled, failures are marked as corrupt objects.
func (s *Store) fromStorage(ctx context.Context, path string, stored []byte) ([]byte, bool, error) {
	data, stale, err := s.getTransformer().TransformFromStorage(ctx, stored, authenticatedData(path))
	if err != nil && s.classifyCorrupt {
		err = &corruptObjectError{err: err, what: "data from the storage is not transformable"}
	}
	return data, stale, err
}

// decodeInto decodes data into out and sets its resourceVersion to rev.
func (s *Store) decodeInto(data []byte, out runtime.Object, rev int64) error {
	if _, _, err := s.codec.Decode(data, nil, out); err != nil {
		return s.decodeError(err, rev)
	}
	if err := s.versioner.UpdateObject(out, uint64(rev)); err != nil {
		klog.Errorf("failed to update object version: %v", err)
	}
	return nil
}

// decodeNew decodes data into a new object from newItem.
func (s *Store) decodeNew(data []byte, newItem func() runtime.Object, rev int64) (runtime.Object, error) {
	obj, _, err := s.codec.Decode(data, nil, newItem())
	if err != nil {
		return nil, s.decodeError(err, rev)
	}
	if err := s.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		klog.Errorf("failed to update object version: %v", err)
	}
	return obj, nil
}

func (s *Store) decodeError(err error, rev int64) error {
	if s.classifyCorrupt {
		return &corruptObjectError{err: err, what: "object not decodable", rev: rev}
	}
	return err
}

// corruptObjectError marks an object that cannot be transformed or decoded;
// with the AllowUnsafeMalformedObjectDeletion feature it can be deleted anyway.
type corruptObjectError struct {
	err  error
	what string
	rev  int64
}

func (e *corruptObjectError) Unwrap() error { return e.err }
func (e *corruptObjectError) Error() string {
	return fmt.Sprintf("%s revision=%d: %v", e.what, e.rev, e.err)
}

// asCorrupt converts a corrupt-object error of path to storage's error type,
// which the registry recognizes to offer unsafe deletion.
func asCorrupt(path string, err error) error {
	var c *corruptObjectError
	if errors.As(err, &c) {
		return storage.NewCorruptObjError(path, c)
	}
	return err
}

// maxCorruptObjects caps how many corrupt objects one list reports, as etcd3 does.
const maxCorruptObjects = 100

var errTooManyCorrupt = errors.New("too many errors, the list is truncated")

// listErrors decides whether a list goes on after an item fails. Without
// unsafe deletion the first error ends the list; with it, corrupt objects are
// collected (up to maxCorruptObjects) and reported together.
type listErrors struct {
	aggregate bool
	resource  schema.GroupResource
	corrupt   []error
	abort     error
}

// add records err for path and reports whether the list must stop.
func (l *listErrors) add(path string, err error) bool {
	var c *corruptObjectError
	if !l.aggregate || !errors.As(err, &c) {
		l.abort = err
		return true
	}
	l.corrupt = append(l.corrupt, storage.NewCorruptObjError(path, c))
	if len(l.corrupt) >= maxCorruptObjects {
		l.abort = errTooManyCorrupt
		return true
	}
	return false
}

// err returns the list's outcome as the etcd3 store reports it.
func (l *listErrors) err() error {
	if len(l.corrupt) == 0 {
		return l.abort
	}
	causes := make([]metav1.StatusCause, 0, len(l.corrupt)+1)
	for _, err := range l.corrupt {
		var se *storage.StorageError
		if errors.As(err, &se) {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Field: se.Key, Message: err.Error()})
		}
	}
	switch {
	case errors.Is(l.abort, errTooManyCorrupt):
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeTooMany, Message: errTooManyCorrupt.Error()})
	case l.abort != nil:
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Message: l.abort.Error()})
	}
	msg := fmt.Sprintf("failed to read one or more %s from the storage: %v", l.resource.String(), l.corrupt[0])
	if len(l.corrupt) > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, len(l.corrupt)-1)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonStoreReadError,
		Message: msg,
		Details: &metav1.StatusDetails{Group: l.resource.Group, Kind: l.resource.Resource, Name: "list", Causes: causes},
	}}
}

// watchErrorEvent turns an error into the Error event a watch ends with.
func watchErrorStatus(err error) *metav1.Status {
	var c *corruptObjectError
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &c) && strings.HasPrefix(err.Error(), deletedCorruptPrefix):
		return &metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusInternalServerError,
			Reason:  metav1.StatusReasonStoreReadError,
			Message: err.Error(),
		}
	case errors.As(err, &status):
		return ptr.To(status.Status())
	default:
		return ptr.To(apierrors.NewInternalError(err).Status())
	}
}

const deletedCorruptPrefix = "saw a DELETED event, but object data is corrupt"
