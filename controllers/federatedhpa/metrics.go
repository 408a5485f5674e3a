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

package federatedhpa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/metricsadapter"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// defaultMetrics is what a FederatedHPA without metrics scales on, as an HPA: 80% of the
// pods' CPU requests.
var defaultMetrics = []autoscalingv2.MetricSpec{{
	Type: autoscalingv2.ResourceMetricSourceType,
	Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
		Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)}},
}}

// metricError is a metric that could not be computed, with the reason the HPA gives its
// ScalingActive condition.
type metricError struct {
	reason string
	err    error
}

func (e metricError) Error() string { return e.err.Error() }

// computed is what hpa's metrics ask for.
type computed struct {
	// replicas is the highest count a valid metric asks for, named by metricName.
	replicas   int32
	metricName string
	valid      int
	statuses   []autoscalingv2.MetricStatus
	// invalid are the metrics that could not be computed.
	invalid []metricError
	// unseen are the members that run replicas of the target but whose pods could not be
	// read; warnings say what else was left out.
	unseen   []string
	warnings []string
}

// computeReplicas computes what hpa's metrics ask for over the pods its target's selector
// selects in the namespace, in the members the target is scheduled to. current is the
// template's replicas; a Duplicated placement runs that many in every member, and the
// count is computed per member.
func (c *Controller) computeReplicas(ctx context.Context, hpa *federationv1alpha1.FederatedHPA, current int32, selector string, now time.Time) computed {
	var out computed
	ref := hpa.Spec.ScaleTargetRef
	if selector == "" {
		out.invalid = append(out.invalid, metricError{"InvalidSelector",
			fmt.Errorf("the target %s/%s has no selector in its scale: the HPA needs one to find its pods", ref.Kind, ref.Name)})
		return out
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		out.invalid = append(out.invalid, metricError{"InvalidSelector", fmt.Errorf("the target's selector %q: %w", selector, err)})
		return out
	}
	binding, err := c.cfg.Bindings.Lister().ResourceBindings(hpa.Namespace).Get(federationv1alpha1.BindingName(ref.Kind, ref.Name))
	if err != nil {
		out.invalid = append(out.invalid, metricError{"FailedGetResourceMetric",
			fmt.Errorf("the target %s/%s runs in no member cluster (no propagation policy selects it: %v)", ref.Kind, ref.Name, err)})
		return out
	}
	clusters, perMember := scheduled(binding)
	factor := int32(1)
	if perMember {
		factor = int32(max(len(clusters), 1))
	}
	specs := hpa.Spec.Metrics
	if len(specs) == 0 {
		specs = defaultMetrics
	}
	pods, unseen, err := c.listPods(ctx, hpa.Namespace, sel, clusters)
	out.unseen = unseen
	if err != nil {
		out.invalid = append(out.invalid, metricError{"FailedGetResourceMetric", err})
		return out
	}
	var usage []metricsPod
	for _, m := range specs {
		if m.Type != autoscalingv2.ResourceMetricSourceType {
			continue
		}
		res, err := c.cfg.Metrics.PodMetrics(ctx, metricsadapter.Query{Namespace: hpa.Namespace, Labels: sel, Clusters: clusters})
		if err != nil {
			out.invalid = append(out.invalid, metricError{"FailedGetResourceMetric", fmt.Errorf("reading the pods' metrics: %w", err)})
			return out
		}
		usage, out.warnings = res.Items, res.Warnings
		break
	}
	for _, m := range specs {
		switch m.Type {
		case autoscalingv2.ResourceMetricSourceType:
			if m.Resource == nil {
				out.invalid = append(out.invalid, metricError{"InvalidMetricSourceType", errors.New("a Resource metric without its resource")})
				continue
			}
			rec, err := ResourceReplicas(current*factor, m.Resource.Name, m.Resource.Target, pods, usageOf(usage, m.Resource.Name), DefaultResourceOptions(now))
			if err != nil {
				out.invalid = append(out.invalid, metricError{"FailedGetResourceMetric", fmt.Errorf("%s: %w", resourceMetricName(m.Resource), err)})
				out.statuses = append(out.statuses, autoscalingv2.MetricStatus{Type: m.Type, Resource: &autoscalingv2.ResourceMetricStatus{Name: m.Resource.Name}})
				continue
			}
			out.statuses = append(out.statuses, autoscalingv2.MetricStatus{Type: m.Type, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: m.Resource.Name,
				Current: autoscalingv2.MetricValueStatus{
					AverageUtilization: rec.Utilization,
					AverageValue:       resource.NewMilliQuantity(rec.AverageMilli, resource.DecimalSI),
				},
			}})
			// Pods of every member back to the template's replicas.
			replicas := (rec.Replicas + factor - 1) / factor
			if out.valid == 0 || replicas > out.replicas {
				out.replicas, out.metricName = replicas, resourceMetricName(m.Resource)
			}
			out.valid++
		default:
			out.invalid = append(out.invalid, metricError{"InvalidMetricSourceType",
				fmt.Errorf("metrics of type %s are not read by fed yet (only Resource metrics are)", m.Type)})
		}
	}
	return out
}

// scheduled are the members a binding runs its template in, and whether each runs all
// the replicas (Duplicated) rather than a share (Divided).
func scheduled(b *federationv1alpha1.ResourceBinding) (clusters []string, perMember bool) {
	rs := (*federationv1alpha1.ReplicaSchedulingStrategy)(nil)
	if b.Spec.Placement != nil {
		rs = b.Spec.Placement.ReplicaScheduling
	}
	perMember = rs == nil || rs.ReplicaSchedulingType == federationv1alpha1.ReplicaSchedulingTypeDuplicated
	for _, t := range b.Spec.Clusters {
		if perMember || t.Replicas > 0 {
			clusters = append(clusters, t.Name)
		}
	}
	return clusters, perMember
}

// resourceMetricName is how events and conditions name a Resource metric, as the HPA does.
func resourceMetricName(m *autoscalingv2.ResourceMetricSource) string {
	if m.Target.Type == autoscalingv2.UtilizationMetricType {
		return fmt.Sprintf("%s resource utilization (percentage of request)", m.Name)
	}
	return fmt.Sprintf("%s resource", m.Name)
}

// listPods lists the pods sel selects in namespace ns of the given members, in parallel.
// A member that is not Ready or cannot be read is unseen; none readable is an error.
func (c *Controller) listPods(ctx context.Context, ns string, sel labels.Selector, clusters []string) (pods []PodInfo, unseen []string, err error) {
	ready := c.readyClusters()
	results := make([][]PodInfo, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, cluster := range clusters {
		if !ready[cluster] {
			errs[i] = fmt.Errorf("cluster %s is not Ready", cluster)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.memberPods(ctx, cluster, ns, sel)
		}()
	}
	wg.Wait()
	for i, cluster := range clusters {
		if errs[i] != nil {
			unseen = append(unseen, cluster)
			continue
		}
		pods = append(pods, results[i]...)
	}
	if len(clusters) > 0 && len(unseen) == len(clusters) {
		return nil, unseen, fmt.Errorf("listing the target's pods: %w", errors.Join(errs...))
	}
	return pods, unseen, nil
}

// memberPods lists the pods sel selects in namespace ns of one member.
func (c *Controller) memberPods(ctx context.Context, cluster, ns string, sel labels.Selector) ([]PodInfo, error) {
	mb, err := c.cfg.Members.Get(cluster)
	if err != nil {
		return nil, err
	}
	list, err := mb.Client.Resource(podsResource).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", cluster, err)
	}
	pods := make([]PodInfo, 0, len(list.Items))
	for i := range list.Items {
		var pod corev1.Pod
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &pod); err != nil {
			return nil, fmt.Errorf("cluster %s: pod %s: %w", cluster, list.Items[i].GetName(), err)
		}
		pods = append(pods, podInfo(cluster, &pod))
	}
	return pods, nil
}

// podInfo is what the calculation needs of a pod.
func podInfo(cluster string, pod *corev1.Pod) PodInfo {
	info := PodInfo{
		Cluster: cluster, Namespace: pod.Namespace, Name: pod.Name,
		Phase:    pod.Status.Phase,
		Deleting: pod.DeletionTimestamp != nil,
		Requests: corev1.ResourceList{},
	}
	if pod.Status.StartTime != nil {
		info.StartTime = pod.Status.StartTime.Time
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			// As the HPA: only False is unready (Unknown is not).
			info.Ready = cond.Status != corev1.ConditionFalse
			info.ReadyTransition = cond.LastTransitionTime.Time
		}
	}
	// The containers that run beside each other: the regular ones and the sidecars
	// (restartable init containers), whose usage metrics-server counts too.
	containers := slices.Clone(pod.Spec.Containers)
	for _, ctr := range pod.Spec.InitContainers {
		if ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			containers = append(containers, ctr)
		}
	}
	// A resource some container does not request is left out: the pod's utilization of it
	// cannot be told (the calculation then reports the missing request).
	counted := map[corev1.ResourceName]int{}
	for _, ctr := range containers {
		for name, q := range ctr.Resources.Requests {
			sum := info.Requests[name]
			sum.Add(q)
			info.Requests[name] = sum
			counted[name]++
		}
	}
	for name, n := range counted {
		if n < len(containers) {
			delete(info.Requests, name)
		}
	}
	return info
}

// metricsPod is a pod's metrics as metrics.k8s.io gives them.
type metricsPod = metricsv1beta1.PodMetrics

// usageOf sums each pod's usage of a resource over its containers.
func usageOf(items []metricsPod, name corev1.ResourceName) map[PodKey]PodUsage {
	out := make(map[PodKey]PodUsage, len(items))
	for i := range items {
		p := &items[i]
		var milli int64
		found := false
		for _, ctr := range p.Containers {
			if q, ok := ctr.Usage[name]; ok {
				milli += q.MilliValue()
				found = true
			}
		}
		if !found {
			continue
		}
		key := PodKey{Cluster: p.Labels[metricsadapter.LabelCluster], Namespace: p.Namespace, Name: p.Name}
		out[key] = PodUsage{MilliValue: milli, Timestamp: p.Timestamp.Time, Window: p.Window.Duration}
	}
	return out
}
