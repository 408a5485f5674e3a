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

package scheduler

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// evictionTasks are the graceful eviction tasks for the clusters NoExecute taints took a
// binding from, as its failover.cluster says: with Gracefully (the default) or Never the
// cluster's copy stays until the task is done (see controllers/gracefuleviction); with
// Directly it goes at once and no task is made. While a task is on the binding, its
// cluster is no candidate.
func evictionTasks(spec *federationv1alpha1.ResourceBindingSpec, previous []federationv1alpha1.TargetCluster,
	evicted []Eviction, now metav1.Time) []federationv1alpha1.GracefulEvictionTask {
	mode, grace := federationv1alpha1.PurgeGracefully, ptr.To(federationv1alpha1.DefaultFailoverGracePeriod)
	if f := spec.Failover; f != nil && f.Cluster != nil {
		mode, grace = f.Cluster.PurgeMode, f.Cluster.GracePeriodSeconds
	}
	if mode == federationv1alpha1.PurgeDirectly {
		return nil
	}
	if mode != federationv1alpha1.PurgeGracefully {
		grace = nil
	}
	var out []federationv1alpha1.GracefulEvictionTask
	for _, e := range evicted {
		if slices.ContainsFunc(spec.GracefulEvictionTasks, func(t federationv1alpha1.GracefulEvictionTask) bool { return t.FromCluster == e.Cluster }) {
			continue // already being left (an application failover, say)
		}
		task := federationv1alpha1.GracefulEvictionTask{
			FromCluster:        e.Cluster,
			PurgeMode:          mode,
			Reason:             federationv1alpha1.EvictionReasonTaintUntolerated,
			Message:            fmt.Sprintf("cluster %s has the taint %s, which the placement does not tolerate", e.Cluster, e.Taint.ToString()),
			Producer:           federationv1alpha1.EvictionProducerScheduler,
			GracePeriodSeconds: grace,
			CreationTimestamp:  &now,
		}
		for _, t := range previous {
			if t.Name == e.Cluster && t.Replicas > 0 {
				task.Replicas = ptr.To(t.Replicas)
			}
		}
		out = append(out, task)
	}
	return out
}

// evictionMessage says why a workload left a cluster and what happens to its copy there.
func evictionMessage(e Eviction, tasks []federationv1alpha1.GracefulEvictionTask) string {
	msg := fmt.Sprintf("left %s: the taint %s is not tolerated", e.Cluster, e.Taint.ToString())
	for _, t := range tasks {
		if t.FromCluster != e.Cluster {
			continue
		}
		switch t.PurgeMode {
		case federationv1alpha1.PurgeGracefully:
			return fmt.Sprintf("%s; its copy there stays until the copies elsewhere are healthy, at most %ds", msg, ptr.Deref(t.GracePeriodSeconds, 0))
		case federationv1alpha1.PurgeNever:
			return msg + "; its copy there stays until the eviction task is removed from the binding"
		}
	}
	return msg + "; its copy there is deleted"
}
