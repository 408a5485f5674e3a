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
	"reflect"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func pods15(n int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: n, PeriodSeconds: 15}
}

func percent15(n int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: n, PeriodSeconds: 15}
}

func rules(window int32, sel autoscalingv2.ScalingPolicySelect, policies ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To(window), SelectPolicy: ptr.To(sel), Policies: policies}
}

func TestDefaultBehavior(t *testing.T) {
	defaults := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp:   rules(0, autoscalingv2.MaxChangePolicySelect, pods15(4), percent15(100)),
		ScaleDown: rules(300, autoscalingv2.MaxChangePolicySelect, percent15(100)),
	}
	for _, c := range []struct {
		name string
		in   *autoscalingv2.HorizontalPodAutoscalerBehavior
		want *autoscalingv2.HorizontalPodAutoscalerBehavior
	}{
		{"nil", nil, defaults},
		{"empty", &autoscalingv2.HorizontalPodAutoscalerBehavior{}, defaults},
		{"set fields are kept, the others defaulted",
			&autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp:   &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect)},
				ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60), Tolerance: ptr.To(resource.MustParse("50m"))},
			},
			&autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: rules(0, autoscalingv2.MinChangePolicySelect, pods15(4), percent15(100)),
				ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
					Policies: []autoscalingv2.HPAScalingPolicy{percent15(100)}, Tolerance: ptr.To(resource.MustParse("50m"))},
			}},
		{"empty policies stay empty",
			&autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}}},
			&autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: defaults.ScaleUp, ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](300), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect), Policies: []autoscalingv2.HPAScalingPolicy{}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before *autoscalingv2.HorizontalPodAutoscalerBehavior
			if c.in != nil {
				before = c.in.DeepCopy()
			}
			got := DefaultBehavior(c.in)
			if c.in != nil && !reflect.DeepEqual(c.in, before) {
				t.Errorf("input modified: %+v", c.in)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got up %+v down %+v, want up %+v down %+v", *got.ScaleUp, *got.ScaleDown, *c.want.ScaleUp, *c.want.ScaleDown)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	up := func(r *autoscalingv2.HPAScalingRules) *autoscalingv2.HorizontalPodAutoscalerBehavior {
		return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: r}
	}
	down := func(r *autoscalingv2.HPAScalingRules) *autoscalingv2.HorizontalPodAutoscalerBehavior {
		return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: r}
	}
	const (
		max = autoscalingv2.MaxChangePolicySelect
		min = autoscalingv2.MinChangePolicySelect
		off = autoscalingv2.DisabledPolicySelect
	)
	for _, c := range []struct {
		name                          string
		b                             *autoscalingv2.HorizontalPodAutoscalerBehavior
		min, max, current, desired    int32
		recs                          []Recommendation
		events                        []ScaleEvent
		want, wantStabilized          int32
		wantReason, wantAble, wantMsg string
	}{
		{name: "within range", min: 1, max: 10, current: 5, desired: 7,
			want: 7, wantStabilized: 7, wantReason: ReasonDesiredWithinRange, wantAble: ReasonReadyForNewScale,
			wantMsg: "the desired count is within the acceptable range"},
		{name: "no change", min: 1, max: 10, current: 5, desired: 5,
			want: 5, wantStabilized: 5, wantReason: ReasonDesiredWithinRange, wantAble: ReasonReadyForNewScale},
		{name: "scale-down stabilization keeps the highest of the last 5 minutes", min: 1, max: 20, current: 10, desired: 5,
			recs: []Recommendation{{ago(6 * time.Minute), 12}, {ago(4 * time.Minute), 9}, {ago(time.Minute), 7}},
			want: 9, wantStabilized: 9, wantReason: ReasonDesiredWithinRange, wantAble: ReasonScaleDownStabilized},
		{name: "scale-down stabilization never goes above current", min: 1, max: 20, current: 10, desired: 5,
			recs: []Recommendation{{ago(4 * time.Minute), 15}},
			want: 10, wantStabilized: 10, wantReason: ReasonDesiredWithinRange, wantAble: ReasonScaleDownStabilized},
		{name: "scale down once the window passed", min: 1, max: 20, current: 10, desired: 5,
			recs: []Recommendation{{ago(5 * time.Minute), 10}, {ago(6 * time.Minute), 12}},
			want: 5, wantStabilized: 5, wantReason: ReasonDesiredWithinRange, wantAble: ReasonReadyForNewScale},
		{name: "scale-up stabilization keeps the lowest of its window", b: up(rules(60, max, pods15(4))), min: 1, max: 20, current: 3, desired: 8,
			recs: []Recommendation{{ago(30 * time.Second), 4}, {ago(2 * time.Minute), 3}},
			want: 4, wantStabilized: 4, wantReason: ReasonDesiredWithinRange, wantAble: ReasonScaleUpStabilized},
		{name: "scale-up stabilization never goes below current", b: up(rules(60, max, pods15(4))), min: 1, max: 20, current: 3, desired: 8,
			recs: []Recommendation{{ago(30 * time.Second), 2}},
			want: 3, wantStabilized: 3, wantReason: ReasonDesiredWithinRange, wantAble: ReasonScaleUpStabilized},
		{name: "default scale-up: 4 pods beat 100% of 3", min: 1, max: 100, current: 3, desired: 20,
			want: 7, wantStabilized: 20, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale,
			wantMsg: "the desired replica count is increasing faster than the maximum scale rate"},
		{name: "default scale-up: 100% of 10 beats 4 pods", min: 1, max: 100, current: 10, desired: 50,
			want: 20, wantStabilized: 50, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "selectPolicy Min: 100% of 3 is less than 4 pods", b: up(rules(0, min, pods15(4), percent15(100))), min: 1, max: 100, current: 3, desired: 20,
			want: 6, wantStabilized: 20, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "selectPolicy Min: 4 pods are less than 100% of 10", b: up(rules(0, min, pods15(4), percent15(100))), min: 1, max: 100, current: 10, desired: 50,
			want: 14, wantStabilized: 50, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-up Disabled", b: up(rules(0, off, pods15(4))), min: 1, max: 100, current: 3, desired: 20,
			want: 3, wantStabilized: 20, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-up Disabled does not stop a scale-down", b: up(rules(0, off, pods15(4))), min: 1, max: 100, current: 3, desired: 2,
			recs: []Recommendation{{ago(10 * time.Minute), 3}}, want: 2, wantStabilized: 2, wantReason: ReasonDesiredWithinRange, wantAble: ReasonReadyForNewScale},
		{name: "scale-ups in the period count: at the limit already", min: 1, max: 100, current: 8, desired: 30,
			events: []ScaleEvent{{ago(10 * time.Second), 4}},
			want:   8, wantStabilized: 30, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-ups out of the period do not count", min: 1, max: 100, current: 8, desired: 30,
			events: []ScaleEvent{{ago(20 * time.Second), 4}},
			want:   16, wantStabilized: 30, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "a scale-down in the period raises the period's start: 100% of 10", min: 1, max: 100, current: 6, desired: 30,
			events: []ScaleEvent{{ago(10 * time.Second), -4}},
			want:   20, wantStabilized: 30, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "percent up rounds up: 10% of 5", b: up(rules(0, max, percent15(10))), min: 1, max: 100, current: 5, desired: 10,
			want: 6, wantStabilized: 10, wantReason: ReasonScaleUpLimit, wantAble: ReasonReadyForNewScale},
		{name: "percent down rounds down: 10% of 5", b: down(rules(0, max, percent15(10))), min: 1, max: 100, current: 5, desired: 1,
			want: 4, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale,
			wantMsg: "the desired replica count is decreasing faster than the maximum scale rate"},
		{name: "scale-down selectPolicy Max: 50% beats 2 pods", b: down(rules(0, max, pods15(2), percent15(50))), min: 1, max: 100, current: 10, desired: 1,
			want: 5, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-down selectPolicy Min: 2 pods", b: down(rules(0, min, pods15(2), percent15(50))), min: 1, max: 100, current: 10, desired: 1,
			want: 8, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-down Disabled", b: down(rules(0, off, percent15(100))), min: 1, max: 100, current: 10, desired: 1,
			want: 10, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "scale-downs in the period count", b: down(rules(0, max, percent15(50))), min: 1, max: 100, current: 6, desired: 1,
			events: []ScaleEvent{{ago(5 * time.Second), -4}},
			want:   5, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "past the scale-down limit already: hold", b: down(rules(0, max, percent15(50))), min: 1, max: 100, current: 4, desired: 1,
			events: []ScaleEvent{{ago(5 * time.Second), -6}},
			want:   4, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "no scale-down policies: hold", b: down(&autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Policies: []autoscalingv2.HPAScalingPolicy{}}),
			min: 1, max: 100, current: 10, desired: 1,
			want: 10, wantStabilized: 1, wantReason: ReasonScaleDownLimit, wantAble: ReasonReadyForNewScale},
		{name: "more than max", min: 1, max: 8, current: 5, desired: 20,
			want: 8, wantStabilized: 20, wantReason: ReasonTooManyReplicas, wantAble: ReasonReadyForNewScale,
			wantMsg: "the desired replica count is more than the maximum replica count"},
		{name: "less than min", b: down(rules(0, max, percent15(100))), min: 3, max: 10, current: 5, desired: 1,
			want: 3, wantStabilized: 1, wantReason: ReasonTooFewReplicas, wantAble: ReasonReadyForNewScale,
			wantMsg: "the desired replica count is less than the minimum replica count"},
		{name: "current above max", min: 1, max: 10, current: 12, desired: 12,
			want: 10, wantStabilized: 12, wantReason: ReasonTooManyReplicas, wantAble: ReasonReadyForNewScale},
		{name: "current below min", min: 2, max: 10, current: 1, desired: 1,
			want: 2, wantStabilized: 1, wantReason: ReasonTooFewReplicas, wantAble: ReasonReadyForNewScale},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := append([]Recommendation(nil), c.recs...)
			d := Normalize(c.b, c.min, c.max, c.current, c.desired, recs, c.events, now)
			if d.Replicas != c.want || d.Stabilized != c.wantStabilized {
				t.Errorf("replicas %d (stabilized %d), want %d (stabilized %d)", d.Replicas, d.Stabilized, c.want, c.wantStabilized)
			}
			if d.Reason != c.wantReason || d.AbleToScaleReason != c.wantAble {
				t.Errorf("reasons %s/%s, want %s/%s", d.Reason, d.AbleToScaleReason, c.wantReason, c.wantAble)
			}
			if c.wantMsg != "" && d.Message != c.wantMsg {
				t.Errorf("message %q, want %q", d.Message, c.wantMsg)
			}
			if d.Limited != (d.Replicas != d.Stabilized) || d.Limited != (d.Reason != ReasonDesiredWithinRange) {
				t.Errorf("limited %v with %s, %d of %d", d.Limited, d.Reason, d.Replicas, d.Stabilized)
			}
			if !reflect.DeepEqual(recs, c.recs) {
				t.Errorf("recommendations modified: %v", recs)
			}
			if last := d.Recommendations[len(d.Recommendations)-1]; last != (Recommendation{now, c.desired}) {
				t.Errorf("last recommendation %v, want %d now", last, c.desired)
			}
		})
	}
}

func TestNormalizeHistory(t *testing.T) {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	recs := []Recommendation{{ago(10 * time.Minute), 9}, {ago(5 * time.Minute), 8}, {ago(299 * time.Second), 7}, {ago(time.Minute), 6}}
	d := Normalize(nil, 1, 10, 6, 4, recs, nil, now)
	want := []Recommendation{{ago(299 * time.Second), 7}, {ago(time.Minute), 6}, {now, 4}}
	if !reflect.DeepEqual(d.Recommendations, want) {
		t.Errorf("history %v, want %v", d.Recommendations, want)
	}
	if d.Replicas != 6 {
		t.Errorf("replicas %d, want 6 (7 in the window, held at current)", d.Replicas)
	}

	// With a longer scale-up window the history lasts as long.
	b := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(600, autoscalingv2.MaxChangePolicySelect, pods15(4))}
	d = Normalize(b, 1, 10, 6, 4, recs, nil, now)
	if len(d.Recommendations) != 4 || d.Recommendations[0].Replicas != 8 {
		t.Errorf("history %v, want the last 3 and the new one", d.Recommendations)
	}

	// A window of 0 on both sides keeps only the new recommendation.
	b = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: rules(0, autoscalingv2.MaxChangePolicySelect, percent15(100))}
	d = Normalize(b, 1, 10, 6, 4, recs, nil, now)
	if !reflect.DeepEqual(d.Recommendations, []Recommendation{{now, 4}}) || d.Replicas != 4 {
		t.Errorf("history %v, replicas %d, want only the new one and 4", d.Recommendations, d.Replicas)
	}
}
