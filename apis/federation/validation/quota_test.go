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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

// resources is a resource list written as name, quantity, name, quantity...
func resources(pairs ...string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		list[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return list
}

// validFederatedResourceQuota is the example of testdata, the namespace
// team-a's quota with both assignments adding up to overall's CPU.
func validFederatedResourceQuota() *federation.FederatedResourceQuota {
	return &federation.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "team-a", ResourceVersion: "1"},
		Spec: federation.FederatedResourceQuotaSpec{
			Overall: resources("cpu", "10", "memory", "20Gi", "pods", "50", "example.com/gpu", "4"),
			StaticAssignments: []federation.StaticClusterAssignment{
				{ClusterName: "member1", Hard: resources("cpu", "4", "memory", "8Gi")},
				{ClusterName: "member2", Hard: resources("cpu", "6", "memory", "12Gi", "example.com/gpu", "4")},
			},
		},
	}
}

func TestValidateFederatedResourceQuota(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.FederatedResourceQuota)
		want   []string
		// detail is a part of the first error's message.
		detail string
		// createOnly: the metadata is checked otherwise on update.
		createOnly bool
	}{
		{name: "example", mutate: func(*federation.FederatedResourceQuota) {}},
		{name: "no static assignments", mutate: func(q *federation.FederatedResourceQuota) { q.Spec.StaticAssignments = nil }},
		{name: "the requests. forms, fractions of CPU and memory, zero", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = resources("requests.cpu", "1500m", "requests.memory", "1.5Gi", "requests.ephemeral-storage", "0",
				"ephemeral-storage", "0", "requests.example.com/gpu", "2", "pods", "0")
			q.Spec.StaticAssignments = []federation.StaticClusterAssignment{
				{ClusterName: "member1", Hard: resources("requests.cpu", "1", "requests.example.com/gpu", "1")},
				{ClusterName: "member2", Hard: resources("requests.cpu", "500m", "requests.example.com/gpu", "1", "pods", "0")},
			}
		}, want: []string{"FieldValueInvalid spec.overall[requests.ephemeral-storage]"}, detail: "ephemeral-storage is given too"},
		{name: "no overall", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = nil
			q.Spec.StaticAssignments = nil
		}, want: []string{"FieldValueRequired spec.overall"}},
		{name: "empty overall, assignments not compared with it", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = corev1.ResourceList{}
		}, want: []string{"FieldValueRequired spec.overall"}},
		{name: "what fed does not count", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = resources("cpu", "1", "limits.cpu", "2", "count/deployments.apps", "3", "services", "4",
				"requests.storage", "1Gi", "hugepages-2Mi", "1Gi", "requests.pods", "5", "kubernetes.io/foo", "1", "example.com/-bad", "1",
				"limits.example.com/gpu", "1", "gold.storageclass.storage.k8s.io/requests.storage", "1Gi")
			q.Spec.StaticAssignments = nil
		}, want: []string{"FieldValueNotSupported spec.overall[count/deployments.apps]", "FieldValueNotSupported spec.overall[example.com/-bad]",
			"FieldValueNotSupported spec.overall[gold.storageclass.storage.k8s.io/requests.storage]",
			"FieldValueNotSupported spec.overall[hugepages-2Mi]", "FieldValueNotSupported spec.overall[kubernetes.io/foo]",
			"FieldValueNotSupported spec.overall[limits.cpu]", "FieldValueNotSupported spec.overall[limits.example.com/gpu]",
			"FieldValueNotSupported spec.overall[requests.pods]",
			"FieldValueNotSupported spec.overall[requests.storage]", "FieldValueNotSupported spec.overall[services]"},
			detail: "object counts and limits are not enforced across the fleet"},
		{name: "one resource under both names", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = resources("cpu", "1", "requests.cpu", "1", "memory", "1Gi", "requests.memory", "2Gi",
				"ephemeral-storage", "1Gi", "requests.ephemeral-storage", "1Gi", "example.com/gpu", "1", "requests.example.com/gpu", "1")
			q.Spec.StaticAssignments = nil
		}, want: []string{"FieldValueInvalid spec.overall[requests.cpu]", "FieldValueInvalid spec.overall[requests.ephemeral-storage]",
			"FieldValueInvalid spec.overall[requests.example.com/gpu]", "FieldValueInvalid spec.overall[requests.memory]"},
			detail: "cpu and requests.cpu are the same quota"},
		{name: "negative quantities", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall["memory"] = resource.MustParse("-1Gi")
			q.Spec.StaticAssignments[0].Hard["cpu"] = resource.MustParse("-1")
		}, want: []string{"FieldValueInvalid spec.overall[memory]", "FieldValueInvalid spec.staticAssignments[0].hard[cpu]"},
			detail: "must not be negative"},
		{name: "fractions of pods and of extended resources", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall["pods"] = resource.MustParse("1500m")
			q.Spec.Overall["example.com/gpu"] = resource.MustParse("3.5")
			q.Spec.StaticAssignments[1].Hard["example.com/gpu"] = resource.MustParse("500m")
		}, want: []string{"FieldValueInvalid spec.overall[example.com/gpu]", "FieldValueInvalid spec.overall[pods]",
			"FieldValueInvalid spec.staticAssignments[1].hard[example.com/gpu]"}, detail: "must be an integer"},
		{name: "fractions of requests. extended resources", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.Overall = resources("requests.example.com/gpu", "0.5")
			q.Spec.StaticAssignments = nil
		}, want: []string{"FieldValueInvalid spec.overall[requests.example.com/gpu]"}, detail: "must be an integer"},
		{name: "assignment without a cluster", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[0].ClusterName = ""
		}, want: []string{"FieldValueRequired spec.staticAssignments[0].clusterName"}},
		{name: "assignment of an invalid cluster name", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[0].ClusterName = "Member_1"
		}, want: []string{"FieldValueInvalid spec.staticAssignments[0].clusterName"}},
		{name: "two assignments of one cluster", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[1].ClusterName = "member1"
		}, want: []string{"FieldValueDuplicate spec.staticAssignments[1].clusterName"}},
		{name: "assignment without hard", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[0].Hard = nil
			q.Spec.StaticAssignments[1].Hard = corev1.ResourceList{}
		}, want: []string{"FieldValueRequired spec.staticAssignments[0].hard", "FieldValueRequired spec.staticAssignments[1].hard"}},
		{name: "assigned resources not in overall", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[0].Hard["ephemeral-storage"] = resource.MustParse("1Gi")
			q.Spec.StaticAssignments[0].Hard["requests.memory"] = resource.MustParse("1Gi")
			delete(q.Spec.StaticAssignments[0].Hard, "memory")
		}, want: []string{"FieldValueInvalid spec.staticAssignments[0].hard[ephemeral-storage]",
			"FieldValueInvalid spec.staticAssignments[0].hard[requests.memory]"}, detail: "not in spec.overall"},
		{name: "assigned resources fed does not count", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[0].Hard["limits.cpu"] = resource.MustParse("1")
		}, want: []string{"FieldValueNotSupported spec.staticAssignments[0].hard[limits.cpu]"}},
		{name: "assignments above overall", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments[1].Hard["cpu"] = resource.MustParse("6001m")
			q.Spec.StaticAssignments[0].Hard["example.com/gpu"] = resource.MustParse("1")
		}, want: []string{"FieldValueInvalid spec.staticAssignments", "FieldValueInvalid spec.staticAssignments"},
			detail: "the static assignments of cpu add up to 10001m, more than spec.overall's 10"},
		{name: "one assignment above overall", mutate: func(q *federation.FederatedResourceQuota) {
			q.Spec.StaticAssignments = q.Spec.StaticAssignments[:1]
			q.Spec.StaticAssignments[0].Hard["memory"] = resource.MustParse("21Gi")
		}, want: []string{"FieldValueInvalid spec.staticAssignments"}, detail: "memory add up to 21Gi, more than spec.overall's 20Gi"},
		{name: "name", mutate: func(q *federation.FederatedResourceQuota) { q.Name = "Team_A" },
			want: []string{"FieldValueInvalid metadata.name"}, createOnly: true},
		{name: "namespaced", mutate: func(q *federation.FederatedResourceQuota) { q.Namespace = "" },
			want: []string{"FieldValueRequired metadata.namespace"}, createOnly: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := validFederatedResourceQuota()
			tc.mutate(q)
			errs := ValidateFederatedResourceQuota(q)
			expectErrors(t, errs, tc.want)
			if !tc.createOnly {
				expectErrors(t, ValidateFederatedResourceQuotaUpdate(q, validFederatedResourceQuota()), tc.want)
			}
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("first error %q does not say %q", errs[0].Error(), tc.detail)
			}
		})
	}
}

func TestValidateFederatedResourceQuotaUpdate(t *testing.T) {
	// Lowering overall below the assignments is refused as on create; moving
	// the quota to another namespace is refused as for any object.
	q := validFederatedResourceQuota()
	q.Spec.Overall["cpu"] = resource.MustParse("9")
	q.Namespace = "team-b"
	expectErrors(t, ValidateFederatedResourceQuotaUpdate(q, validFederatedResourceQuota()),
		[]string{"FieldValueInvalid metadata.namespace", "FieldValueInvalid spec.staticAssignments"})
}

func TestValidateFederatedResourceQuotaStatusUpdate(t *testing.T) {
	at := metav1.Date(2026, 1, 3, 9, 0, 0, 0, time.UTC)
	valid := func() *federation.FederatedResourceQuota {
		q := validFederatedResourceQuota()
		q.Status = federation.FederatedResourceQuotaStatus{
			Overall:     resources("cpu", "10", "memory", "20Gi", "pods", "50", "example.com/gpu", "4"),
			OverallUsed: resources("cpu", "2500m", "memory", "3Gi", "pods", "5", "example.com/gpu", "0"),
			AggregatedStatus: []federation.ClusterQuotaStatus{
				{ClusterName: "member1", Hard: resources("cpu", "4", "memory", "8Gi"), Used: resources("cpu", "1", "memory", "1Gi")},
				{ClusterName: "member2", Hard: resources("cpu", "6", "memory", "12Gi", "example.com/gpu", "4")},
			},
			Conditions:         []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Enforced", LastTransitionTime: at}},
			ObservedGeneration: 1,
		}
		return q
	}
	tests := []struct {
		name   string
		mutate func(*federation.FederatedResourceQuota)
		want   []string
		detail string
	}{
		{name: "valid", mutate: func(*federation.FederatedResourceQuota) {}},
		{name: "empty", mutate: func(q *federation.FederatedResourceQuota) { q.Status = federation.FederatedResourceQuotaStatus{} }},
		{name: "a spec the status write leaves alone", mutate: func(q *federation.FederatedResourceQuota) { q.Spec.Overall = nil }},
		{name: "used above overall, as after overall is lowered", mutate: func(q *federation.FederatedResourceQuota) {
			q.Status.OverallUsed["cpu"] = resource.MustParse("12")
		}},
		{name: "what fed does not count", mutate: func(q *federation.FederatedResourceQuota) {
			q.Status.Overall["limits.memory"] = resource.MustParse("1Gi")
			q.Status.OverallUsed["count/pods"] = resource.MustParse("1")
			q.Status.AggregatedStatus[0].Hard["services"] = resource.MustParse("1")
			q.Status.AggregatedStatus[0].Used["requests.storage"] = resource.MustParse("1Gi")
		}, want: []string{"FieldValueNotSupported status.overall[limits.memory]", "FieldValueNotSupported status.overallUsed[count/pods]",
			"FieldValueNotSupported status.aggregatedStatus[0].hard[services]", "FieldValueNotSupported status.aggregatedStatus[0].used[requests.storage]"},
			detail: "fed counts what replicas request across the fleet"},
		{name: "one resource under both names", mutate: func(q *federation.FederatedResourceQuota) {
			q.Status.Overall["requests.memory"] = resource.MustParse("20Gi")
			q.Status.AggregatedStatus[1].Used = resources("requests.cpu", "1", "cpu", "1")
		}, want: []string{"FieldValueInvalid status.overall[requests.memory]", "FieldValueInvalid status.aggregatedStatus[1].used[requests.cpu]"}},
		{name: "negative quantities and fractions of pods", mutate: func(q *federation.FederatedResourceQuota) {
			q.Status.Overall["cpu"] = resource.MustParse("-1")
			q.Status.OverallUsed["pods"] = resource.MustParse("0.5")
			q.Status.AggregatedStatus[0].Hard["memory"] = resource.MustParse("-8Gi")
			q.Status.AggregatedStatus[1].Used = resources("example.com/gpu", "-1")
		}, want: []string{"FieldValueInvalid status.overall[cpu]", "FieldValueInvalid status.overallUsed[pods]",
			"FieldValueInvalid status.aggregatedStatus[0].hard[memory]", "FieldValueInvalid status.aggregatedStatus[1].used[example.com/gpu]"}},
		{name: "clusters", mutate: func(q *federation.FederatedResourceQuota) {
			q.Status.AggregatedStatus = append(q.Status.AggregatedStatus,
				federation.ClusterQuotaStatus{}, federation.ClusterQuotaStatus{ClusterName: "Member_3"}, federation.ClusterQuotaStatus{ClusterName: "member1"})
		}, want: []string{"FieldValueRequired status.aggregatedStatus[2].clusterName", "FieldValueInvalid status.aggregatedStatus[3].clusterName",
			"FieldValueDuplicate status.aggregatedStatus[4].clusterName"}},
		{name: "condition", mutate: func(q *federation.FederatedResourceQuota) { q.Status.Conditions[0].Reason = "not a reason" },
			want: []string{"FieldValueInvalid status.conditions[0].reason"}},
		{name: "observed generation", mutate: func(q *federation.FederatedResourceQuota) { q.Status.ObservedGeneration = -1 },
			want: []string{"FieldValueInvalid status.observedGeneration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := valid()
			tc.mutate(q)
			errs := ValidateFederatedResourceQuotaStatusUpdate(q, validFederatedResourceQuota())
			expectErrors(t, errs, tc.want)
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("first error %q does not say %q", errs[0].Error(), tc.detail)
			}
		})
	}
}
