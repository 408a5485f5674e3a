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

// computeReplicas is the replica count hpa's metrics ask for, over the pods its target's
// selector selects in every Ready member: the highest any metric asks for, named by
// metricName, with the metrics' current values. A metric that cannot be computed fails
// the whole only when no other can; then a scale-down is held back, as the HPA does.
func (c *Controller) computeReplicas(ctx context.Context, hpa *federationv1alpha1.FederatedHPA, current int32, selector string, now time.Time) (
	replicas int32, metricName string, statuses []autoscalingv2.MetricStatus, err error) {
	if selector == "" {
		return 0, "", nil, fmt.Errorf("the target %s/%s has no selector in its scale: the HPA needs one to find its pods", hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name)
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return 0, "", nil, fmt.Errorf("the target's selector %q: %w", selector, err)
	}
	specs := hpa.Spec.Metrics
	if len(specs) == 0 {
		specs = defaultMetrics
	}
	pods, err := c.listPods(ctx, hpa.Namespace, sel)
	if err != nil {
		return 0, "", nil, err
	}
	var usage metricsadapter.Result[metricsPod]
	needUsage := false
	for _, m := range specs {
		needUsage = needUsage || m.Type == autoscalingv2.ResourceMetricSourceType
	}
	if needUsage {
		res, err := c.cfg.Metrics.PodMetrics(ctx, metricsadapter.Query{Namespace: hpa.Namespace, Labels: sel})
		if err != nil {
			return 0, "", nil, fmt.Errorf("reading the pods' metrics: %w", err)
		}
		usage.Items, usage.Warnings = res.Items, res.Warnings
	}
	var errs []error
	valid := 0
	for _, m := range specs {
		switch m.Type {
		case autoscalingv2.ResourceMetricSourceType:
			if m.Resource == nil {
				errs = append(errs, errors.New("a Resource metric without its resource"))
				continue
			}
			rec, err := ResourceReplicas(current, m.Resource.Name, m.Resource.Target, pods, usageOf(usage.Items, m.Resource.Name), DefaultResourceOptions(now))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", resourceMetricName(m.Resource), err))
				statuses = append(statuses, autoscalingv2.MetricStatus{Type: m.Type, Resource: &autoscalingv2.ResourceMetricStatus{Name: m.Resource.Name}})
				continue
			}
			statuses = append(statuses, autoscalingv2.MetricStatus{Type: m.Type, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: m.Resource.Name,
				Current: autoscalingv2.MetricValueStatus{
					AverageUtilization: rec.Utilization,
					AverageValue:       resource.NewMilliQuantity(rec.AverageMilli, resource.DecimalSI),
				},
			}})
			if valid == 0 || rec.Replicas > replicas {
				replicas, metricName = rec.Replicas, resourceMetricName(m.Resource)
			}
			valid++
		default:
			errs = append(errs, fmt.Errorf("metrics of type %s are not read by fed yet (only Resource metrics are)", m.Type))
		}
	}
	if valid == 0 {
		return 0, "", statuses, errors.Join(errs...)
	}
	if len(errs) > 0 && replicas < current {
		replicas = current
	}
	return replicas, metricName, statuses, nil
}

// resourceMetricName is how events and conditions name a Resource metric, as the HPA does.
func resourceMetricName(m *autoscalingv2.ResourceMetricSource) string {
	if m.Target.Type == autoscalingv2.UtilizationMetricType {
		return fmt.Sprintf("%s resource utilization (percentage of request)", m.Name)
	}
	return fmt.Sprintf("%s resource", m.Name)
}

// listPods lists the pods sel selects in namespace ns of every Ready member, in parallel.
// A member that cannot be read leaves its pods out; none readable is an error.
func (c *Controller) listPods(ctx context.Context, ns string, sel labels.Selector) ([]PodInfo, error) {
	clusters, err := c.readyClusters()
	if err != nil {
		return nil, err
	}
	results := make([][]PodInfo, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, cluster := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.memberPods(ctx, cluster, ns, sel)
		}()
	}
	wg.Wait()
	var pods []PodInfo
	failed := 0
	for i := range clusters {
		if errs[i] != nil {
			failed++
			continue
		}
		pods = append(pods, results[i]...)
	}
	if failed == len(clusters) {
		return nil, fmt.Errorf("listing the target's pods: %w", errors.Join(errs...))
	}
	return pods, nil
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
			info.Ready = cond.Status == corev1.ConditionTrue
			info.ReadyTransition = cond.LastTransitionTime.Time
		}
	}
	// A resource some container does not request is left out: the pod's utilization of it
	// cannot be told (the calculation then reports the missing request).
	counted := map[corev1.ResourceName]int{}
	for _, ctr := range pod.Spec.Containers {
		for name, q := range ctr.Resources.Requests {
			sum := info.Requests[name]
			sum.Add(q)
			info.Requests[name] = sum
			counted[name]++
		}
	}
	for name, n := range counted {
		if n < len(pod.Spec.Containers) {
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
