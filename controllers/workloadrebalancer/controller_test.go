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

package workloadrebalancer

import (
	"testing"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// A rebalancer's workload is the binding's template when group, kind, namespace and name
// agree; the version may differ.
func TestSameTemplate(t *testing.T) {
	ref := federationv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"}
	for _, c := range []struct {
		w    federationv1alpha1.WorkloadReference
		want bool
	}{
		{w: federationv1alpha1.WorkloadReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"}, want: true},
		{w: federationv1alpha1.WorkloadReference{APIVersion: "apps/v1beta2", Kind: "Deployment", Namespace: "default", Name: "web"}, want: true},
		{w: federationv1alpha1.WorkloadReference{APIVersion: "example.com/v1", Kind: "Deployment", Namespace: "default", Name: "web"}},
		{w: federationv1alpha1.WorkloadReference{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: "default", Name: "web"}},
		{w: federationv1alpha1.WorkloadReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "other", Name: "web"}},
	} {
		if got := sameTemplate(ref, c.w); got != c.want {
			t.Errorf("%+v: %v, want %v", c.w, got, c.want)
		}
	}
	obs := []federationv1alpha1.ObservedWorkload{{Result: federationv1alpha1.RebalanceSuccessful}, {Result: federationv1alpha1.RebalanceFailed}, {Result: federationv1alpha1.RebalanceSuccessful}}
	if got := summary(obs); got != "2 workload(s) rescheduled, 1 failed" {
		t.Errorf("summary: %q", got)
	}
}
