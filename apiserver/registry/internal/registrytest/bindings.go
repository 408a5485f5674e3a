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

package registrytest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

func bindingSpec(apiVersion, kind, namespace string) federation.ResourceBindingSpec {
	return federation.ResourceBindingSpec{
		Resource:           federation.ObjectReference{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: "nginx"},
		Replicas:           3,
		ConflictResolution: federation.ConflictAbort,
		SchedulerName:      "default-scheduler",
	}
}

// bindingCase is the test case of a binding, namespaced or not, whose spec
// and status parts returns.
func bindingCase[T registrykit.Object](valid func() T,
	parts func(T) (*federation.ResourceBindingSpec, *federation.ResourceBindingStatus)) Case[T] {
	spec := func(b T) *federation.ResourceBindingSpec { s, _ := parts(b); return s }
	status := func(b T) *federation.ResourceBindingStatus { _, s := parts(b); return s }
	return Case[T]{
		Valid: valid,
		ChangeSpec: func(b T) {
			spec(b).Clusters = []federation.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}}
		},
		ChangeStatus: func(b T) {
			status(b).SchedulerObservedGeneration = 2
			status(b).Conditions = []metav1.Condition{condition(federation.BindingConditionScheduled, metav1.ConditionTrue)}
			status(b).AggregatedStatus = []federation.AggregatedStatusItem{{ClusterName: "member1", Applied: true, Health: federation.ResourceHealthy}}
		},
		BreakSpec:         func(b T) { spec(b).Resource.Kind = "" },
		BrokenSpecField:   "spec.resource.kind",
		BreakStatus:       func(b T) { status(b).AggregatedStatus[0].Health = "Fine" },
		BrokenStatusField: "status.aggregatedStatus[0].health",
		Columns:           []string{"Name", "Scheduled", "FullyApplied", "Age", "Resource-Kind", "Resource-Name", "Clusters"},
		Row: map[string]any{"Name": Name, "Scheduled": "True", "FullyApplied": "Unknown",
			"Resource-Kind": spec(valid()).Resource.Kind, "Resource-Name": "nginx", "Clusters": "member1,member2"},
	}
}

// ResourceBinding is the test case of resourcebindings.
func ResourceBinding() Case[*federation.ResourceBinding] {
	return bindingCase(func() *federation.ResourceBinding {
		return &federation.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
			Spec: bindingSpec("apps/v1", "Deployment", Namespace)}
	}, func(b *federation.ResourceBinding) (*federation.ResourceBindingSpec, *federation.ResourceBindingStatus) {
		return &b.Spec, &b.Status
	})
}

// ClusterResourceBinding is the test case of clusterresourcebindings.
func ClusterResourceBinding() Case[*federation.ClusterResourceBinding] {
	return bindingCase(func() *federation.ClusterResourceBinding {
		return &federation.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: Name},
			Spec: bindingSpec("rbac.authorization.k8s.io/v1", "ClusterRole", "")}
	}, func(b *federation.ClusterResourceBinding) (*federation.ResourceBindingSpec, *federation.ResourceBindingStatus) {
		return &b.Spec, &b.Status
	})
}
