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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// aggregator computes a kind's fleet-wide status, as a typed status to be converted.
type aggregator func(a aggregation) any

// aggregation is what an aggregator computes from.
type aggregation struct {
	template *unstructured.Unstructured
	// items are the clusters' statuses, in order of cluster name.
	items []federationv1alpha1.AggregatedStatusItem
	// perCluster is true when every cluster runs all the template's replicas (Duplicated)
	// rather than a share (Divided).
	perCluster bool
}

var aggregators = map[schema.GroupKind]aggregator{
	deploymentKind:  aggregateDeployment,
	statefulSetKind: aggregateStatefulSet,
	daemonSetKind:   aggregateDaemonSet,
	replicaSetKind:  aggregateReplicaSet,
	pdbKind:         aggregatePDB,
	serviceKind:     func(a aggregation) any { return aggregateService(a.template, a.items) },
	jobKind:         func(a aggregation) any { return aggregateJob(a.template, a.items) },
	podKind:         func(a aggregation) any { return aggregatePod(a.template, a.items) },
}

// AggregateStatus is the fleet-wide status of a template, computed from the statuses
// its copies report in each cluster, so that readiness tools (kubectl rollout status and
// wait, Helm, kstatus, Argo CD) read it as they read one cluster's:
//
//   - Deployment, StatefulSet, DaemonSet, ReplicaSet and PodDisruptionBudget: their
//     replica (or pod) counts, summed over the clusters when they divide the replicas, and
//     when each runs all of them (perCluster), the smallest of the clusters' (so that the
//     template never claims more than every member has); a cluster that reports nothing
//     counts 0. observedGeneration is the template's generation once every cluster applied
//     it and every member's controller observed that generation (ReflectStatus), and absent
//     before. A Deployment's conditions: Available when every cluster's copy is,
//     Progressing with the first cluster's reason that is not done (ProgressDeadlineExceeded
//     first), ReplicaFailure when a cluster has one, each message naming the cluster. A
//     PodDisruptionBudget's DisruptionAllowed is True when every cluster's is.
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
func AggregateStatus(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem, perCluster bool) (status map[string]any, ok bool) {
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
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(aggregate(aggregation{template: template, items: sorted, perCluster: perCluster}))
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

// observedGeneration is the template's generation when every cluster applied it and
// reports (in its reflected status) that its controller observed that generation. Before,
// it is the generation before it: readiness tools (kstatus, kubectl rollout status) then
// wait, where an absent field would let kstatus read counters left from the last rollout.
// With no cluster, or for a first generation, it is 0 (left out): nothing older exists.
func observedGeneration[T any](a aggregation, ms []member[T], observed func(T) int64) int64 {
	gen := a.template.GetGeneration()
	if len(a.items) == 0 {
		return 0
	}
	current := len(ms) == len(a.items)
	for _, it := range a.items {
		current = current && it.Applied
	}
	for _, m := range ms {
		current = current && observed(m.status) == gen
	}
	if current {
		return gen
	}
	return max(gen-1, 0)
}

// counts adds up the members' counters: fields picks a status's counters, in a fixed
// order; the result has them in the same order.
func counts[T any](a aggregation, ms []member[T], fields func(*T) []*int32) []int32 {
	var zero T
	out := make([]int32, len(fields(&zero)))
	if a.perCluster && len(ms) < len(a.items) {
		return out // a cluster that reports nothing has none
	}
	for i, m := range ms {
		for j, f := range fields(&m.status) {
			switch {
			case !a.perCluster:
				out[j] += *f
			case i == 0 || *f < out[j]:
				out[j] = *f
			}
		}
	}
	return out
}

// set stores counts into the fields of out.
func set[T any](out *T, fields func(*T) []*int32, values []int32) {
	for i, f := range fields(out) {
		*f = values[i]
	}
}

func deploymentCounters(s *appsv1.DeploymentStatus) []*int32 {
	return []*int32{&s.Replicas, &s.UpdatedReplicas, &s.ReadyReplicas, &s.AvailableReplicas, &s.UnavailableReplicas}
}

func aggregateDeployment(a aggregation) any {
	ms := decodeStatuses[appsv1.DeploymentStatus](a.items)
	out := &appsv1.DeploymentStatus{ObservedGeneration: observedGeneration(a, ms, func(s appsv1.DeploymentStatus) int64 { return s.ObservedGeneration })}
	set(out, deploymentCounters, counts(a, ms, deploymentCounters))
	out.Conditions = deploymentConditions(a.items, ms)
	return out
}

// deploymentConditions are the template's Available, Progressing and ReplicaFailure
// conditions from its copies'.
func deploymentConditions(items []federationv1alpha1.AggregatedStatusItem, ms []member[appsv1.DeploymentStatus]) []appsv1.DeploymentCondition {
	if len(items) == 0 {
		return nil
	}
	byCluster := map[string]appsv1.DeploymentStatus{}
	for _, m := range ms {
		byCluster[m.cluster] = m.status
	}
	// latest keeps the condition's times those of the newest change in a cluster, so that
	// an unchanged fleet gives the same condition.
	latest := func(c *appsv1.DeploymentCondition, from *appsv1.DeploymentCondition) {
		if from == nil {
			return
		}
		if from.LastTransitionTime.After(c.LastTransitionTime.Time) {
			c.LastTransitionTime = from.LastTransitionTime
		}
		if from.LastUpdateTime.After(c.LastUpdateTime.Time) {
			c.LastUpdateTime = from.LastUpdateTime
		}
	}

	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability in every cluster."}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		Reason: "NewReplicaSetAvailable", Message: "every cluster has completed its rollout."}
	var failure *appsv1.DeploymentCondition
	progressingSet := false
	for _, it := range items {
		s, reported := byCluster[it.ClusterName]
		av := deploymentCondition(s, appsv1.DeploymentAvailable)
		pr := deploymentCondition(s, appsv1.DeploymentProgressing)
		rf := deploymentCondition(s, appsv1.DeploymentReplicaFailure)
		latest(&available, av)
		latest(&progressing, pr)
		if available.Status == corev1.ConditionTrue && (av == nil || av.Status != corev1.ConditionTrue) {
			available.Status, available.Reason = corev1.ConditionFalse, "MinimumReplicasUnavailable"
			available.Message = "cluster " + it.ClusterName + ": Deployment does not have minimum availability."
			if !reported {
				available.Reason, available.Message = "NotReported", "cluster "+it.ClusterName+" has not reported the Deployment's status yet."
			} else if av != nil {
				available.Reason, available.Message = av.Reason, "cluster "+it.ClusterName+": "+av.Message
			}
		}
		switch {
		case pr != nil && pr.Status == corev1.ConditionFalse && pr.Reason == "ProgressDeadlineExceeded":
			progressing.Status, progressing.Reason, progressing.Message = corev1.ConditionFalse, pr.Reason, "cluster "+it.ClusterName+": "+pr.Message
			progressingSet = true
		case progressingSet:
		case pr == nil || pr.Reason != "NewReplicaSetAvailable":
			progressing.Reason, progressing.Message = "ReplicaSetUpdated", "cluster "+it.ClusterName+" is rolling out the Deployment."
			if pr != nil {
				progressing.Reason, progressing.Message = pr.Reason, "cluster "+it.ClusterName+": "+pr.Message
			}
			progressingSet = true
		}
		if rf != nil && rf.Status == corev1.ConditionTrue && failure == nil {
			c := *rf
			c.Message = "cluster " + it.ClusterName + ": " + rf.Message
			failure = &c
		}
	}
	out := []appsv1.DeploymentCondition{available, progressing}
	if failure != nil {
		out = append(out, *failure)
	}
	return out
}

func statefulSetCounters(s *appsv1.StatefulSetStatus) []*int32 {
	return []*int32{&s.Replicas, &s.ReadyReplicas, &s.CurrentReplicas, &s.UpdatedReplicas, &s.AvailableReplicas}
}

func aggregateStatefulSet(a aggregation) any {
	ms := decodeStatuses[appsv1.StatefulSetStatus](a.items)
	out := &appsv1.StatefulSetStatus{ObservedGeneration: observedGeneration(a, ms, func(s appsv1.StatefulSetStatus) int64 { return s.ObservedGeneration })}
	set(out, statefulSetCounters, counts(a, ms, statefulSetCounters))
	return out
}

func daemonSetCounters(s *appsv1.DaemonSetStatus) []*int32 {
	return []*int32{&s.CurrentNumberScheduled, &s.NumberMisscheduled, &s.DesiredNumberScheduled, &s.NumberReady,
		&s.UpdatedNumberScheduled, &s.NumberAvailable, &s.NumberUnavailable}
}

// aggregateDaemonSet sums a DaemonSet's counts: every cluster runs its own pods per node,
// so they add up whatever the placement says of replicas.
func aggregateDaemonSet(a aggregation) any {
	ms := decodeStatuses[appsv1.DaemonSetStatus](a.items)
	out := &appsv1.DaemonSetStatus{ObservedGeneration: observedGeneration(a, ms, func(s appsv1.DaemonSetStatus) int64 { return s.ObservedGeneration })}
	a.perCluster = false
	set(out, daemonSetCounters, counts(a, ms, daemonSetCounters))
	return out
}

func replicaSetCounters(s *appsv1.ReplicaSetStatus) []*int32 {
	return []*int32{&s.Replicas, &s.FullyLabeledReplicas, &s.ReadyReplicas, &s.AvailableReplicas}
}

func aggregateReplicaSet(a aggregation) any {
	ms := decodeStatuses[appsv1.ReplicaSetStatus](a.items)
	out := &appsv1.ReplicaSetStatus{ObservedGeneration: observedGeneration(a, ms, func(s appsv1.ReplicaSetStatus) int64 { return s.ObservedGeneration })}
	set(out, replicaSetCounters, counts(a, ms, replicaSetCounters))
	return out
}

func pdbCounters(s *policyv1.PodDisruptionBudgetStatus) []*int32 {
	return []*int32{&s.CurrentHealthy, &s.DesiredHealthy, &s.ExpectedPods, &s.DisruptionsAllowed}
}

// aggregatePDB sums a PodDisruptionBudget's counts (each cluster has its own budget over
// its own pods) and allows disruptions when every cluster does.
func aggregatePDB(a aggregation) any {
	ms := decodeStatuses[policyv1.PodDisruptionBudgetStatus](a.items)
	out := &policyv1.PodDisruptionBudgetStatus{ObservedGeneration: observedGeneration(a, ms, func(s policyv1.PodDisruptionBudgetStatus) int64 { return s.ObservedGeneration })}
	a.perCluster = false
	set(out, pdbCounters, counts(a, ms, pdbCounters))
	if len(a.items) == 0 {
		return out
	}
	allowed := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue,
		Reason: policyv1.SufficientPodsReason, Message: "every cluster allows disruptions"}
	byCluster := map[string]policyv1.PodDisruptionBudgetStatus{}
	for _, m := range ms {
		byCluster[m.cluster] = m.status
	}
	for _, it := range a.items {
		c := meta.FindStatusCondition(byCluster[it.ClusterName].Conditions, policyv1.DisruptionAllowedCondition)
		if c != nil && c.LastTransitionTime.After(allowed.LastTransitionTime.Time) {
			allowed.LastTransitionTime = c.LastTransitionTime
		}
		if allowed.Status == metav1.ConditionTrue && (c == nil || c.Status != metav1.ConditionTrue) {
			allowed.Status, allowed.Reason, allowed.Message = metav1.ConditionFalse, policyv1.InsufficientPodsReason, "cluster "+it.ClusterName+" allows no disruption"
			if c != nil {
				allowed.Reason, allowed.Message = c.Reason, "cluster "+it.ClusterName+": "+c.Message
			}
		}
	}
	allowed.ObservedGeneration = out.ObservedGeneration
	out.Conditions = []metav1.Condition{allowed}
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

// Refused makes the fleet-wide status of a Deployment template say that clusters refused
// its change (refusals: "cluster X: why", in cluster order): Progressing False with reason
// ProgressDeadlineExceeded, the shape of a rollout that failed in one cluster, which kubectl
// rollout status and wait, Helm and kstatus read as a failure instead of waiting it out. A
// refused change never reaches a member, so no member's own condition would ever say so.
// observedGeneration becomes the template's: fed observed the change, and readers look at
// Progressing only once it has been observed. Other kinds are left as they are: their
// readiness is read from observedGeneration, which a refused change keeps behind.
func Refused(template *unstructured.Unstructured, status map[string]any, refusals []string) {
	if len(refusals) == 0 || status == nil || template.GroupVersionKind().GroupKind() != deploymentKind {
		return
	}
	conditions, _, _ := unstructured.NestedSlice(status, "conditions")
	out := make([]any, 0, len(conditions)+1)
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == string(appsv1.DeploymentProgressing) {
			continue
		}
		out = append(out, c)
	}
	out = append(out, map[string]any{
		"type": string(appsv1.DeploymentProgressing), "status": string(corev1.ConditionFalse), "reason": "ProgressDeadlineExceeded",
		"message": "the template's change was refused: " + strings.Join(refusals, "; "),
	})
	status["conditions"] = out
	status["observedGeneration"] = template.GetGeneration()
}

// deploymentCondition is the condition of a type in a Deployment's status, if it has one.
// (kubectl's deploymentutil has the same loop, but would link cli-runtime and kustomize
// into fed-agent, which reads status through this package.)
func deploymentCondition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}
