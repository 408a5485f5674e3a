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

package gracefuleviction

import (
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestAssess(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	task := func(mode federationv1alpha1.PurgeMode, age time.Duration, grace *int32, suppress *bool) federationv1alpha1.GracefulEvictionTask {
		return federationv1alpha1.GracefulEvictionTask{FromCluster: "member2", PurgeMode: mode, GracePeriodSeconds: grace, SuppressDeletion: suppress,
			CreationTimestamp: &metav1.Time{Time: now.Add(-age)}}
	}
	for _, c := range []struct {
		name    string
		task    federationv1alpha1.GracefulEvictionTask
		waiting []string
		done    bool
		due     time.Duration // from now; 0 for none
	}{
		{name: "replacements healthy", task: task(federationv1alpha1.PurgeGracefully, time.Second, ptr.To[int32](60), nil), done: true},
		{name: "replacements starting", task: task(federationv1alpha1.PurgeGracefully, 10*time.Second, ptr.To[int32](60), nil),
			waiting: []string{"member1"}, due: 50 * time.Second},
		{name: "grace period over", task: task(federationv1alpha1.PurgeGracefully, time.Minute, ptr.To[int32](60), nil), waiting: []string{"member1"}, done: true},
		{name: "Directly without a grace period waits the default", task: task(federationv1alpha1.PurgeDirectly, time.Minute, nil, nil),
			waiting: []string{"member1"}, due: 9 * time.Minute},
		{name: "Never stays", task: task(federationv1alpha1.PurgeNever, time.Hour, nil, nil)},
		{name: "suppressed stays", task: task(federationv1alpha1.PurgeGracefully, time.Hour, ptr.To[int32](60), ptr.To(true))},
		{name: "no longer suppressed ends", task: task(federationv1alpha1.PurgeNever, time.Hour, nil, ptr.To(false)), waiting: []string{"member1"}, done: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			why, due := assess(c.task, c.waiting, now)
			want := time.Time{}
			if c.due > 0 {
				want = now.Add(c.due)
			}
			if (why != "") != c.done || !due.Equal(want) {
				t.Fatalf("assess = %q, %v; want done %v, due %v", why, due, c.done, want)
			}
		})
	}
}

// A replacement counts once its Work is Available as of its generation and has the
// replicas the binding now gives that cluster.
func TestReplacing(t *testing.T) {
	c := &Controller{}
	work := func(replicas int, generation, observed int64, status metav1.ConditionStatus) *federationv1alpha1.Work {
		w := &federationv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Generation: generation,
			Annotations: map[string]string{federationv1alpha1.AnnotationReplicas: strconv.Itoa(replicas)}}}
		w.Spec.Workload.Manifests = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}`)}}
		w.Status.Conditions = []metav1.Condition{{Type: federationv1alpha1.WorkConditionAvailable, Status: status, ObservedGeneration: observed},
			{Type: federationv1alpha1.WorkConditionApplied, Status: metav1.ConditionTrue, ObservedGeneration: generation}}
		return w
	}
	notApplied := work(4, 2, 2, metav1.ConditionTrue)
	notApplied.Status.Conditions[1].Status = metav1.ConditionFalse
	spec := &federationv1alpha1.ResourceBindingSpec{Clusters: []federationv1alpha1.TargetCluster{{Name: "member1", Replicas: 4}, {Name: "member3", Replicas: 2}}}
	for _, tc := range []struct {
		name  string
		works map[string]*federationv1alpha1.Work
		want  []string
	}{
		{name: "all healthy", works: map[string]*federationv1alpha1.Work{"member1": work(4, 2, 2, metav1.ConditionTrue), "member3": work(2, 1, 1, metav1.ConditionTrue)}},
		{name: "no Work yet", works: map[string]*federationv1alpha1.Work{"member1": work(4, 2, 2, metav1.ConditionTrue)}, want: []string{"member3"}},
		{name: "still the replicas from before", works: map[string]*federationv1alpha1.Work{"member1": work(2, 1, 1, metav1.ConditionTrue), "member3": work(2, 1, 1, metav1.ConditionTrue)},
			want: []string{"member1"}},
		{name: "not applied at its generation", works: map[string]*federationv1alpha1.Work{"member1": notApplied, "member3": work(2, 1, 1, metav1.ConditionTrue)},
			want: []string{"member1"}},
		{name: "Available of an older generation", works: map[string]*federationv1alpha1.Work{"member1": work(4, 2, 1, metav1.ConditionTrue), "member3": work(2, 1, 1, metav1.ConditionFalse)},
			want: []string{"member1", "member3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.replacing(spec, tc.works)
			if len(got) != len(tc.want) || (len(got) > 0 && (got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1])) {
				t.Fatalf("replacing = %v, want %v", got, tc.want)
			}
		})
	}
}
