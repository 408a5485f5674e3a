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

// Package watching continues a list or a get with a watch, as kubectl get -w does: from the
// resourceVersion the list answered, handing each change to a printer until the watch or
// the context ends.
package watching

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// From is the resourceVersion to watch from after a list or get (a Table, a list or an
// object): the list's, or the object's; "0" (now, with synthetic ADDED events) when there
// is none.
func From(obj runtime.Object) string {
	if t, ok := obj.(*metav1.Table); ok {
		if t.ResourceVersion != "" {
			return t.ResourceVersion
		}
		if len(t.Rows) == 1 && t.Rows[0].Object.Object != nil {
			obj = t.Rows[0].Object.Object
		} else {
			return "0"
		}
	}
	if meta.IsListType(obj) {
		if acc, err := meta.ListAccessor(obj); err == nil && acc.GetResourceVersion() != "" {
			return acc.GetResourceVersion()
		}
		return "0"
	}
	if acc, err := meta.Accessor(obj); err == nil && acc.GetResourceVersion() != "" {
		return acc.GetResourceVersion()
	}
	return "0"
}

// Each hands the object of every change w reports to handle, skipping bookmarks, until w
// or ctx ends (nil) or w reports an error or handle fails (that error). It stops w.
func Each(ctx context.Context, w watch.Interface, handle func(runtime.Object) error) error {
	return each(ctx, w, handle, func(runtime.Object) {})
}

// each is Each, telling bookmark of every bookmark.
func each(ctx context.Context, w watch.Interface, handle func(runtime.Object) error, bookmark func(runtime.Object)) error {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if e.Type == watch.Error {
				return apierrors.FromObject(e.Object)
			}
			if e.Type == watch.Bookmark {
				bookmark(e.Object)
				continue
			}
			if err := handle(e.Object); err != nil {
				return err
			}
		}
	}
}

// resumePause is how long a watch must have lasted for Resume to start the next at once,
// and how long it waits otherwise.
var resumePause = time.Second

// Resume is Each over the watches start makes: the first from rv and, each time a watch
// ends while ctx goes on, the next from the last resourceVersion seen (of a change or a
// bookmark). It is for servers that end watches early: the host ends the watches of the
// search cache at its request timeout, as for any request it does not count as
// long-running. A watch that ends within resumePause is followed by a pause.
func Resume(ctx context.Context, rv string, start func(rv string) (watch.Interface, error), handle func(runtime.Object) error) error {
	seen := func(obj runtime.Object) {
		if v := From(obj); v != "0" {
			rv = v
		}
	}
	for {
		w, err := start(rv)
		if err != nil {
			return err
		}
		began := time.Now()
		err = each(ctx, w, func(obj runtime.Object) error {
			seen(obj)
			return handle(obj)
		}, seen)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if time.Since(began) < resumePause {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(resumePause):
			}
		}
	}
}
