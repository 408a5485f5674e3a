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

package workstatus

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestAvailable(t *testing.T) {
	s := func(h federationv1alpha1.ResourceHealth) federationv1alpha1.ManifestStatus {
		return federationv1alpha1.ManifestStatus{Identifier: federationv1alpha1.ResourceIdentifier{Kind: "Deployment", Name: "web"}, Health: h}
	}
	for _, tc := range []struct {
		name     string
		statuses []federationv1alpha1.ManifestStatus
		want     metav1.ConditionStatus
		reason   string
	}{
		{"nothing applied", nil, metav1.ConditionUnknown, "NotApplied"},
		{"all healthy", []federationv1alpha1.ManifestStatus{s(federationv1alpha1.ResourceHealthy), s(federationv1alpha1.ResourceHealthy)}, metav1.ConditionTrue, "Healthy"},
		{"one unknown", []federationv1alpha1.ManifestStatus{s(federationv1alpha1.ResourceHealthy), s(federationv1alpha1.ResourceUnknown)}, metav1.ConditionUnknown, "HealthUnknown"},
		{"one unhealthy wins", []federationv1alpha1.ManifestStatus{s(federationv1alpha1.ResourceUnknown), s(federationv1alpha1.ResourceUnhealthy)}, metav1.ConditionFalse, "Unhealthy"},
	} {
		c := available(tc.statuses, 7)
		if c.Status != tc.want || c.Reason != tc.reason || c.ObservedGeneration != 7 {
			t.Errorf("%s: %+v, want %s %s", tc.name, c, tc.want, tc.reason)
		}
	}
}
