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

package trim

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/fedhq/fed/internal/jsondict"
)

// Compacted is how an informer of unstructured objects keeps one in little memory: the
// metadata that handlers, indexes and selectors read (its annotations without kubectl's
// last-applied-configuration), and the object's JSON compressed with S2 and a dictionary of
// what Kubernetes JSON repeats, decompressed and decoded again on each read (Object). A
// member's Deployment as unstructured maps takes about 6.6 KiB of heap, its JSON about
// 1.1 KiB. It is immutable: Object returns a new copy at each call.
type Compacted struct {
	metav1.ObjectMeta
	packed []byte
}

// dict is the S2 dictionary compact objects are compressed with; its repeat offset is where
// an object's JSON starts.
var dict = sync.OnceValue(func() *s2.Dict { return s2.MakeDict(jsondict.Dictionary, []byte(`{"apiVersion":"`)) })

// Compact is a cache.TransformFunc that keeps an unstructured object as a Compacted one,
// without its managedFields. Anything else passes as ManagedFields passes it.
func Compact(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return ManagedFields(obj)
	}
	u.SetManagedFields(nil)
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("keeping %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	annotations := u.GetAnnotations()
	// kubectl's record of the last apply is a copy of the object: it stays in the JSON only.
	delete(annotations, corev1.LastAppliedConfigAnnotation)
	return &Compacted{
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(), ResourceVersion: u.GetResourceVersion(),
			Generation: u.GetGeneration(), DeletionTimestamp: u.GetDeletionTimestamp(),
			Labels: u.GetLabels(), Annotations: annotations,
		},
		packed: bytes.Clone(dict().Encode(nil, raw)), // Encode's buffer has room for the worst case
	}, nil
}

var _ cache.TransformFunc = Compact

// Object decodes the whole object again, a copy of its own.
func (c *Compacted) Object() (*unstructured.Unstructured, error) {
	raw, err := dict().Decode(nil, c.packed)
	if err != nil {
		return nil, fmt.Errorf("reading the kept %s/%s: %w", c.Namespace, c.Name, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("reading the kept %s/%s: %w", c.Namespace, c.Name, err)
	}
	return u, nil
}

// GetObjectKind is empty: the kind is in the JSON.
func (c *Compacted) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject copies the metadata; the packed JSON is never written, so it is shared.
func (c *Compacted) DeepCopyObject() runtime.Object {
	return &Compacted{ObjectMeta: *c.ObjectMeta.DeepCopy(), packed: c.packed}
}

// Unstructured returns the whole object of what an informer with Compact kept, decoded (a
// copy of its own), or an unstructured object as it is (mutation caches keep what was
// written so); ok is false for anything else.
func Unstructured(obj any) (u *unstructured.Unstructured, ok bool, err error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o, true, nil
	case *Compacted:
		u, err := o.Object()
		return u, true, err
	}
	return nil, false, nil
}

// Whole is Unstructured for callers that skip what holds no object: nil for anything else,
// and for a kept object that does not decode, which is reported (utilruntime.HandleError).
func Whole(obj any) *unstructured.Unstructured {
	u, ok, err := Unstructured(obj)
	if err != nil {
		utilruntime.HandleError(err)
	}
	if !ok || err != nil {
		return nil
	}
	return u
}
