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

package reconciler

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRunRetries: each outcome of a reconcile brings its key back as documented — a failure
// with backoff, RequeueAfter after its delay, ErrRetrySoon and a write conflict shortly,
// success not at all.
func TestRunRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue[string]("test")
	var mu sync.Mutex
	calls := map[string]int{}
	outcomes := map[string][]error{
		"fails":    {errors.New("boom"), nil},
		"requeued": {RequeueAfter(50*time.Millisecond, nil), nil},
		"soon":     {ErrRetrySoon, nil},
		"conflict": {apierrors.NewConflict(schema.GroupResource{Resource: "things"}, "conflict", errors.New("stale")), nil},
		"done":     {nil},
	}
	go Run(ctx, q, 2, nil, "Testing", func(_ context.Context, k string) error {
		mu.Lock()
		defer mu.Unlock()
		n := calls[k]
		calls[k]++
		if n < len(outcomes[k]) {
			return outcomes[k][n]
		}
		return nil
	})
	for k := range outcomes {
		q.Add(k)
	}
	time.Sleep(time.Second)
	mu.Lock()
	defer mu.Unlock()
	for k, want := range map[string]int{"fails": 2, "requeued": 2, "soon": 2, "conflict": 2, "done": 1} {
		if calls[k] != want {
			t.Errorf("%s reconciled %d times, want %d", k, calls[k], want)
		}
	}
	if !errors.Is(RequeueAfter(time.Second, ErrRetrySoon), ErrRetrySoon) {
		t.Errorf("RequeueAfter does not wrap its reason")
	}
}

// TestSpecChanges: adds, deletes and new generations call the function; an update of the
// same generation (a status write) does not.
func TestSpecChanges(t *testing.T) {
	var got []string
	h := SpecChanges(func(obj any) { got = append(got, obj.(*metav1.ObjectMeta).Name) })
	gen := func(name string, g int64) *metav1.ObjectMeta { return &metav1.ObjectMeta{Name: name, Generation: g} }
	h.OnAdd(gen("added", 1), false)
	h.OnUpdate(gen("status", 1), gen("status", 1))
	h.OnUpdate(gen("spec", 1), gen("spec", 2))
	h.OnDelete(gen("deleted", 1))
	if want := []string{"added", "spec", "deleted"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("called for %v, want %v", got, want)
	}
}

// TestLanedQueue: workers get every key of an earlier lane before any of a later one, each
// lane in the order its keys came; a key added again while it waits keeps its place, and one
// added after a delay joins its lane when it arrives.
func TestLanedQueue(t *testing.T) {
	lane := map[string]int{"delete-1": 2, "delete-2": 2, "new-1": 1, "update-1": 0, "update-2": 0, "later": 0, "out-of-range": 7}
	q := NewLanedQueue("test", 3, func(k string) int { return lane[k] })
	defer q.ShutDown()
	for _, k := range []string{"delete-1", "new-1", "delete-2", "update-1", "new-1", "out-of-range", "update-2"} {
		q.Add(k)
	}
	q.AddAfter("later", 50*time.Millisecond)
	if q.Len() != 6 {
		t.Fatalf("%d keys wait, want 6 (new-1 once)", q.Len())
	}
	var got []string
	for range 6 {
		k, _ := q.Get()
		got = append(got, k)
		q.Done(k)
	}
	want := []string{"update-1", "update-2", "new-1", "delete-1", "delete-2", "out-of-range"}
	if !slices.Equal(got, want) {
		t.Fatalf("workers got %v, want %v", got, want)
	}
	q.Add("delete-1")
	time.Sleep(100 * time.Millisecond) // "later" arrives in lane 0, after delete-1 in lane 2
	for _, want := range []string{"later", "delete-1"} {
		if k, _ := q.Get(); k != want {
			t.Fatalf("a worker got %s, want %s", k, want)
		} else {
			q.Done(k)
		}
	}
}
