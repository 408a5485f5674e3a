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

package quota

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func binding(name string, generation int64, replicas ...int32) Binding {
	spec := &federationv1alpha1.ResourceBindingSpec{ReplicaRequirements: &federationv1alpha1.ReplicaRequirements{ResourceRequest: list("cpu", "1")}}
	for i, r := range replicas {
		spec.Clusters = append(spec.Clusters, federationv1alpha1.TargetCluster{Name: string(rune('a' + i)), Replicas: r})
	}
	return Binding{Name: name, Generation: generation, Spec: spec}
}

// TestLedger: what the others use follows the bindings' events and the scheduler's writes,
// an older event does not undo a newer write, and a binding deleted or going counts for
// nothing.
func TestLedger(t *testing.T) {
	names := []corev1.ResourceName{"cpu", "pods"}
	l := NewLedger()
	built := 0
	list := func() []Binding { built++; return []Binding{binding("a", 1, 2), binding("b", 1, 1, 1)} }
	expect := func(name, cpu string) {
		t.Helper()
		got := l.Others("ns", name, names, list)
		if q := got["cpu"]; q.String() != cpu {
			t.Errorf("others of %s use %s CPU, want %s", name, q.String(), cpu)
		}
	}
	expect("a", "2")
	expect("b", "2")
	expect("new", "4")
	if built != 1 {
		t.Errorf("built %d times, want once", built)
	}
	l.Record("ns", binding("a", 3, 5)) // the scheduler scaled a to 5
	expect("b", "5")
	l.Observe("ns", binding("a", 2, 2)) // an older event comes late
	expect("b", "5")
	going := binding("b", 1, 1, 1)
	going.Deleting = true
	l.Observe("ns", going)
	expect("a", "0")
	l.Forget("ns", "b")
	expect("new", "5")
	// Another namespace is not kept until it is admitted in.
	l.Observe("other", binding("x", 1, 9))
	if got := l.Others("other", "y", names, func() []Binding { return nil })["cpu"]; !got.IsZero() {
		t.Errorf("a namespace observed before it was built uses %s", got.String())
	}
	// Quotas naming other resources rebuild it.
	l.Others("ns", "a", []corev1.ResourceName{"memory"}, list)
	if built != 2 {
		t.Errorf("built %d times, want again for other names", built)
	}
}

// TestLedgerRestore: a reservation whose write failed is undone, though it named a newer
// generation than the binding has.
func TestLedgerRestore(t *testing.T) {
	names := []corev1.ResourceName{"cpu"}
	l := NewLedger()
	list := func() []Binding { return []Binding{binding("a", 1, 2)} }
	l.Others("ns", "x", names, list)
	l.Record("ns", binding("a", 2, 6)) // reserved before the write
	if got := l.Others("ns", "x", names, list)["cpu"]; got.String() != "6" {
		t.Fatalf("others use %s with the reservation, want 6", got.String())
	}
	l.Restore("ns", binding("a", 1, 2))
	if got := l.Others("ns", "x", names, list)["cpu"]; got.String() != "2" {
		t.Errorf("others use %s after the reservation was undone, want 2", got.String())
	}
}
