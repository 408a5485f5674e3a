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

package validation

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

func TestValidateWorkloadRebalancer(t *testing.T) {
	valid := func() *federation.WorkloadRebalancer {
		return &federation.WorkloadRebalancer{ObjectMeta: metav1.ObjectMeta{Name: "demo"},
			Spec: federation.WorkloadRebalancerSpec{Workloads: []federation.WorkloadReference{
				{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "demo-deploy-1"},
				{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "demo-role"},
			}, TTLSecondsAfterFinished: ptr.To[int32](60)}}
	}
	for _, c := range []struct {
		name   string
		mutate func(*federation.WorkloadRebalancer)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.WorkloadRebalancer) {}},
		{name: "no workload", mutate: func(r *federation.WorkloadRebalancer) { r.Spec.Workloads = nil },
			want: []string{"FieldValueRequired spec.workloads"}},
		{name: "bad references", mutate: func(r *federation.WorkloadRebalancer) {
			r.Spec.Workloads = append(r.Spec.Workloads, r.Spec.Workloads[0],
				federation.WorkloadReference{APIVersion: "a/b/c", Namespace: "Bad_NS", Name: "Bad_Name"})
			r.Spec.TTLSecondsAfterFinished = ptr.To[int32](-1)
		}, want: []string{
			"FieldValueDuplicate spec.workloads[2]",
			"FieldValueInvalid spec.workloads[3].apiVersion",
			"FieldValueRequired spec.workloads[3].kind",
			"FieldValueInvalid spec.workloads[3].name",
			"FieldValueInvalid spec.workloads[3].namespace",
			"FieldValueInvalid spec.ttlSecondsAfterFinished",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := valid()
			c.mutate(r)
			var got []string
			for _, e := range ValidateWorkloadRebalancer(r) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("errors:\n got  %q\n want %q", got, c.want)
			}
		})
	}
	st := &federation.WorkloadRebalancerStatus{ObservedWorkloads: []federation.ObservedWorkload{{Workload: valid().Spec.Workloads[0], Result: "Maybe"}}}
	if errs := ValidateWorkloadRebalancerStatus(st, field.NewPath("status")); len(errs) != 1 || errs[0].Field != "status.observedWorkloads[0].result" {
		t.Errorf("a status with result Maybe: %v", errs)
	}
}
