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
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
)

// The HPA's default behavior.
const (
	defaultScaleUpWindowSeconds   = 0
	defaultScaleDownWindowSeconds = 300
	defaultScaleUpPods            = 4
	defaultScalePercent           = 100
	defaultPeriodSeconds          = 15
)

// The reasons and messages of the ScalingLimited and AbleToScale conditions.
const (
	ReasonTooFewReplicas     = "TooFewReplicas"
	ReasonTooManyReplicas    = "TooManyReplicas"
	ReasonScaleUpLimit       = "ScaleUpLimit"
	ReasonScaleDownLimit     = "ScaleDownLimit"
	ReasonDesiredWithinRange = "DesiredWithinRange"

	ReasonScaleUpStabilized   = "ScaleUpStabilized"
	ReasonScaleDownStabilized = "ScaleDownStabilized"
	ReasonReadyForNewScale    = "ReadyForNewScale"

	messageTooFew              = "the desired replica count is less than the minimum replica count"
	messageTooMany             = "the desired replica count is more than the maximum replica count"
	messageScaleUpLimit        = "the desired replica count is increasing faster than the maximum scale rate"
	messageScaleDownLimit      = "the desired replica count is decreasing faster than the maximum scale rate"
	messageWithinRange         = "the desired count is within the acceptable range"
	messageScaleUpStabilized   = "recent recommendations were lower than current one, applying the lowest recent recommendation"
	messageScaleDownStabilized = "recent recommendations were higher than current one, applying the highest recent recommendation"
	messageReadyForNewScale    = "recommended size matches current size"
)

// DefaultBehavior fills in the HPA's defaults where b leaves them unset (nil b → all
// defaults): scaleUp has a stabilization window of 0s, policies 4 pods and 100% per 15s
// and selectPolicy Max; scaleDown a window of 300s, policy 100% per 15s and selectPolicy
// Max. Policies are defaulted only when nil, as the API server does. Returns a new object;
// never modifies b.
func DefaultBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	out := &autoscalingv2.HorizontalPodAutoscalerBehavior{}
	if b != nil {
		out = b.DeepCopy()
	}
	out.ScaleUp = defaultRules(out.ScaleUp, defaultScaleUpWindowSeconds, []autoscalingv2.HPAScalingPolicy{
		{Type: autoscalingv2.PodsScalingPolicy, Value: defaultScaleUpPods, PeriodSeconds: defaultPeriodSeconds},
		{Type: autoscalingv2.PercentScalingPolicy, Value: defaultScalePercent, PeriodSeconds: defaultPeriodSeconds},
	})
	out.ScaleDown = defaultRules(out.ScaleDown, defaultScaleDownWindowSeconds, []autoscalingv2.HPAScalingPolicy{
		{Type: autoscalingv2.PercentScalingPolicy, Value: defaultScalePercent, PeriodSeconds: defaultPeriodSeconds},
	})
	return out
}

// defaultRules fills in r's unset fields (r may be nil; it is modified otherwise).
func defaultRules(r *autoscalingv2.HPAScalingRules, window int32, policies []autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	if r == nil {
		r = &autoscalingv2.HPAScalingRules{}
	}
	if r.StabilizationWindowSeconds == nil {
		r.StabilizationWindowSeconds = ptr.To(window)
	}
	if r.SelectPolicy == nil {
		r.SelectPolicy = ptr.To(autoscalingv2.MaxChangePolicySelect)
	}
	if r.Policies == nil {
		r.Policies = policies
	}
	return r
}

// Recommendation is one past desired-replicas recommendation (the stabilization window's
// memory).
type Recommendation struct {
	Time     time.Time
	Replicas int32
}

// ScaleEvent is one past change of the target's replicas (positive up, negative down), for
// the policies' periods.
type ScaleEvent struct {
	Time   time.Time
	Change int32
}

// Decision is the outcome of Normalize.
type Decision struct {
	Replicas int32
	// Stabilized is the recommendation after the stabilization windows, before the policies
	// and bounds. AbleToScaleReason/Message are for the AbleToScale condition (True):
	// ScaleUpStabilized or ScaleDownStabilized when the windows changed the desired count,
	// else ReadyForNewScale.
	Stabilized                            int32
	AbleToScaleReason, AbleToScaleMessage string
	// Limited tells whether a policy or a bound changed the stabilized recommendation;
	// Reason/Message are for the ScalingLimited condition: TooFewReplicas, TooManyReplicas,
	// ScaleUpLimit, ScaleDownLimit, or DesiredWithinRange when not limited.
	Limited         bool
	Reason, Message string
	// Recommendations is the history to keep for next time: the new recommendation added,
	// entries out of the longest stabilization window dropped.
	Recommendations []Recommendation
}

// Normalize turns the desired replicas of the metrics into the replicas to scale to, as the
// HPA does with behavior. First stabilization: the recommendation moves from
// currentReplicas up at most to the lowest recommendation inside the scaleUp window, and
// down at most to the highest inside the scaleDown window (both including desired). Then
// the policies limit the change over their periods (see scaleUpLimit, scaleDownLimit), and
// the result is kept within [minReplicas, maxReplicas]. b is defaulted with DefaultBehavior
// first; recs and events are not modified.
func Normalize(b *autoscalingv2.HorizontalPodAutoscalerBehavior, minReplicas, maxReplicas, currentReplicas, desired int32,
	recs []Recommendation, events []ScaleEvent, now time.Time) Decision {
	b = DefaultBehavior(b)
	var d Decision
	d.Stabilized, d.Recommendations = stabilize(b, currentReplicas, desired, recs, now)
	switch {
	case d.Stabilized == desired:
		d.AbleToScaleReason, d.AbleToScaleMessage = ReasonReadyForNewScale, messageReadyForNewScale
	case desired >= currentReplicas:
		d.AbleToScaleReason, d.AbleToScaleMessage = ReasonScaleUpStabilized, messageScaleUpStabilized
	default:
		d.AbleToScaleReason, d.AbleToScaleMessage = ReasonScaleDownStabilized, messageScaleDownStabilized
	}

	d.Replicas, d.Reason, d.Message = d.Stabilized, ReasonDesiredWithinRange, messageWithinRange
	switch {
	case d.Stabilized > currentReplicas:
		// A limit under currentReplicas (events still in the periods) holds the count.
		limit := max(scaleUpLimit(b.ScaleUp, currentReplicas, events, now), currentReplicas)
		ceiling, reason, message := maxReplicas, ReasonTooManyReplicas, messageTooMany
		if limit < maxReplicas {
			ceiling, reason, message = limit, ReasonScaleUpLimit, messageScaleUpLimit
		}
		if d.Stabilized > ceiling {
			d.Replicas, d.Reason, d.Message = ceiling, reason, message
		}
	case d.Stabilized < currentReplicas:
		limit := min(scaleDownLimit(b.ScaleDown, currentReplicas, events, now), currentReplicas)
		floor, reason, message := minReplicas, ReasonTooFewReplicas, messageTooFew
		if limit > minReplicas {
			floor, reason, message = limit, ReasonScaleDownLimit, messageScaleDownLimit
		}
		if d.Stabilized < floor {
			d.Replicas, d.Reason, d.Message = floor, reason, message
		}
	}
	// The HPA scales a target outside its bounds back to them before it looks at metrics.
	if d.Replicas > maxReplicas {
		d.Replicas, d.Reason, d.Message = maxReplicas, ReasonTooManyReplicas, messageTooMany
	} else if d.Replicas < minReplicas {
		d.Replicas, d.Reason, d.Message = minReplicas, ReasonTooFewReplicas, messageTooFew
	}
	d.Limited = d.Replicas != d.Stabilized
	return d
}

// stabilize returns the stabilized recommendation and the history to keep: desired is
// recorded at now, and entries no longer inside either window are dropped.
func stabilize(b *autoscalingv2.HorizontalPodAutoscalerBehavior, current, desired int32,
	recs []Recommendation, now time.Time) (int32, []Recommendation) {
	upWindow := windowOf(b.ScaleUp)
	downWindow := windowOf(b.ScaleDown)
	upCutoff, downCutoff := now.Add(-upWindow), now.Add(-downWindow)
	keepCutoff := now.Add(-max(upWindow, downWindow))

	lowest, highest := desired, desired
	kept := make([]Recommendation, 0, len(recs)+1)
	for _, r := range recs {
		if r.Time.After(upCutoff) {
			lowest = min(lowest, r.Replicas)
		}
		if r.Time.After(downCutoff) {
			highest = max(highest, r.Replicas)
		}
		if r.Time.After(keepCutoff) {
			kept = append(kept, r)
		}
	}
	kept = append(kept, Recommendation{Time: now, Replicas: desired})
	return min(max(current, lowest), highest), kept
}

// windowOf is the stabilization window of r.
func windowOf(r *autoscalingv2.HPAScalingRules) time.Duration {
	return time.Duration(ptr.Deref(r.StabilizationWindowSeconds, 0)) * time.Second
}

// periodStart is how many replicas the target had periodSeconds before now: current less
// the changes since.
func periodStart(current int32, events []ScaleEvent, periodSeconds int32, now time.Time) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	for _, e := range events {
		if e.Time.After(cutoff) {
			current -= e.Change
		}
	}
	return current
}

// scaleUpLimit is the most replicas r's policies allow now: each policy allows its period's
// start plus Value pods, or plus Value percent rounded up; selectPolicy Max takes the
// highest of those, Min the lowest, and Disabled allows no more than current.
func scaleUpLimit(r *autoscalingv2.HPAScalingRules, current int32, events []ScaleEvent, now time.Time) int32 {
	sel := ptr.Deref(r.SelectPolicy, autoscalingv2.MaxChangePolicySelect)
	if sel == autoscalingv2.DisabledPolicySelect {
		return current
	}
	limit := int32(math.MinInt32)
	if sel == autoscalingv2.MinChangePolicySelect {
		limit = math.MaxInt32
	}
	for _, p := range r.Policies {
		start := periodStart(current, events, p.PeriodSeconds, now)
		var allowed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			allowed = start + p.Value
		case autoscalingv2.PercentScalingPolicy:
			allowed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		default:
			continue
		}
		if sel == autoscalingv2.MinChangePolicySelect {
			limit = min(limit, allowed)
		} else {
			limit = max(limit, allowed)
		}
	}
	return limit
}

// scaleDownLimit is the fewest replicas r's policies allow now: each policy allows its
// period's start less Value pods, or less Value percent rounded down; selectPolicy Max
// takes the lowest of those, Min the highest, and Disabled allows no fewer than current.
func scaleDownLimit(r *autoscalingv2.HPAScalingRules, current int32, events []ScaleEvent, now time.Time) int32 {
	sel := ptr.Deref(r.SelectPolicy, autoscalingv2.MaxChangePolicySelect)
	if sel == autoscalingv2.DisabledPolicySelect {
		return current
	}
	limit := int32(math.MaxInt32)
	if sel == autoscalingv2.MinChangePolicySelect {
		limit = math.MinInt32
	}
	for _, p := range r.Policies {
		start := periodStart(current, events, p.PeriodSeconds, now)
		var allowed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			allowed = start - p.Value
		case autoscalingv2.PercentScalingPolicy:
			allowed = int32(float64(start) * (1 - float64(p.Value)/100))
		default:
			continue
		}
		if sel == autoscalingv2.MinChangePolicySelect {
			limit = max(limit, allowed)
		} else {
			limit = min(limit, allowed)
		}
	}
	return limit
}
