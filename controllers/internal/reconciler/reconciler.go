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

// Package reconciler is the loop every pipeline controller of fed runs: keys from a
// workqueue, reconciled by a few workers, retried with a per-key backoff.
package reconciler

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// ErrRetrySoon says a key cannot be reconciled yet for a passing reason (an informer has
// not listed yet): it is tried again shortly, without backoff and without an error logged.
var ErrRetrySoon = errors.New("not ready yet")

// retrySoon is how soon.
const retrySoon = 200 * time.Millisecond

// requeue asks for a key to be reconciled again after a while, without backoff.
type requeue struct {
	after  time.Duration
	reason error
}

func (r *requeue) Error() string {
	if r.reason != nil {
		return r.reason.Error()
	}
	return "reconcile again in " + r.after.String()
}

func (r *requeue) Unwrap() error { return r.reason }

// RequeueAfter says a key is done for now and is to be reconciled again after d: a member
// polled periodically, or something outside fed's watches that may change (a member object
// fed does not manage, a namespace still terminating in a member). reason, which may be nil,
// is why; it is not logged as an error.
func RequeueAfter(d time.Duration, reason error) error { return &requeue{after: d, reason: reason} }

// SpecChanges is an informer's handler that calls f with an object added or deleted, and
// with one updated to a new generation: its spec changed. Status writes (a controller's
// own) and metadata changes do not call it.
func SpecChanges(f func(obj any)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: f,
		UpdateFunc: func(old, cur any) {
			o, err1 := meta.Accessor(old)
			n, err2 := meta.Accessor(cur)
			if err1 != nil || err2 != nil || o.GetGeneration() != n.GetGeneration() {
				f(cur)
			}
		},
		DeleteFunc: f,
	}
}

// EnqueueKey returns the function that adds an object's namespace/name key (a deleted
// object's too) to q.
func EnqueueKey(q workqueue.TypedInterface[string]) func(obj any) {
	return func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			q.Add(key)
		}
	}
}

// NewQueue returns a queue that backs off per key only, from 5 ms to 30 s. client-go's
// default also limits all keys together to 10 a second, which would hold a pipeline of
// thousands of objects back for minutes after a restart.
func NewQueue[K comparable](name string) workqueue.TypedRateLimitingInterface[K] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.NewTypedItemExponentialFailureRateLimiter[K](5*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[K]{Name: name})
}

// NewLanedQueue is NewQueue with lanes: lane tells which lane, from 0 to lanes-1, a key
// joins when it is added and not already waiting, and a worker takes the oldest key of the
// first lane that has one. So a burst of keys in a later lane (thousands of member objects
// to delete) does not hold back one in an earlier lane (a workload to move off a failed
// member). lane runs under the queue's lock: it must only read (an informer's cache).
func NewLanedQueue[K comparable](name string, lanes int, lane func(K) int) workqueue.TypedRateLimitingInterface[K] {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[K]{Name: name, Queue: &laned[K]{lanes: make([][]K, lanes), lane: lane}})
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.NewTypedItemExponentialFailureRateLimiter[K](5*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[K]{Name: name, DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(
			workqueue.TypedDelayingQueueConfig[K]{Name: name, Queue: q})})
}

// laned is the workqueue.Queue of NewLanedQueue: one FIFO per lane.
type laned[K comparable] struct {
	lanes [][]K
	lane  func(K) int
}

func (l *laned[K]) Touch(K) {}

func (l *laned[K]) Push(k K) {
	i := min(max(l.lane(k), 0), len(l.lanes)-1)
	l.lanes[i] = append(l.lanes[i], k)
}

func (l *laned[K]) Len() int {
	n := 0
	for _, q := range l.lanes {
		n += len(q)
	}
	return n
}

func (l *laned[K]) Pop() K {
	var zero K
	for i, q := range l.lanes {
		if len(q) == 0 {
			continue
		}
		k := q[0]
		q[0] = zero // the backing array does not keep the key
		l.lanes[i] = q[1:]
		return k
	}
	return zero // the workqueue pops only when Len is above 0
}

// Run waits for the informers, then reconciles the keys of q with workers until ctx
// ends, and shuts q down. A key whose reconcile fails is retried with backoff, and the
// error logged with what ("Scheduling a binding"). A write conflict is not an error: the key
// is reconciled again shortly, from the newer object once the informer has it. (Waiting for
// the newer object's event is not enough: a controller that ignores status writes would
// never hear of one that only changed the status, and a Work whose finalizer execution
// failed to remove that way stayed, with its namespace terminating, for good.)
func Run[K comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[K], workers int, synced []cache.InformerSynced,
	what string, reconcile func(context.Context, K) error) {
	defer utilruntime.HandleCrash()
	defer q.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	worker := func(ctx context.Context) {
		for {
			k, quit := q.Get()
			if quit {
				return
			}
			err := reconcile(ctx, k)
			var again *requeue
			switch {
			case errors.As(err, &again):
				q.Forget(k)
				q.AddAfter(k, again.after)
			case err == nil:
				q.Forget(k)
			case errors.Is(err, ErrRetrySoon) || apierrors.IsConflict(err):
				q.Forget(k)
				q.AddAfter(k, retrySoon)
			default:
				utilruntime.HandleErrorWithContext(ctx, err, what, "key", k)
				q.AddRateLimited(k)
			}
			q.Done(k)
		}
	}
	for range workers {
		go wait.UntilWithContext(ctx, worker, time.Second)
	}
	<-ctx.Done()
}
