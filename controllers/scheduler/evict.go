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

package scheduler

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// evictionTasks are the graceful eviction tasks for the clusters NoExecute taints took a
// binding from, as its failover.cluster says: with Gracefully (the default) or Never the
// cluster's copy stays until the task is done (see controllers/gracefuleviction); with
// Directly it goes at once and no task is made. While a task is on the binding, its
// cluster is no candidate.
func evictionTasks(spec *federationv1alpha1.ResourceBindingSpec, previous []federationv1alpha1.TargetCluster,
	evicted []Eviction, now metav1.Time) []federationv1alpha1.GracefulEvictionTask {
	mode, grace := federationv1alpha1.PurgeGracefully, ptr.To(federationv1alpha1.DefaultFailoverGracePeriod)
	if f := spec.Failover; f != nil && f.Cluster != nil {
		mode, grace = f.Cluster.PurgeMode, f.Cluster.GracePeriodSeconds
	}
	if mode == federationv1alpha1.PurgeDirectly {
		return nil
	}
	if mode != federationv1alpha1.PurgeGracefully {
		grace = nil
	}
	var out []federationv1alpha1.GracefulEvictionTask
	for _, e := range evicted {
		if slices.ContainsFunc(spec.GracefulEvictionTasks, func(t federationv1alpha1.GracefulEvictionTask) bool { return t.FromCluster == e.Cluster }) {
			continue // already being left (an application failover, say)
		}
		task := federationv1alpha1.GracefulEvictionTask{
			FromCluster:        e.Cluster,
			PurgeMode:          mode,
			Reason:             federationv1alpha1.EvictionReasonTaintUntolerated,
			Message:            fmt.Sprintf("cluster %s has the taint %s, which the placement does not tolerate", e.Cluster, e.Taint.ToString()),
			Producer:           federationv1alpha1.EvictionProducerScheduler,
			GracePeriodSeconds: grace,
			CreationTimestamp:  &now,
		}
		for _, t := range previous {
			if t.Name == e.Cluster && t.Replicas > 0 {
				task.Replicas = ptr.To(t.Replicas)
			}
		}
		out = append(out, task)
	}
	return out
}

// evictionMessage says why a workload left a cluster and what happens to its copy there.
func evictionMessage(e Eviction, tasks []federationv1alpha1.GracefulEvictionTask) string {
	msg := fmt.Sprintf("left %s: the taint %s is not tolerated", e.Cluster, e.Taint.ToString())
	for _, t := range tasks {
		if t.FromCluster != e.Cluster {
			continue
		}
		switch t.PurgeMode {
		case federationv1alpha1.PurgeGracefully:
			return fmt.Sprintf("%s; its copy there stays until the copies elsewhere are healthy, at most %ds", msg, ptr.Deref(t.GracePeriodSeconds, 0))
		case federationv1alpha1.PurgeNever:
			return msg + "; its copy there stays until the eviction task is removed from the binding"
		}
	}
	return msg + "; its copy there is deleted"
}

// evictionQueue spaces the bindings NoExecute taints evict across the fleet: at most
// rate a second (a burst of one), so that a failed member's workloads do not all land on
// the others at once (fed-apiserver's --resource-eviction-rate). A binding whose turn has
// not come keeps its placement and is scheduled again at its turn, which is kept for it.
type evictionQueue struct {
	limiter *rate.Limiter
	mu      sync.Mutex
	turns   map[key]time.Time
}

// newEvictionQueue limits evictions to perSecond; nil (no limit) for 0.
func newEvictionQueue(perSecond float64) *evictionQueue {
	if perSecond <= 0 {
		return nil
	}
	return &evictionQueue{limiter: rate.NewLimiter(rate.Limit(perSecond), 1), turns: map[key]time.Time{}}
}

// wait is how long the eviction of k must wait from now: 0 when it may go (its turn
// taken), else the time to its turn, which is reserved for it.
func (q *evictionQueue) wait(k key, now time.Time) time.Duration {
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if turn, ok := q.turns[k]; ok {
		if now.Before(turn) {
			return turn.Sub(now)
		}
		delete(q.turns, k)
		return 0
	}
	d := q.limiter.ReserveN(now, 1).DelayFrom(now)
	if d > 0 {
		q.turns[k] = now.Add(d)
	}
	return d
}

// drop forgets the turn of a binding that has nothing to evict now (its cluster came back,
// or it went): its next eviction waits for a turn of its own.
func (q *evictionQueue) drop(k key) {
	if q == nil {
		return
	}
	q.mu.Lock()
	delete(q.turns, k)
	q.mu.Unlock()
}
