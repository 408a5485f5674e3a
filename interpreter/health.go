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
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

const (
	healthy   = federationv1alpha1.ResourceHealthy
	unhealthy = federationv1alpha1.ResourceUnhealthy
	unknown   = federationv1alpha1.ResourceUnknown
)

// healthRules are the health checks of the kinds with one.
var healthRules = map[schema.GroupKind]func(*unstructured.Unstructured) federationv1alpha1.ResourceHealth{
	deploymentKind:  typed(deploymentHealth),
	statefulSetKind: typed(statefulSetHealth),
	daemonSetKind:   typed(daemonSetHealth),
	replicaSetKind:  typed(replicaSetHealth),
	jobKind:         typed(jobHealth),
	podKind:         typed(podHealth),
	serviceKind:     typed(serviceHealth),
	ingressKind:     typed(ingressHealth),
	pdbKind:         typed(pdbHealth),
	pvcKind:         typed(pvcHealth),
	namespaceKind:   typed(namespaceHealth),
	crdKind:         crdHealth,
}

// existenceKinds are healthy as soon as they exist: they are configuration that a
// member uses as it is, with no status that could say otherwise. A CronJob is one too:
// the Jobs it starts carry their own health.
var existenceKinds = map[schema.GroupKind]bool{
	{Kind: "ConfigMap"}:      true,
	{Kind: "Secret"}:         true,
	{Kind: "ServiceAccount"}: true,
	{Kind: "LimitRange"}:     true,
	{Kind: "ResourceQuota"}:  true,
	cronJobKind:              true,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               true,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: true,
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:              true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:              true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                  true,
}

// Health is the health of an object in a member cluster:
//
//   - Deployment: its controller observed the current generation, and the updated,
//     available and total replicas all equal spec.replicas (1 when unset); Unhealthy as
//     well once its Progressing condition says ProgressDeadlineExceeded.
//   - StatefulSet: observed generation, ready replicas equal spec.replicas and, for the
//     RollingUpdate strategy, every replica above the partition is updated.
//   - DaemonSet: observed generation, every desired pod available and, unless the
//     strategy is OnDelete, updated.
//   - ReplicaSet: observed generation, available replicas equal spec.replicas and no
//     ReplicaFailure condition.
//   - Job: Unhealthy once its Failed or FailureTarget condition is True, Healthy while
//     it runs, is suspended or completed.
//   - Pod: Healthy when Succeeded, or Running with a True Ready condition; Unknown in
//     phase Unknown; Unhealthy otherwise (Pending, Failed, Running but not ready).
//   - Service: a LoadBalancer needs an ingress point in status.loadBalancer; other
//     types are Healthy.
//   - Ingress: Healthy once it has an ingress point, Unknown before, since some
//     ingress controllers never report one.
//   - PodDisruptionBudget: observed generation and currentHealthy ≥ desiredHealthy.
//   - PersistentVolumeClaim: Healthy when Bound, Unhealthy otherwise; a claim of a
//     WaitForFirstConsumer storage class stays Pending, and so Unhealthy, until a pod
//     uses it.
//   - Namespace: Healthy unless Terminating.
//   - CustomResourceDefinition: Healthy once its Established condition is True.
//   - ConfigMap, Secret, ServiceAccount, LimitRange, ResourceQuota, CronJob, the RBAC
//     kinds, NetworkPolicy, PriorityClass and StorageClass: Healthy when they exist.
//   - Any other kind: its Ready condition decides when it has one (True is Healthy,
//     False Unhealthy), as for most custom resources that report one; Unknown otherwise.
//
// An object whose fields have the wrong types is Unknown.
func Health(obj *unstructured.Unstructured) federationv1alpha1.ResourceHealth {
	if obj == nil {
		return unknown
	}
	gk := obj.GroupVersionKind().GroupKind()
	if rule, ok := healthRules[gk]; ok {
		return rule(obj)
	}
	if existenceKinds[gk] {
		return healthy
	}
	switch conditionStatus(obj, "Ready") {
	case "True":
		return healthy
	case "False":
		return unhealthy
	}
	return unknown
}

// typed turns a check of a typed object into one of an unstructured object; an object
// that does not convert is Unknown.
func typed[T any](check func(*T) federationv1alpha1.ResourceHealth) func(*unstructured.Unstructured) federationv1alpha1.ResourceHealth {
	return func(obj *unstructured.Unstructured) federationv1alpha1.ResourceHealth {
		out := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, out); err != nil {
			return unknown
		}
		return check(out)
	}
}

func healthyIf(ok bool) federationv1alpha1.ResourceHealth {
	if ok {
		return healthy
	}
	return unhealthy
}

func deploymentHealth(d *appsv1.Deployment) federationv1alpha1.ResourceHealth {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			return unhealthy
		}
	}
	want, s := ptr.Deref(d.Spec.Replicas, 1), d.Status
	return healthyIf(s.ObservedGeneration >= d.Generation &&
		s.UpdatedReplicas == want && s.AvailableReplicas == want && s.Replicas == want)
}

func statefulSetHealth(ss *appsv1.StatefulSet) federationv1alpha1.ResourceHealth {
	want, s := ptr.Deref(ss.Spec.Replicas, 1), ss.Status
	if s.ObservedGeneration < ss.Generation || s.ReadyReplicas != want {
		return unhealthy
	}
	if ss.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return healthy
	}
	var partition int32
	if ru := ss.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		partition = ptr.Deref(ru.Partition, 0)
	}
	return healthyIf(s.UpdatedReplicas >= want-partition)
}

func daemonSetHealth(ds *appsv1.DaemonSet) federationv1alpha1.ResourceHealth {
	s := ds.Status
	if s.ObservedGeneration < ds.Generation || s.NumberAvailable != s.DesiredNumberScheduled {
		return unhealthy
	}
	if ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
		return healthy
	}
	return healthyIf(s.UpdatedNumberScheduled == s.DesiredNumberScheduled)
}

func replicaSetHealth(rs *appsv1.ReplicaSet) federationv1alpha1.ResourceHealth {
	for _, c := range rs.Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return unhealthy
		}
	}
	want, s := ptr.Deref(rs.Spec.Replicas, 1), rs.Status
	return healthyIf(s.ObservedGeneration >= rs.Generation && s.AvailableReplicas == want)
}

func jobHealth(j *batchv1.Job) federationv1alpha1.ResourceHealth {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobFailed || c.Type == batchv1.JobFailureTarget) && c.Status == corev1.ConditionTrue {
			return unhealthy
		}
	}
	return healthy
}

func podHealth(p *corev1.Pod) federationv1alpha1.ResourceHealth {
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return healthy
	case corev1.PodUnknown:
		return unknown
	case corev1.PodRunning:
		return healthyIf(podReady(p.Status))
	}
	return unhealthy
}

func podReady(s corev1.PodStatus) bool {
	for _, c := range s.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func serviceHealth(s *corev1.Service) federationv1alpha1.ResourceHealth {
	if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return healthy
	}
	return healthyIf(len(s.Status.LoadBalancer.Ingress) > 0)
}

func ingressHealth(i *networkingv1.Ingress) federationv1alpha1.ResourceHealth {
	if len(i.Status.LoadBalancer.Ingress) > 0 {
		return healthy
	}
	return unknown
}

func pdbHealth(p *policyv1.PodDisruptionBudget) federationv1alpha1.ResourceHealth {
	s := p.Status
	return healthyIf(s.ObservedGeneration >= p.Generation && s.CurrentHealthy >= s.DesiredHealthy)
}

func pvcHealth(c *corev1.PersistentVolumeClaim) federationv1alpha1.ResourceHealth {
	return healthyIf(c.Status.Phase == corev1.ClaimBound)
}

func namespaceHealth(n *corev1.Namespace) federationv1alpha1.ResourceHealth {
	return healthyIf(n.Status.Phase != corev1.NamespaceTerminating)
}

// crdHealth reads the conditions directly rather than through the apiextensions types:
// only one condition matters.
func crdHealth(obj *unstructured.Unstructured) federationv1alpha1.ResourceHealth {
	return healthyIf(conditionStatus(obj, "Established") == "True")
}

// conditionStatus is the status of the condition of the given type in
// status.conditions, or "" when there is none or it cannot be read.
func conditionStatus(obj *unstructured.Unstructured, conditionType string) string {
	raw, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "conditions")
	list, _ := raw.([]any)
	for _, item := range list {
		c, _ := item.(map[string]any)
		if t, _ := c["type"].(string); t == conditionType {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}
