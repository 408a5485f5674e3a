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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestEvictionTasks(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	evicted := []Eviction{{Cluster: "member2", Taint: corev1.Taint{Key: "cluster.fedhq.io/unreachable", Effect: corev1.TaintEffectNoExecute}}}
	previous := parseTargets("member1=2 member2=2")
	failover := func(mode federationv1alpha1.PurgeMode, grace *int32) *federationv1alpha1.FailoverBehavior {
		return &federationv1alpha1.FailoverBehavior{Cluster: &federationv1alpha1.ClusterFailoverBehavior{PurgeMode: mode, GracePeriodSeconds: grace}}
	}
	for _, c := range []struct {
		name     string
		failover *federationv1alpha1.FailoverBehavior
		mode     federationv1alpha1.PurgeMode // empty: no task
		grace    *int32
		says     string
	}{
		{name: "no failover: Gracefully, 600s", mode: federationv1alpha1.PurgeGracefully, grace: ptr.To[int32](600), says: "at most 600s"},
		{name: "Gracefully", failover: failover(federationv1alpha1.PurgeGracefully, ptr.To[int32](30)), mode: federationv1alpha1.PurgeGracefully,
			grace: ptr.To[int32](30), says: "at most 30s"},
		{name: "Never", failover: failover(federationv1alpha1.PurgeNever, nil), mode: federationv1alpha1.PurgeNever, says: "until the eviction task is removed"},
		{name: "Directly: no task", failover: failover(federationv1alpha1.PurgeDirectly, nil), says: "is deleted"},
		{name: "application failover only: Gracefully", failover: &federationv1alpha1.FailoverBehavior{Application: &federationv1alpha1.ApplicationFailoverBehavior{}},
			mode: federationv1alpha1.PurgeGracefully, grace: ptr.To[int32](600), says: "at most 600s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tasks := evictionTasks(&federationv1alpha1.ResourceBindingSpec{Failover: c.failover}, previous, evicted, now)
			msg := evictionMessage(evicted[0], tasks)
			if !strings.Contains(msg, "cluster.fedhq.io/unreachable:NoExecute") || !strings.Contains(msg, c.says) {
				t.Errorf("message %q does not say %q", msg, c.says)
			}
			if c.mode == "" {
				if len(tasks) != 0 {
					t.Fatalf("tasks %+v, want none", tasks)
				}
				return
			}
			if len(tasks) != 1 {
				t.Fatalf("tasks %+v, want one", tasks)
			}
			task := tasks[0]
			if task.FromCluster != "member2" || task.PurgeMode != c.mode || ptr.Deref(task.GracePeriodSeconds, -1) != ptr.Deref(c.grace, -1) ||
				ptr.Deref(task.Replicas, 0) != 2 || task.Reason != federationv1alpha1.EvictionReasonTaintUntolerated ||
				task.Producer != federationv1alpha1.EvictionProducerScheduler || !task.CreationTimestamp.Equal(&now) {
				t.Fatalf("task %+v", task)
			}
		})
	}
}

// At 2 a second, evictions take turns half a second apart; a turn is kept for its binding
// and taken when it comes; one dropped is not.
func TestEvictionQueue(t *testing.T) {
	q := newEvictionQueue(2)
	now := time.Unix(1000, 0)
	a, b, c := key{Namespace: "ns", Name: "a"}, key{Namespace: "ns", Name: "b"}, key{Namespace: "ns", Name: "c"}
	if d := q.wait(a, now); d != 0 {
		t.Errorf("the first waits %s", d)
	}
	if d := q.wait(b, now); d != 500*time.Millisecond {
		t.Errorf("the second waits %s, want 500ms", d)
	}
	if d := q.wait(c, now); d != time.Second {
		t.Errorf("the third waits %s, want 1s", d)
	}
	if d := q.wait(b, now.Add(200*time.Millisecond)); d != 300*time.Millisecond {
		t.Errorf("the second, asked again before its turn, waits %s, want 300ms", d)
	}
	if d := q.wait(b, now.Add(500*time.Millisecond)); d != 0 {
		t.Errorf("the second at its turn waits %s", d)
	}
	q.drop(c)
	if d := q.wait(c, now.Add(time.Second)); d != 500*time.Millisecond {
		t.Errorf("the third, dropped and back at 1s, waits %s for a turn of its own, want 500ms", d)
	}
	if newEvictionQueue(0).wait(a, now) != 0 {
		t.Errorf("no limit: an eviction waits")
	}
}
