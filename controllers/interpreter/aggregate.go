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

package interpreter

import (
	"cmp"
	"encoding/json"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// aggregator computes a kind's fleet-wide status, as a typed status to be converted.
type aggregator func(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any

var aggregators = map[schema.GroupKind]aggregator{
	deploymentKind:  aggregateDeployment,
	statefulSetKind: aggregateStatefulSet,
	daemonSetKind:   aggregateDaemonSet,
	replicaSetKind:  aggregateReplicaSet,
	pdbKind:         aggregatePDB,
	serviceKind:     aggregateService,
	jobKind:         aggregateJob,
	podKind:         aggregatePod,
}

// AggregateStatus is the fleet-wide status of a template, computed from the statuses
// its copies report in each cluster:
//
//   - Deployment, StatefulSet, DaemonSet, ReplicaSet and PodDisruptionBudget: the sums
//     of their replica (or pod) counts. observedGeneration is the template's generation
//     once every cluster applied the template, and absent before: members count their
//     own generations, so theirs cannot be compared with the template's. Conditions are
//     left out.
//   - Job: the sums of active, succeeded, failed and ready pods; the earliest startTime;
//     the latest completionTime and a Complete condition once every cluster completed;
//     a Failed condition once any cluster failed.
//   - Service: the load balancer ingress points of all clusters, without duplicates.
//   - Pod: the worst phase of all clusters (Failed, then Unknown, Pending, Running,
//     Succeeded; a cluster that reports no phase counts as Pending) and a Ready
//     condition that is True only when the pod is ready in every cluster.
//
// A cluster whose status is missing or cannot be decoded counts as reporting nothing.
// ok is false for other kinds: their status stays per cluster, in the binding.
func AggregateStatus(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) (status map[string]any, ok bool) {
	if template == nil {
		return nil, false
	}
	aggregate, ok := aggregators[template.GroupVersionKind().GroupKind()]
	if !ok {
		return nil, false
	}
	// Cluster order decides the order of lists and messages; sorting keeps the result
	// stable, so an unchanged fleet does not rewrite the template.
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b federationv1alpha1.AggregatedStatusItem) int {
		return cmp.Compare(a.ClusterName, b.ClusterName)
	})
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(aggregate(template, sorted))
	if err != nil {
		return nil, false
	}
	return status, true
}

// member is the decoded status of one cluster.
type member[T any] struct {
	cluster string
	status  T
}

// decodeStatuses decodes the statuses of the clusters, leaving out those with none or
// with one that does not decode.
func decodeStatuses[T any](items []federationv1alpha1.AggregatedStatusItem) []member[T] {
	var out []member[T]
	for _, it := range items {
		if it.Status == nil || len(it.Status.Raw) == 0 {
			continue
		}
		var s T
		if err := json.Unmarshal(it.Status.Raw, &s); err != nil {
			continue
		}
		out = append(out, member[T]{cluster: it.ClusterName, status: s})
	}
	return out
}

// observedGeneration is the template's generation when every cluster applied it, and
// 0 (left out) otherwise.
func observedGeneration(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) int64 {
	if len(items) == 0 {
		return 0
	}
	for _, it := range items {
		if !it.Applied {
			return 0
		}
	}
	return template.GetGeneration()
}

func aggregateDeployment(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &appsv1.DeploymentStatus{ObservedGeneration: observedGeneration(template, items)}
	for _, m := range decodeStatuses[appsv1.DeploymentStatus](items) {
		out.Replicas += m.status.Replicas
		out.UpdatedReplicas += m.status.UpdatedReplicas
		out.ReadyReplicas += m.status.ReadyReplicas
		out.AvailableReplicas += m.status.AvailableReplicas
		out.UnavailableReplicas += m.status.UnavailableReplicas
	}
	return out
}

func aggregateStatefulSet(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &appsv1.StatefulSetStatus{ObservedGeneration: observedGeneration(template, items)}
	for _, m := range decodeStatuses[appsv1.StatefulSetStatus](items) {
		out.Replicas += m.status.Replicas
		out.ReadyReplicas += m.status.ReadyReplicas
		out.CurrentReplicas += m.status.CurrentReplicas
		out.UpdatedReplicas += m.status.UpdatedReplicas
		out.AvailableReplicas += m.status.AvailableReplicas
	}
	return out
}

func aggregateDaemonSet(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &appsv1.DaemonSetStatus{ObservedGeneration: observedGeneration(template, items)}
	for _, m := range decodeStatuses[appsv1.DaemonSetStatus](items) {
		out.CurrentNumberScheduled += m.status.CurrentNumberScheduled
		out.NumberMisscheduled += m.status.NumberMisscheduled
		out.DesiredNumberScheduled += m.status.DesiredNumberScheduled
		out.NumberReady += m.status.NumberReady
		out.UpdatedNumberScheduled += m.status.UpdatedNumberScheduled
		out.NumberAvailable += m.status.NumberAvailable
		out.NumberUnavailable += m.status.NumberUnavailable
	}
	return out
}

func aggregateReplicaSet(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &appsv1.ReplicaSetStatus{ObservedGeneration: observedGeneration(template, items)}
	for _, m := range decodeStatuses[appsv1.ReplicaSetStatus](items) {
		out.Replicas += m.status.Replicas
		out.FullyLabeledReplicas += m.status.FullyLabeledReplicas
		out.ReadyReplicas += m.status.ReadyReplicas
		out.AvailableReplicas += m.status.AvailableReplicas
	}
	return out
}

func aggregatePDB(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &policyv1.PodDisruptionBudgetStatus{ObservedGeneration: observedGeneration(template, items)}
	for _, m := range decodeStatuses[policyv1.PodDisruptionBudgetStatus](items) {
		out.CurrentHealthy += m.status.CurrentHealthy
		out.DesiredHealthy += m.status.DesiredHealthy
		out.ExpectedPods += m.status.ExpectedPods
		out.DisruptionsAllowed += m.status.DisruptionsAllowed
	}
	return out
}

func aggregateService(_ *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &corev1.ServiceStatus{}
	for _, m := range decodeStatuses[corev1.ServiceStatus](items) {
		for _, ing := range m.status.LoadBalancer.Ingress {
			seen := slices.ContainsFunc(out.LoadBalancer.Ingress, func(x corev1.LoadBalancerIngress) bool {
				return apiequality.Semantic.DeepEqual(x, ing)
			})
			if !seen {
				out.LoadBalancer.Ingress = append(out.LoadBalancer.Ingress, ing)
			}
		}
	}
	return out
}
