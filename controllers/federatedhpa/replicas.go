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

// Package federatedhpa scales a workload spread over several member clusters the way the
// Kubernetes HorizontalPodAutoscaler scales it in one cluster. The replica calculation and
// the scaling behavior are pure functions of their inputs.
package federatedhpa

import (
	"errors"
	"fmt"
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// PodInfo is what the calculation knows of one pod of the target, in any member cluster.
type PodInfo struct {
	Cluster, Namespace, Name string
	Phase                    corev1.PodPhase
	// Deleting tells that metadata.deletionTimestamp is set.
	Deleting bool
	// Ready tells that the PodReady condition is True (False and Unknown are not ready).
	Ready bool
	// ReadyTransition is the PodReady condition's lastTransitionTime; zero when the pod has
	// no such condition.
	ReadyTransition time.Time
	// StartTime is status.startTime; zero when unset.
	StartTime time.Time
	// Requests are the pod's requests summed over its containers. A resource some container
	// does not request should be left out, so that a Utilization target reports it missing.
	Requests corev1.ResourceList
	// ContainerRequests are each container's requests, by container name, for
	// ContainerResource metrics.
	ContainerRequests map[string]corev1.ResourceList
}

// PodKey names a pod in the fleet.
type PodKey struct{ Cluster, Namespace, Name string }

// String is cluster/namespace/name.
func (k PodKey) String() string { return k.Cluster + "/" + k.Namespace + "/" + k.Name }

// Key names the pod in the fleet.
func (p PodInfo) Key() PodKey { return PodKey{p.Cluster, p.Namespace, p.Name} }

// PodUsage is one pod's measured usage of one resource (summed over its containers), from
// metrics.k8s.io.
type PodUsage struct {
	MilliValue int64
	Timestamp  time.Time
	Window     time.Duration
}

// ResourceOptions are the knobs of the HPA controller that matter to the calculation.
type ResourceOptions struct {
	// Tolerance is how far from 1 the usage ratio must be for the replicas to change.
	Tolerance float64
	// CPUInitializationPeriod is how long after its start a pod's cpu samples are trusted
	// only once it is ready and a whole metric window was measured since.
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay is how long after its start a pod that is not ready is taken to
	// have never been ready.
	InitialReadinessDelay time.Duration
	// Now is the time of the calculation.
	Now time.Time
}

// DefaultResourceOptions are the kube-controller-manager's defaults at now.
func DefaultResourceOptions(now time.Time) ResourceOptions {
	return ResourceOptions{
		Tolerance:               0.1,
		CPUInitializationPeriod: 5 * time.Minute,
		InitialReadinessDelay:   30 * time.Second,
		Now:                     now,
	}
}

// ResourceRecommendation is what one Resource metric asks for.
type ResourceRecommendation struct {
	Replicas int32
	// Utilization is the average utilization in percent of request over the ready pods with
	// metrics; set for a Utilization target only.
	Utilization *int32
	// AverageMilli is the average usage in milli-units over the ready pods with metrics.
	AverageMilli int64
	// Timestamp is the oldest metric timestamp used.
	Timestamp time.Time
}

// errNoMetrics is returned when no pod of the target has a usable metric.
var errNoMetrics = errors.New("did not receive metrics for targeted pods (pods might be unready)")

// ResourceReplicas computes the replicas a Resource metric target (cpu, memory, ...) asks
// for, as the HPA does: an AverageValue target compares the pods' average usage with the
// value, else an AverageUtilization target compares their usage with their requests.
//
// Pods being deleted or Failed are ignored. Pending pods are unready, pods without usage
// missing, and, for cpu only, pods whose samples are not trusted yet are unready too (see
// cpuUnready). The usage ratio over the ready pods decides the direction; when there are
// missing pods, or unready pods on a scale-up, the ratio is computed again with missing
// pods at 0 (scale-up) or at their request or target (scale-down) and unready pods at 0
// (scale-up only), and currentReplicas is kept when that ratio is within tolerance, turns
// direction, or its replica count does.
func ResourceReplicas(currentReplicas int32, resource corev1.ResourceName, target autoscalingv2.MetricTarget,
	pods []PodInfo, usage map[PodKey]PodUsage, opts ResourceOptions) (ResourceRecommendation, error) {
	var rec ResourceRecommendation
	if len(pods) == 0 {
		return rec, errors.New("no pods of the target while calculating replica count")
	}
	g := groupPods(pods, usage, resource, opts)
	if len(g.ready) == 0 {
		return rec, errNoMetrics
	}
	values := make(map[PodKey]int64, len(g.ready)+len(g.missing)+len(g.unready))
	for i, k := range g.ready {
		u := usage[k]
		values[k] = u.MilliValue
		if i == 0 || u.Timestamp.Before(rec.Timestamp) {
			rec.Timestamp = u.Timestamp
		}
	}

	switch {
	case target.AverageValue != nil:
		want := target.AverageValue.MilliValue()
		if want <= 0 {
			return rec, fmt.Errorf("invalid average value target %s for %s", target.AverageValue, resource)
		}
		ratio := func(v map[PodKey]int64) float64 {
			return float64(averageMilli(v)) / float64(want)
		}
		rec.AverageMilli = averageMilli(values)
		rec.Replicas = replicasFor(currentReplicas, opts.Tolerance, g, values, ratio, func(PodKey) int64 { return want })
		return rec, nil

	case target.AverageUtilization != nil:
		want := *target.AverageUtilization
		if want <= 0 {
			return rec, fmt.Errorf("invalid utilization target %d%% for %s", want, resource)
		}
		requests := make(map[PodKey]int64, len(pods))
		for _, p := range pods {
			if ignored(p) {
				continue
			}
			q, ok := p.Requests[resource]
			if !ok {
				return rec, fmt.Errorf("missing request for %s in pod %s", resource, p.Key())
			}
			requests[p.Key()] = q.MilliValue()
		}
		util, ok := utilization(values, requests)
		if !ok {
			return rec, fmt.Errorf("no requests of %s for the pods with metrics", resource)
		}
		ratio := func(v map[PodKey]int64) float64 {
			u, _ := utilization(v, requests)
			return float64(u) / float64(want)
		}
		rec.Utilization = &util
		rec.AverageMilli = averageMilli(values)
		// A missing pod on a scale-down counts as using its request, or the target when
		// the target is above 100%.
		fallback := int64(max(100, want))
		rec.Replicas = replicasFor(currentReplicas, opts.Tolerance, g, values, ratio, func(k PodKey) int64 {
			return requests[k] * fallback / 100
		})
		return rec, nil
	}
	return rec, fmt.Errorf("invalid target for %s: neither an average utilization nor an average value", resource)
}

// replicasFor turns the usage ratio of the ready pods' values into a replica count (the
// common part of both targets). ratio computes the usage ratio of a set of values; fallback
// is the value of a missing pod on a scale-down. values is modified.
func replicasFor(current int32, tolerance float64, g podGroups, values map[PodKey]int64,
	ratio func(map[PodKey]int64) float64, fallback func(PodKey) int64) int32 {
	r := ratio(values)
	upWithUnready := len(g.unready) > 0 && r > 1
	if !upWithUnready && len(g.missing) == 0 {
		if math.Abs(1-r) <= tolerance {
			return current
		}
		return int32(math.Ceil(r * float64(len(g.ready))))
	}

	for _, k := range g.missing {
		switch {
		case r < 1:
			values[k] = fallback(k)
		case r > 1:
			values[k] = 0
		}
	}
	if upWithUnready {
		for _, k := range g.unready {
			values[k] = 0
		}
	}

	nr := ratio(values)
	if math.Abs(1-nr) <= tolerance || (r < 1 && nr > 1) || (r > 1 && nr < 1) {
		return current
	}
	n := int32(math.Ceil(nr * float64(len(values))))
	if (nr < 1 && n > current) || (nr > 1 && n < current) {
		return current
	}
	return n
}

// utilization is the total of values in percent of the total of the same pods' requests,
// truncated as the HPA truncates it; false when those requests total 0.
func utilization(values, requests map[PodKey]int64) (int32, bool) {
	var used, requested int64
	for k, v := range values {
		used += v
		requested += requests[k]
	}
	if requested == 0 {
		return 0, false
	}
	return int32(used * 100 / requested), true
}

// averageMilli is the truncated average of values; values must not be empty.
func averageMilli(values map[PodKey]int64) int64 {
	var total int64
	for _, v := range values {
		total += v
	}
	return total / int64(len(values))
}

// podGroups sorts the target's pods that are not ignored.
type podGroups struct {
	// ready pods have a usable metric.
	ready []PodKey
	// unready pods are Pending or, for cpu, have no trusted sample yet.
	unready []PodKey
	// missing pods have no metric.
	missing []PodKey
}

// ignored tells whether a pod is left out of the calculation entirely.
func ignored(p PodInfo) bool {
	return p.Deleting || p.Phase == corev1.PodFailed
}

// groupPods sorts pods into ready, unready and missing ones (ignored pods are dropped), in
// the HPA's order: Pending before missing metrics, missing metrics before cpu readiness.
func groupPods(pods []PodInfo, usage map[PodKey]PodUsage, resource corev1.ResourceName, opts ResourceOptions) podGroups {
	var g podGroups
	for _, p := range pods {
		k := p.Key()
		switch u, found := usage[k]; {
		case ignored(p):
		case p.Phase == corev1.PodPending:
			g.unready = append(g.unready, k)
		case !found:
			g.missing = append(g.missing, k)
		case resource == corev1.ResourceCPU && cpuUnready(p, u, opts):
			g.unready = append(g.unready, k)
		default:
			g.ready = append(g.ready, k)
		}
	}
	return g
}

// cpuUnready tells whether a pod's cpu sample is not to be trusted: the pod has no ready
// condition or start time; or it started within the initialization period and is not
// ready or was not measured for a whole window since it became ready; or, after that
// period, it is not ready and its readiness last changed within the initial readiness
// delay after its start (it never became ready).
func cpuUnready(p PodInfo, u PodUsage, opts ResourceOptions) bool {
	if p.ReadyTransition.IsZero() || p.StartTime.IsZero() {
		return true
	}
	if p.StartTime.Add(opts.CPUInitializationPeriod).After(opts.Now) {
		return !p.Ready || u.Timestamp.Before(p.ReadyTransition.Add(u.Window))
	}
	return !p.Ready && p.StartTime.Add(opts.InitialReadinessDelay).After(p.ReadyTransition)
}
