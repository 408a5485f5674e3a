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

package applicationfailover

import (
	"strings"
	"testing"
	"time"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
)

// A cluster fails once the workload has been Unhealthy there for the toleration, counted
// from the first time it was seen so; a healthy report, or a task already leaving the
// cluster, starts the count again.
func TestObserve(t *testing.T) {
	c := &Controller{unhealthy: map[bindings.Key]map[string]time.Time{}}
	k := bindings.Key{Namespace: "default", Name: "nginx-deployment"}
	spec := &federationv1alpha1.ResourceBindingSpec{Clusters: []federationv1alpha1.TargetCluster{{Name: "member1"}, {Name: "member2"}}}
	item := func(cluster string, h federationv1alpha1.ResourceHealth) federationv1alpha1.AggregatedStatusItem {
		return federationv1alpha1.AggregatedStatusItem{ClusterName: cluster, Health: h}
	}
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	const toleration = 10 * time.Second
	unhealthy1 := []federationv1alpha1.AggregatedStatusItem{item("member1", federationv1alpha1.ResourceUnhealthy), item("member2", federationv1alpha1.ResourceHealthy)}

	failed, next := c.observe(k, spec, unhealthy1, t0, toleration)
	if len(failed) != 0 || !next.Equal(t0.Add(toleration)) {
		t.Fatalf("first seen: failed %v, next %v", failed, next)
	}
	failed, _ = c.observe(k, spec, unhealthy1, t0.Add(5*time.Second), toleration)
	if len(failed) != 0 {
		t.Fatalf("within the toleration: failed %v", failed)
	}
	// Healthy for a moment: the count starts again.
	c.observe(k, spec, []federationv1alpha1.AggregatedStatusItem{item("member1", federationv1alpha1.ResourceHealthy)}, t0.Add(6*time.Second), toleration)
	failed, next = c.observe(k, spec, unhealthy1, t0.Add(7*time.Second), toleration)
	if len(failed) != 0 || !next.Equal(t0.Add(17*time.Second)) {
		t.Fatalf("after a healthy report: failed %v, next %v", failed, next)
	}
	failed, _ = c.observe(k, spec, unhealthy1, t0.Add(17*time.Second), toleration)
	if len(failed) != 1 || failed[0].ClusterName != "member1" {
		t.Fatalf("after the toleration: failed %v", failed)
	}
	// Unknown (a member that does not answer) is no failure of the workload; a cluster
	// being left is not looked at again.
	spec.GracefulEvictionTasks = []federationv1alpha1.GracefulEvictionTask{{FromCluster: "member1"}}
	failed, next = c.observe(k, spec, []federationv1alpha1.AggregatedStatusItem{item("member1", federationv1alpha1.ResourceUnhealthy),
		item("member2", federationv1alpha1.ResourceUnknown)}, t0.Add(time.Hour), toleration)
	if len(failed) != 0 || !next.IsZero() {
		t.Fatalf("leaving and unknown: failed %v, next %v", failed, next)
	}
}

func TestPreserve(t *testing.T) {
	status := []byte(`{"replicas": 3, "phase": "Running", "message": "not a label value!"}`)
	rules := []federationv1alpha1.StatePreservationRule{
		{AliasLabelName: "fed.example/replicas", JSONPath: "{ .replicas }"},
		{AliasLabelName: "fed.example/phase", JSONPath: "{.phase}"},
	}
	got, err := preserve(rules, status)
	if err != nil || got["fed.example/replicas"] != "3" || got["fed.example/phase"] != "Running" {
		t.Fatalf("preserve = %v, %v", got, err)
	}
	got, err = preserve(append(rules, federationv1alpha1.StatePreservationRule{AliasLabelName: "fed.example/message", JSONPath: "{.message}"},
		federationv1alpha1.StatePreservationRule{AliasLabelName: "fed.example/missing", JSONPath: "{.nothing}"}), status)
	if err == nil || !strings.Contains(err.Error(), "fed.example/message") || !strings.Contains(err.Error(), "fed.example/missing") || len(got) != 2 {
		t.Fatalf("bad rules: %v, %v", got, err)
	}
	if _, err := preserve(rules, nil); err == nil {
		t.Fatal("no status: no error")
	}
}
