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

package bindingstatus

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestAggregateAndFullyApplied(t *testing.T) {
	status := func(ready int) *runtime.RawExtension {
		raw, _ := json.Marshal(map[string]any{"readyReplicas": ready})
		return &runtime.RawExtension{Raw: raw}
	}
	work := func(applied metav1.ConditionStatus, msg string, ready int) *federationv1alpha1.Work {
		return &federationv1alpha1.Work{Status: federationv1alpha1.WorkStatus{
			Conditions:       []metav1.Condition{{Type: federationv1alpha1.WorkConditionApplied, Status: applied, Message: msg}},
			ManifestStatuses: []federationv1alpha1.ManifestStatus{{Status: status(ready), Health: federationv1alpha1.ResourceHealthy}},
		}}
	}
	targets := []federationv1alpha1.TargetCluster{{Name: "member2"}, {Name: "member1"}, {Name: "member3"}}
	items := Aggregate(targets, map[string]*federationv1alpha1.Work{
		"member1": work(metav1.ConditionTrue, "", 1),
		"member2": work(metav1.ConditionFalse, "conflict", 0),
	})
	if len(items) != 3 || items[0].ClusterName != "member1" || items[1].ClusterName != "member2" || items[2].ClusterName != "member3" {
		t.Fatalf("items %+v, want one per cluster in name order", items)
	}
	if !items[0].Applied || items[0].Health != federationv1alpha1.ResourceHealthy || string(items[0].Status.Raw) != `{"readyReplicas":1}` {
		t.Errorf("member1: %+v", items[0])
	}
	if items[1].Applied || items[1].AppliedMessage != "conflict" {
		t.Errorf("member2: %+v", items[1])
	}
	if items[2].Applied || items[2].Health != federationv1alpha1.ResourceUnknown {
		t.Errorf("member3 (no Work yet): %+v", items[2])
	}
	if c := FullyApplied(items, 2); c.Status != metav1.ConditionFalse || c.Reason != "ApplyFailed" || c.Message != "member2: conflict" {
		t.Errorf("FullyApplied = %+v", c)
	}
	if c := FullyApplied(items[:1], 2); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 {
		t.Errorf("FullyApplied of member1 alone = %+v", c)
	}
	if c := FullyApplied(items[2:], 2); c.Reason != "Applying" {
		t.Errorf("FullyApplied of member3 alone = %+v", c)
	}
	if c := FullyApplied(nil, 2); c.Reason != "NotScheduled" {
		t.Errorf("FullyApplied of nothing = %+v", c)
	}
}

func TestRefusals(t *testing.T) {
	work := func(generation int64, status metav1.ConditionStatus, reason string, observed int64) *federationv1alpha1.Work {
		w := &federationv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Generation: generation}}
		w.Spec.Workload.Manifests = []runtime.RawExtension{{Raw: []byte(`{"metadata":{"annotations":{"federation.fedhq.io/template-generation":"7"}}}`)}}
		w.Status.Conditions = []metav1.Condition{{Type: federationv1alpha1.WorkConditionApplied, Status: status, Reason: reason,
			Message: "why " + reason, ObservedGeneration: observed}}
		return w
	}
	targets := []federationv1alpha1.TargetCluster{{Name: "m1"}, {Name: "m2"}, {Name: "m3"}, {Name: "m4"}, {Name: "m5"}, {Name: "m6"}}
	works := map[string]*federationv1alpha1.Work{
		"m1": work(2, metav1.ConditionFalse, "ApplyFailed", 2),
		"m2": work(2, metav1.ConditionFalse, "ApplyFailed", 1), // an older generation's
		"m3": work(2, metav1.ConditionFalse, "ClusterUnreachable", 2),
		"m4": work(2, metav1.ConditionFalse, "Conflict", 2),
		"m5": work(2, metav1.ConditionTrue, "Applied", 2),
		"m6": work(2, metav1.ConditionFalse, "Suspended", 2),
	}
	want := []string{"cluster m1: why ApplyFailed", "cluster m4: why Conflict"}
	if got := Refusals(targets, works, 7); !reflect.DeepEqual(got, want) {
		t.Errorf("Refusals = %q, want %q", got, want)
	}
	// The template changed since: its Works are not rewritten yet, and refuse nothing of it.
	if got := Refusals(targets, works, 8); len(got) != 0 {
		t.Errorf("Refusals of an earlier generation's Works = %q, want none", got)
	}
	// An override that fails keeps the earlier manifest, and is of the template as it is.
	works["m3"] = work(2, metav1.ConditionFalse, "OverrideFailed", 2)
	if got := Refusals(targets, works, 8); !reflect.DeepEqual(got, []string{"cluster m3: why OverrideFailed"}) {
		t.Errorf("Refusals with an override failing = %q", got)
	}
}

// A binding over 1,000 clusters none of which applied its Work (dispatching suspended) gets
// a FullyApplied condition the API takes: ten clusters named, the others counted, each
// cluster's message cut, all within a condition message's 32 KiB.
func TestFullyAppliedManyClusters(t *testing.T) {
	long := strings.Repeat("x", 5000)
	var items []federationv1alpha1.AggregatedStatusItem
	for i := range 1000 {
		items = append(items, federationv1alpha1.AggregatedStatusItem{ClusterName: fmt.Sprintf("sim-%04d", i), AppliedMessage: "dispatching is suspended " + long})
	}
	c := FullyApplied(items, 1)
	if errs := metav1validation.ValidateConditions([]metav1.Condition{{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message,
		LastTransitionTime: metav1.Now(), ObservedGeneration: c.ObservedGeneration}}, field.NewPath("conditions")); len(errs) > 0 {
		t.Fatalf("the API refuses the condition: %v", errs)
	}
	if !strings.HasPrefix(c.Message, "sim-0000: dispatching is suspended") || !strings.HasSuffix(c.Message, "; and 990 more") || strings.Contains(c.Message, "sim-0010") {
		t.Errorf("message %.200q ... %q", c.Message, c.Message[len(c.Message)-40:])
	}
	for i := range items {
		items[i].AppliedMessage = ""
	}
	if c := FullyApplied(items, 1); c.Message != "not applied yet in sim-0000; sim-0001; sim-0002; sim-0003; sim-0004; sim-0005; sim-0006; sim-0007; sim-0008; sim-0009; and 990 more" {
		t.Errorf("pending: %q", c.Message)
	}
}

func TestReportDelay(t *testing.T) {
	for _, tc := range []struct {
		clusters int
		want     time.Duration
	}{
		{0, 500 * time.Millisecond}, // a binding not in the view yet
		{3, 500 * time.Millisecond},
		{100, 500 * time.Millisecond},
		{101, 505 * time.Millisecond},
		{1000, 5 * time.Second},
	} {
		if got := reportDelay(tc.clusters); got != tc.want {
			t.Errorf("reportDelay(%d) = %s, want %s", tc.clusters, got, tc.want)
		}
	}
}
