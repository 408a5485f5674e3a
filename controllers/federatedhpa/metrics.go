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
	// unseen are the members that run replicas of the target but whose pods, or whose
	// share of an Object or External metric, could not be read; warnings say what else was
	// left out, each with its metric's reason.
	unseen   []string
	warnings []metricError
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
	in := metricInputs{hpa: hpa, current: current * factor, sel: sel, clusters: clusters, pods: pods, now: now}
	for _, m := range specs {
		r := c.computeMetric(ctx, &in, m)
		for _, w := range r.warnings {
			out.warnings = append(out.warnings, metricError{r.reason, errors.New(w)})
		}
		for _, c := range r.unseen {
			if !slices.Contains(out.unseen, c) {
				out.unseen = append(out.unseen, c)
			}
		}
		if r.status != nil {
			out.statuses = append(out.statuses, *r.status)
		}
		if r.err != nil {
			out.invalid = append(out.invalid, metricError{r.reason, fmt.Errorf("%s: %w", r.name, r.err)})
			continue
		}
		// Pods of every member back to the template's replicas.
		replicas := (r.replicas + factor - 1) / factor
		if out.valid == 0 || replicas > out.replicas {
			out.replicas, out.metricName = replicas, r.name
		}
		out.valid++
	}
	return out
}

// metricInputs are what every metric of one FederatedHPA is computed over.
type metricInputs struct {
	hpa *federationv1alpha1.FederatedHPA
	// current is the target's replicas over all its members.
	current  int32
	sel      labels.Selector
	clusters []string
	pods     []PodInfo
	now      time.Time

	// usage is the pods' resource metrics, read once for every Resource and
	// ContainerResource metric.
	usage    []metricsPod
	usageErr error
	read     bool
}

// metricResult is what one metric asks for.
type metricResult struct {
	// name names the metric in events and conditions, as the HPA does.
	name     string
	replicas int32
	status   *autoscalingv2.MetricStatus
	// reason and err say why it could not be computed.
	reason   string
	err      error
	warnings []string
	// unseen are the members whose share of a total could not be read.
	unseen []string
}

// computeMetric computes what one metric asks for.
func (c *Controller) computeMetric(ctx context.Context, in *metricInputs, m autoscalingv2.MetricSpec) metricResult {
	opts := DefaultResourceOptions(in.now)
	switch {
	case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
		r := metricResult{name: resourceMetricName(m.Resource.Name, "", m.Resource.Target), reason: "FailedGetResourceMetric"}
		r.status = &autoscalingv2.MetricStatus{Type: m.Type, Resource: &autoscalingv2.ResourceMetricStatus{Name: m.Resource.Name}}
		c.resourceMetric(ctx, in, &r, m.Resource.Name, "", m.Resource.Target, &r.status.Resource.Current)
		return r

	case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
		cr := m.ContainerResource
		r := metricResult{name: resourceMetricName(cr.Name, cr.Container, cr.Target), reason: "FailedGetContainerResourceMetric"}
		r.status = &autoscalingv2.MetricStatus{Type: m.Type, ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Name: cr.Name, Container: cr.Container}}
		c.resourceMetric(ctx, in, &r, cr.Name, cr.Container, cr.Target, &r.status.ContainerResource.Current)
		return r

	case m.Type == autoscalingv2.PodsMetricSourceType && m.Pods != nil:
		r := metricResult{name: "pods metric " + m.Pods.Metric.Name, reason: "FailedGetPodsMetric"}
		r.status = &autoscalingv2.MetricStatus{Type: m.Type, Pods: &autoscalingv2.PodsMetricStatus{Metric: m.Pods.Metric}}
		metricSel, err := metricSelector(m.Pods.Metric.Selector)
		if err != nil {
			r.err = err
			return r
		}
		res, err := c.cfg.Metrics.CustomMetrics(ctx, metricsadapter.CustomQuery{
			Resource: schema.GroupResource{Resource: "pods"}, Namespace: in.hpa.Namespace, Name: "*", Metric: m.Pods.Metric.Name,
			Selector: in.sel, MetricSelector: metricSel, Clusters: in.clusters,
		})
		r.warnings = res.Warnings
		if err != nil {
			r.err = fmt.Errorf("unable to get metric %s: %w", m.Pods.Metric.Name, err)
			return r
		}
		values := map[PodKey]PodUsage{}
		for _, v := range res.Items {
			values[PodKey{v.Cluster, v.DescribedObject.Namespace, v.DescribedObject.Name}] = PodUsage{MilliValue: v.Value.MilliValue(), Timestamp: v.Timestamp.Time}
		}
		rec, err := PodsReplicas(in.current, m.Pods.Target, in.pods, values, opts)
		r.replicas, r.err = rec.Replicas, err
		if err == nil {
			r.status.Pods.Current = autoscalingv2.MetricValueStatus{AverageValue: milliQuantity(rec.AverageMilli)}
		}
		return r

	case m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil:
		o := m.Object
		r := metricResult{name: fmt.Sprintf("%s metric %s", o.DescribedObject.Kind, o.Metric.Name), reason: "FailedGetObjectMetric"}
		r.status = &autoscalingv2.MetricStatus{Type: m.Type, Object: &autoscalingv2.ObjectMetricStatus{DescribedObject: o.DescribedObject, Metric: o.Metric}}
		gr, err := c.cfg.Targets.Resource(o.DescribedObject)
		if err != nil {
			r.err = fmt.Errorf("unable to get metric %s: the object's kind: %w", o.Metric.Name, err)
			return r
		}
		metricSel, err := metricSelector(o.Metric.Selector)
		if err != nil {
			r.err = err
			return r
		}
		res, err := c.cfg.Metrics.CustomMetrics(ctx, metricsadapter.CustomQuery{
			Resource: gr, Namespace: in.hpa.Namespace, Name: o.DescribedObject.Name, Metric: o.Metric.Name, MetricSelector: metricSel, Clusters: in.clusters,
		})
		r.warnings, r.unseen = res.Warnings, res.LeftOut
		if err == nil && len(res.Items) == 0 {
			err = fmt.Errorf("no member cluster has it for %s %s", o.DescribedObject.Kind, o.DescribedObject.Name)
		}
		if err != nil {
			r.err = fmt.Errorf("unable to get metric %s: %w", o.Metric.Name, err)
			return r
		}
		total := sumMilli(res.Items, func(v metricsadapter.CustomValue) resource.Quantity { return v.Value })
		rec, err := TotalReplicas("object", in.current, o.Target, total, in.pods, opts.Tolerance)
		r.replicas, r.err, r.status.Object.Current = rec.Replicas, err, rec.Current
		return r

	case m.Type == autoscalingv2.ExternalMetricSourceType && m.External != nil:
		e := m.External
		r := metricResult{name: fmt.Sprintf("external metric %s(%+v)", e.Metric.Name, e.Metric.Selector), reason: "FailedGetExternalMetric"}
		r.status = &autoscalingv2.MetricStatus{Type: m.Type, External: &autoscalingv2.ExternalMetricStatus{Metric: e.Metric}}
		metricSel, err := metricSelector(e.Metric.Selector)
		if err != nil {
			r.err = err
			return r
		}
		res, err := c.cfg.Metrics.ExternalMetrics(ctx, metricsadapter.ExternalQuery{
			Namespace: in.hpa.Namespace, Metric: e.Metric.Name, MetricSelector: metricSel, Clusters: in.clusters,
		})
		r.warnings, r.unseen = res.Warnings, res.LeftOut
		if err == nil && len(res.Items) == 0 {
			err = errors.New("no metrics returned from external metrics API")
		}
		if err != nil {
			r.err = fmt.Errorf("unable to get external metric %s/%s/%+v: %w", in.hpa.Namespace, e.Metric.Name, e.Metric.Selector, err)
			return r
		}
		total := sumMilli(res.Items, func(v metricsadapter.ExternalValue) resource.Quantity { return v.Value })
		rec, err := TotalReplicas("external", in.current, e.Target, total, in.pods, opts.Tolerance)
		r.replicas, r.err, r.status.External.Current = rec.Replicas, err, rec.Current
		return r
	}
	return metricResult{name: string(m.Type) + " metric", reason: "InvalidMetricSourceType",
		err: fmt.Errorf("invalid metric source type %q, or its source is missing", m.Type)}
}

// resourceMetric computes a Resource metric, or with container a ContainerResource metric,
// into r, and its current value into current.
func (c *Controller) resourceMetric(ctx context.Context, in *metricInputs, r *metricResult, name corev1.ResourceName, container string,
	target autoscalingv2.MetricTarget, current *autoscalingv2.MetricValueStatus) {
	usage, warnings, err := c.podUsage(ctx, in)
	r.warnings = warnings
	if err != nil {
		r.err = err
		return
	}
	pods := in.pods
	if container != "" {
		pods = ContainerPods(pods, container)
	}
	rec, err := ResourceReplicas(in.current, name, target, pods, usageOf(usage, container, name), DefaultResourceOptions(in.now))
	r.replicas, r.err = rec.Replicas, err
	if err == nil {
		*current = resourceCurrent(rec)
	}
}

// sumMilli is the total of the values, in milli-units.
func sumMilli[T any](items []T, value func(T) resource.Quantity) int64 {
	var total int64
	for _, it := range items {
		q := value(it)
		total += q.MilliValue()
	}
	return total
}

// podUsage reads the pods' resource metrics once for all the metrics that need them.
func (c *Controller) podUsage(ctx context.Context, in *metricInputs) ([]metricsPod, []string, error) {
	if in.read {
		return in.usage, nil, in.usageErr
	}
	in.read = true
	res, err := c.cfg.Metrics.PodMetrics(ctx, metricsadapter.Query{Namespace: in.hpa.Namespace, Labels: in.sel, Clusters: in.clusters})
	in.usage = res.Items
	if err != nil {
		in.usageErr = fmt.Errorf("reading the pods' metrics: %w", err)
	}
	return in.usage, res.Warnings, in.usageErr
}

// metricSelector is a metric's selector as labels; nil selects every series.
func metricSelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	if sel == nil {
		return nil, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, fmt.Errorf("the metric's selector: %w", err)
	}
	return s, nil
}

// resourceCurrent is a Resource recommendation's status.
func resourceCurrent(rec ResourceRecommendation) autoscalingv2.MetricValueStatus {
	return autoscalingv2.MetricValueStatus{AverageUtilization: rec.Utilization, AverageValue: milliQuantity(rec.AverageMilli)}
}

// scheduled are the members a binding runs its template in, and whether each runs all
// the replicas (Duplicated) rather than a share (Divided).
func scheduled(b *federationv1alpha1.ResourceBinding) (clusters []string, perMember bool) {
	perMember = !b.Spec.Placement.ReplicasDivided()
	for _, t := range b.Spec.Clusters {
		if perMember || t.Replicas > 0 {
			clusters = append(clusters, t.Name)
		}
	}
	return clusters, perMember
}

// resourceMetricName is how events and conditions name a Resource metric (container "")
// or a ContainerResource metric, as the HPA does.
func resourceMetricName(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget) string {
	kind := "resource"
	if container != "" {
		kind = "container resource"
	}
	if target.Type == autoscalingv2.UtilizationMetricType {
		return fmt.Sprintf("%s %s utilization (percentage of request)", name, kind)
	}
	return fmt.Sprintf("%s %s", name, kind)
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
	info.ContainerRequests = make(map[string]corev1.ResourceList, len(containers))
	for _, ctr := range containers {
		info.ContainerRequests[ctr.Name] = ctr.Resources.Requests
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

// usageOf sums each pod's usage of a resource over its containers, or takes the named
// container's only.
func usageOf(items []metricsPod, container string, name corev1.ResourceName) map[PodKey]PodUsage {
	out := make(map[PodKey]PodUsage, len(items))
	for i := range items {
		p := &items[i]
		var milli int64
		found := false
		for _, ctr := range p.Containers {
			if container != "" && ctr.Name != container {
				continue
			}
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
