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
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Reasons of the conditions AggregateStatus writes.
const (
	ReasonCompletedInAllClusters = "CompletedInAllClusters"
	ReasonFailedInCluster        = "FailedInCluster"
	ReasonNotReadyInCluster      = "NotReadyInCluster"
)

func aggregateJob(_ *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &batchv1.JobStatus{}
	members := decodeStatuses[batchv1.JobStatus](items)
	allComplete := len(items) > 0 && len(members) == len(items)
	var ready *int32
	var completed, failed *batchv1.JobCondition
	var completionTime *metav1.Time
	var failures []string
	for _, m := range members {
		s := m.status
		out.Active += s.Active
		out.Succeeded += s.Succeeded
		out.Failed += s.Failed
		if s.Ready != nil {
			ready = addInt32(ready, *s.Ready)
		}
		if s.StartTime != nil && (out.StartTime == nil || s.StartTime.Before(out.StartTime)) {
			out.StartTime = s.StartTime
		}
		if c := trueJobCondition(s, batchv1.JobComplete); c != nil {
			if completed == nil || completed.LastTransitionTime.Before(&c.LastTransitionTime) {
				completed = c
			}
			if s.CompletionTime != nil && (completionTime == nil || completionTime.Before(s.CompletionTime)) {
				completionTime = s.CompletionTime
			}
		} else {
			allComplete = false
		}
		if c := trueJobCondition(s, batchv1.JobFailed); c != nil {
			failures = append(failures, fmt.Sprintf("cluster %s: %s", m.cluster, cmp.Or(c.Message, c.Reason)))
			if failed == nil || c.LastTransitionTime.Before(&failed.LastTransitionTime) {
				failed = c
			}
		}
	}
	out.Ready = ready
	if allComplete {
		out.CompletionTime = completionTime
		out.Conditions = append(out.Conditions, batchv1.JobCondition{
			Type:               batchv1.JobComplete,
			Status:             corev1.ConditionTrue,
			LastProbeTime:      completed.LastTransitionTime,
			LastTransitionTime: completed.LastTransitionTime,
			Reason:             ReasonCompletedInAllClusters,
			Message:            fmt.Sprintf("Job completed in all %d clusters", len(items)),
		})
	}
	if failed != nil {
		out.Conditions = append(out.Conditions, batchv1.JobCondition{
			Type:               batchv1.JobFailed,
			Status:             corev1.ConditionTrue,
			LastProbeTime:      failed.LastTransitionTime,
			LastTransitionTime: failed.LastTransitionTime,
			Reason:             ReasonFailedInCluster,
			Message:            "Job failed in " + strings.Join(failures, "; "),
		})
	}
	return out
}

func addInt32(sum *int32, n int32) *int32 {
	total := n
	if sum != nil {
		total += *sum
	}
	return &total
}

// trueJobCondition is the condition of the given type when it is True, or nil.
func trueJobCondition(s batchv1.JobStatus, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range s.Conditions {
		if c := &s.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// phaseBadness orders pod phases from best to worst.
var phaseBadness = map[corev1.PodPhase]int{
	corev1.PodSucceeded: 0,
	corev1.PodRunning:   1,
	corev1.PodPending:   2,
	corev1.PodUnknown:   3,
	corev1.PodFailed:    4,
}

func aggregatePod(_ *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem) any {
	out := &corev1.PodStatus{}
	if len(items) == 0 {
		return out
	}
	phases := map[string]corev1.PodPhase{}
	ready := map[string]bool{}
	var lastTransition metav1.Time
	for _, m := range decodeStatuses[corev1.PodStatus](items) {
		phases[m.cluster] = m.status.Phase
		for _, c := range m.status.Conditions {
			if c.Type != corev1.PodReady {
				continue
			}
			ready[m.cluster] = c.Status == corev1.ConditionTrue
			if lastTransition.Before(&c.LastTransitionTime) {
				lastTransition = c.LastTransitionTime
			}
		}
	}
	out.Phase = corev1.PodSucceeded
	var notReady []string
	for _, it := range items {
		phase := phases[it.ClusterName]
		if _, known := phaseBadness[phase]; !known {
			phase = corev1.PodPending // no status, no phase, or one this code does not know
		}
		if phaseBadness[phase] > phaseBadness[out.Phase] {
			out.Phase = phase
		}
		if !ready[it.ClusterName] {
			notReady = append(notReady, it.ClusterName)
		}
	}
	cond := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: lastTransition}
	if len(notReady) > 0 {
		cond.Status = corev1.ConditionFalse
		cond.Reason = ReasonNotReadyInCluster
		cond.Message = "Pod is not ready in " + strings.Join(notReady, ", ")
	}
	out.Conditions = []corev1.PodCondition{cond}
	return out
}
