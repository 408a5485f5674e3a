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

package watching

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

func object(rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetName("x")
	u.SetResourceVersion(rv)
	return u
}

func TestFrom(t *testing.T) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMapList"}}
	list.SetResourceVersion("7")
	for _, tt := range []struct {
		name string
		obj  runtime.Object
		want string
	}{
		{"table", &metav1.Table{ListMeta: metav1.ListMeta{ResourceVersion: "5"}}, "5"},
		{"table of one object", &metav1.Table{Rows: []metav1.TableRow{{Object: runtime.RawExtension{Object: object("6")}}}}, "6"},
		{"table of two objects", &metav1.Table{Rows: []metav1.TableRow{{}, {}}}, "0"},
		{"list", list, "7"},
		{"object", object("8"), "8"},
		{"object without one", object(""), "0"},
	} {
		if got := From(tt.obj); got != tt.want {
			t.Errorf("%s: From = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestEach(t *testing.T) {
	w := watch.NewFake()
	go func() {
		w.Add(object("1"))
		w.Action(watch.Bookmark, object("2"))
		w.Modify(object("3"))
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: 410, Message: "too old"})
	}()
	var seen []string
	err := Each(context.Background(), w, func(obj runtime.Object) error {
		seen = append(seen, obj.(*unstructured.Unstructured).GetResourceVersion())
		return nil
	})
	if !apierrors.IsResourceExpired(err) {
		t.Errorf("error %v, want the watch's Expired", err)
	}
	if len(seen) != 2 || seen[0] != "1" || seen[1] != "3" {
		t.Errorf("handled %v, want 1 and 3 (no bookmark)", seen)
	}

	w = watch.NewFake()
	go w.Add(object("1"))
	boom := errors.New("boom")
	if err := Each(context.Background(), w, func(runtime.Object) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want the handler's", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Each(ctx, watch.NewFake(), func(runtime.Object) error { return boom }); err != nil {
		t.Errorf("a cancelled context: %v", err)
	}
}

func TestResume(t *testing.T) {
	defer func(p time.Duration) { resumePause = p }(resumePause)
	resumePause = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var froms, seen []string
	watches := 0
	start := func(rv string) (watch.Interface, error) {
		froms = append(froms, rv)
		watches++
		w := watch.NewFake()
		switch watches {
		case 1: // a change and a bookmark, then the server ends the watch
			go func() {
				w.Add(object("11"))
				w.Action(watch.Bookmark, object("12"))
				w.Stop()
			}()
		case 2: // a change, then the watch ends again
			go func() {
				w.Modify(object("13"))
				w.Stop()
			}()
		default: // the user stops
			go func() {
				w.Delete(object("14"))
				cancel()
			}()
		}
		return w, nil
	}
	err := Resume(ctx, "10", start, func(obj runtime.Object) error {
		seen = append(seen, obj.(*unstructured.Unstructured).GetResourceVersion())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"10", "12", "13"}; !reflect.DeepEqual(froms, want) {
		t.Errorf("watched from %v, want %v", froms, want)
	}
	if want := []string{"11", "13", "14"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("handled %v, want %v", seen, want)
	}

	gone := errors.New("gone")
	if err := Resume(context.Background(), "1", func(string) (watch.Interface, error) { return nil, gone }, nil); !errors.Is(err, gone) {
		t.Errorf("a watch that cannot start: %v", err)
	}
}
