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
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// pod is a Running pod of member1 or member2 (by its index), started 10 minutes ago and
// ready since 9 minutes ago, requesting reqMilli of cpu (no request when negative).
func pod(i int, reqMilli int64, mods ...func(*PodInfo)) PodInfo {
	p := PodInfo{
		Cluster:         []string{"member1", "member2"}[i%2],
		Namespace:       "default",
		Name:            string(rune('a' + i)),
		Phase:           corev1.PodRunning,
		Ready:           true,
		StartTime:       now.Add(-10 * time.Minute),
		ReadyTransition: now.Add(-9 * time.Minute),
		Requests:        corev1.ResourceList{},
	}
	if reqMilli >= 0 {
		p.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(reqMilli, resource.DecimalSI)
	}
	for _, m := range mods {
		m(&p)
	}
	return p
}

// pods is n pods requesting 1 cpu each.
func pods(n int) []PodInfo {
	var out []PodInfo
	for i := range n {
		out = append(out, pod(i, 1000))
	}
	return out
}

// with changes pod i of ps.
func with(ps []PodInfo, i int, mods ...func(*PodInfo)) []PodInfo {
	for _, m := range mods {
		m(&ps[i])
	}
	return ps
}

// notReady is a pod whose readiness turned False 10s after its start (it never became
// ready).
func notReady(p *PodInfo) {
	p.Ready = false
	p.ReadyTransition = p.StartTime.Add(10 * time.Second)
}

// hot is a pod started a minute ago and ready since 20s, within the cpu initialization
// period and without a whole metric window since it became ready.
func hot(p *PodInfo) {
	p.StartTime = now.Add(-time.Minute)
	p.ReadyTransition = now.Add(-20 * time.Second)
}

func phase(ph corev1.PodPhase) func(*PodInfo) { return func(p *PodInfo) { p.Phase = ph } }

func deleting(p *PodInfo) { p.Deleting = true }

// levels are the usage of the first len(levels) pods, measured 15s ago over 30s; the other
// pods have no metrics.
func levels(ps []PodInfo, levels ...int64) map[PodKey]PodUsage {
	out := map[PodKey]PodUsage{}
	for i, l := range levels {
		out[ps[i].Key()] = PodUsage{MilliValue: l, Timestamp: now.Add(-15 * time.Second), Window: 30 * time.Second}
	}
	return out
}

func utilizationTarget(percent int32) autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)}
}

func valueTarget(q string) autoscalingv2.MetricTarget {
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse(q))}
}

func TestResourceReplicas(t *testing.T) {
	mi := func(n int64) int64 { return n * 1024 * 1024 * 1000 } // n Mi in milli-bytes
	memPod := func(i int, mods ...func(*PodInfo)) PodInfo {
		p := pod(i, -1, mods...)
		p.Requests[corev1.ResourceMemory] = resource.MustParse("100Mi")
		return p
	}
	type tc struct {
		name     string
		current  int32
		resource corev1.ResourceName // cpu when empty
		target   autoscalingv2.MetricTarget
		pods     []PodInfo
		levels   []int64
		want     int32
		wantUtil int32 // -1: no utilization
		wantAvg  int64
		wantErr  string
	}
	cases := []tc{
		{name: "scale up: 3 pods at 30/50/70% of 1 cpu, target 30%", current: 3, target: utilizationTarget(30),
			pods: pods(3), levels: []int64{300, 500, 700}, want: 5, wantUtil: 50, wantAvg: 500},
		{name: "scale up: 3 pods at 90%, target 30%", current: 3, target: utilizationTarget(30),
			pods: pods(3), levels: []int64{900, 900, 900}, want: 9, wantUtil: 90, wantAvg: 900},
		{name: "scale up with an unready pod counted at 0: less scale", current: 3, target: utilizationTarget(30),
			pods: with(pods(3), 0, notReady), levels: []int64{300, 500, 700}, want: 4, wantUtil: 60, wantAvg: 600},
		{name: "scale up with a hot cpu pod counted at 0: less scale", current: 3, target: utilizationTarget(30),
			pods: with(pods(3), 0, hot), levels: []int64{300, 500, 700}, want: 4, wantUtil: 60, wantAvg: 600},
		{name: "unready pods at 0 turn the scale-up around: no scale", current: 3, target: utilizationTarget(30),
			pods: with(with(pods(3), 1, notReady), 2, notReady), levels: []int64{400, 500, 700}, want: 3, wantUtil: 40, wantAvg: 400},
		{name: "hot cpu pods at 0 turn the scale-up around: no scale", current: 3, target: utilizationTarget(30),
			pods: with(with(pods(3), 1, hot), 2, hot), levels: []int64{400, 500, 700}, want: 3, wantUtil: 40, wantAvg: 400},
		{name: "failed and deleting pods are ignored, requests or not", current: 2, target: utilizationTarget(30),
			pods:   append(pods(2), pod(2, -1, phase(corev1.PodFailed)), pod(3, 1000, deleting)),
			levels: []int64{500, 700, 100, 100}, want: 4, wantUtil: 60, wantAvg: 600},
		{name: "scale down: 5 pods at 28%, target 50%", current: 5, target: utilizationTarget(50),
			pods: pods(5), levels: []int64{100, 300, 500, 250, 250}, want: 3, wantUtil: 28, wantAvg: 280},
		{name: "scale down ignores unready pods", current: 5, target: utilizationTarget(50),
			pods: with(with(pods(5), 3, notReady), 4, notReady), levels: []int64{100, 300, 500, 250, 250}, want: 2, wantUtil: 30, wantAvg: 300},
		{name: "scale down ignores hot cpu pods", current: 5, target: utilizationTarget(50),
			pods: with(with(pods(5), 3, hot), 4, hot), levels: []int64{100, 300, 500, 250, 250}, want: 2, wantUtil: 30, wantAvg: 300},
		{name: "scale down ignores pending pods", current: 5, target: utilizationTarget(50),
			pods:   with(with(with(with(pods(5), 1, phase(corev1.PodPending)), 2, phase(corev1.PodPending)), 3, phase(corev1.PodPending)), 4, phase(corev1.PodPending)),
			levels: []int64{100}, want: 1, wantUtil: 10, wantAvg: 100},
		{name: "within tolerance: 102% of 100% keeps the replicas", current: 3, target: utilizationTarget(100),
			pods: []PodInfo{pod(0, 900), pod(1, 1000), pod(2, 1100)}, levels: []int64{1010, 1030, 1020}, want: 3, wantUtil: 102, wantAvg: 1020},
		{name: "tolerance 0 scales on 102%", current: 3, target: utilizationTarget(100),
			pods: []PodInfo{pod(0, 900), pod(1, 1000), pod(2, 1100)}, levels: []int64{1010, 1030, 1020}, want: 4, wantUtil: 102, wantAvg: 1020},
		{name: "missing metrics count as 100% of request on a scale-down", current: 4, target: utilizationTarget(100),
			pods: pods(4), levels: []int64{400, 95}, want: 3, wantUtil: 24, wantAvg: 247},
		{name: "missing metrics at exactly the target: no change", current: 2, target: utilizationTarget(100),
			pods: pods(2), levels: []int64{1000}, want: 2, wantUtil: 100, wantAvg: 1000},
		{name: "missing metrics at 0 bring the scale-up within tolerance", current: 2, target: utilizationTarget(100),
			pods: pods(2), levels: []int64{1900}, want: 2, wantUtil: 190, wantAvg: 1900},
		{name: "missing metrics at 100% leave the scale-down at current", current: 2, target: utilizationTarget(100),
			pods: pods(2), levels: []int64{600}, want: 2, wantUtil: 60, wantAvg: 600},
		{name: "missing metrics turn the scale-down around: no change", current: 3, target: utilizationTarget(50),
			pods: with(pods(3), 0, notReady), levels: []int64{100, 450}, want: 3, wantUtil: 45, wantAvg: 450},
		{name: "missing and unready pods at 0 on a scale-up", current: 3, target: utilizationTarget(50),
			pods: with(pods(3), 0, notReady), levels: []int64{100, 2000}, want: 4, wantUtil: 200, wantAvg: 2000},
		{name: "missing pods at request, unready ignored, on a scale-down", current: 4, target: utilizationTarget(50),
			pods: with(pods(4), 0, notReady), levels: []int64{100, 100, 100}, want: 3, wantUtil: 10, wantAvg: 100},
		{name: "missing pods at the target when it is over 100%", current: 4, target: utilizationTarget(300),
			pods:   []PodInfo{pod(0, 1000, notReady), pod(1, 1000), pod(2, 2000), pod(3, 2000)},
			levels: []int64{200, 100, 100}, want: 2, wantUtil: 6, wantAvg: 100},
		{name: "surge pod without metrics would scale up on a scale-down: no change", current: 2, target: utilizationTarget(50),
			pods: pods(3), levels: []int64{100, 100}, want: 2, wantUtil: 10, wantAvg: 100},
		{name: "missing request", current: 2, target: utilizationTarget(50),
			pods: []PodInfo{pod(0, 1000), pod(1, -1)}, levels: []int64{100, 100}, wantErr: "missing request for cpu in pod member2/default/b"},
		{name: "missing request of a pod without metrics", current: 3, target: utilizationTarget(50),
			pods: []PodInfo{pod(0, 1000), pod(1, 1000), pod(2, -1)}, levels: []int64{100, 100}, wantErr: "missing request for cpu in pod member1/default/c"},
		{name: "requests of 0", current: 1, target: utilizationTarget(50),
			pods: []PodInfo{pod(0, 0)}, levels: []int64{100}, wantErr: "no requests of cpu"},
		{name: "average value: 700m on average for 500m", current: 3, target: valueTarget("500m"),
			pods: []PodInfo{pod(0, -1), pod(1, -1), pod(2, -1)}, levels: []int64{600, 700, 800}, want: 5, wantUtil: -1, wantAvg: 700},
		{name: "average value within tolerance", current: 3, target: valueTarget("500m"),
			pods: []PodInfo{pod(0, -1), pod(1, -1), pod(2, -1)}, levels: []int64{500, 520, 530}, want: 3, wantUtil: -1, wantAvg: 516},
		{name: "average value: a missing pod counts as the target on a scale-down", current: 3, target: valueTarget("500m"),
			pods: []PodInfo{pod(0, -1), pod(1, -1), pod(2, -1)}, levels: []int64{200, 300}, want: 2, wantUtil: -1, wantAvg: 250},
		{name: "average value: missing and unready pods count as 0 on a scale-up", current: 4, target: valueTarget("500m"),
			pods:   []PodInfo{pod(0, -1, notReady), pod(1, -1), pod(2, -1), pod(3, -1)},
			levels: []int64{0, 1000, 1000}, want: 4, wantUtil: -1, wantAvg: 1000},
		{name: "average value wins over utilization", current: 3, target: autoscalingv2.MetricTarget{AverageValue: ptr.To(resource.MustParse("500m")), AverageUtilization: ptr.To[int32](10)},
			pods: []PodInfo{pod(0, -1), pod(1, -1), pod(2, -1)}, levels: []int64{600, 700, 800}, want: 5, wantUtil: -1, wantAvg: 700},
		{name: "memory: a pod that is not ready counts", current: 2, resource: corev1.ResourceMemory, target: valueTarget("100Mi"),
			pods: []PodInfo{memPod(0), memPod(1, hot, notReady)}, levels: []int64{mi(200), mi(200)}, want: 4, wantUtil: -1, wantAvg: mi(200)},
		{name: "memory: a pending pod is unready", current: 2, resource: corev1.ResourceMemory, target: utilizationTarget(50),
			pods: []PodInfo{memPod(0), memPod(1, phase(corev1.PodPending))}, levels: []int64{mi(100), mi(100)}, want: 2, wantUtil: 100, wantAvg: mi(100)},
		{name: "utilization target of 0", current: 2, target: utilizationTarget(0),
			pods: pods(2), levels: []int64{100, 100}, wantErr: "invalid utilization target 0% for cpu"},
		{name: "average value target of 0", current: 2, target: valueTarget("0"),
			pods: pods(2), levels: []int64{100, 100}, wantErr: "invalid average value target 0 for cpu"},
		{name: "no pod with metrics", current: 2, target: utilizationTarget(50),
			pods: with(pods(2), 0, notReady), levels: []int64{100}, wantErr: "did not receive metrics"},
		{name: "no pods", current: 2, target: utilizationTarget(50), wantErr: "no pods"},
		{name: "no target", current: 2, target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType},
			pods: pods(2), levels: []int64{100, 100}, wantErr: "neither an average utilization nor an average value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultResourceOptions(now)
			if strings.HasPrefix(c.name, "tolerance 0") {
				opts.Tolerance = 0
			}
			res := c.resource
			if res == "" {
				res = corev1.ResourceCPU
			}
			got, err := ResourceReplicas(c.current, res, c.target, c.pods, levels(c.pods, c.levels...), opts)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Replicas != c.want {
				t.Errorf("replicas %d, want %d", got.Replicas, c.want)
			}
			switch {
			case c.wantUtil < 0 && got.Utilization != nil:
				t.Errorf("utilization %d, want none", *got.Utilization)
			case c.wantUtil >= 0 && (got.Utilization == nil || *got.Utilization != c.wantUtil):
				t.Errorf("utilization %v, want %d", got.Utilization, c.wantUtil)
			}
			if got.AverageMilli != c.wantAvg {
				t.Errorf("average %d, want %d", got.AverageMilli, c.wantAvg)
			}
			if want := now.Add(-15 * time.Second); !got.Timestamp.Equal(want) {
				t.Errorf("timestamp %v, want %v", got.Timestamp, want)
			}
		})
	}
}

func TestResourceReplicasTimestamp(t *testing.T) {
	ps := pods(3)
	usage := levels(ps, 500, 500, 500)
	u := usage[ps[1].Key()]
	u.Timestamp = now.Add(-40 * time.Second)
	usage[ps[1].Key()] = u
	got, err := ResourceReplicas(3, corev1.ResourceCPU, utilizationTarget(50), ps, usage, DefaultResourceOptions(now))
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(-40 * time.Second); !got.Timestamp.Equal(want) {
		t.Errorf("timestamp %v, want the oldest %v", got.Timestamp, want)
	}
	if got.Replicas != 3 || *got.Utilization != 50 {
		t.Errorf("replicas %d at %d%%, want 3 at 50%%", got.Replicas, *got.Utilization)
	}
}

func TestGroupPods(t *testing.T) {
	at := func(start, transition time.Duration, ready bool) func(*PodInfo) {
		return func(p *PodInfo) {
			p.StartTime, p.ReadyTransition, p.Ready = now.Add(-start), now.Add(-transition), ready
		}
	}
	for _, c := range []struct {
		name     string
		resource corev1.ResourceName
		pod      PodInfo
		usage    *PodUsage
		want     string
	}{
		{"memory: a pod that is not ready, with metrics", corev1.ResourceMemory, pod(0, 0, at(time.Minute, 10*time.Second, false)),
			&PodUsage{Timestamp: now, Window: time.Minute}, "ready"},
		{"cpu: no ready condition", corev1.ResourceCPU, pod(0, 0, func(p *PodInfo) { p.ReadyTransition = time.Time{} }),
			&PodUsage{Timestamp: now, Window: time.Minute}, "unready"},
		{"cpu: no start time", corev1.ResourceCPU, pod(0, 0, func(p *PodInfo) { p.StartTime = time.Time{} }),
			&PodUsage{Timestamp: now, Window: time.Minute}, "unready"},
		{"cpu: ready, a whole window since, in the initialization period", corev1.ResourceCPU, pod(0, 0, at(time.Minute, 30*time.Second, true)),
			&PodUsage{Timestamp: now, Window: 30 * time.Second}, "ready"},
		{"cpu: ready, not a whole window since, in the initialization period", corev1.ResourceCPU, pod(0, 0, at(time.Minute, 30*time.Second, true)),
			&PodUsage{Timestamp: now, Window: time.Minute}, "unready"},
		{"cpu: not ready in the initialization period", corev1.ResourceCPU, pod(0, 0, at(4*time.Minute, 3*time.Minute, false)),
			&PodUsage{Timestamp: now, Window: 30 * time.Second}, "unready"},
		{"cpu: ready with an old sample after the initialization period", corev1.ResourceCPU, pod(0, 0, at(10*time.Minute, 3*time.Minute, true)),
			&PodUsage{Timestamp: now.Add(-2 * time.Minute), Window: time.Minute}, "ready"},
		{"cpu: not ready, ready once after the initial delay", corev1.ResourceCPU, pod(0, 0, at(10*time.Minute, 9*time.Minute, false)),
			&PodUsage{Timestamp: now, Window: time.Minute}, "ready"},
		{"cpu: not ready, never ready after the initial delay", corev1.ResourceCPU, pod(0, 0, at(10*time.Minute, 9*time.Minute+50*time.Second, false)),
			&PodUsage{Timestamp: now, Window: time.Minute}, "unready"},
		{"no metrics", corev1.ResourceCPU, pod(0, 0), nil, "missing"},
		{"pending with metrics", corev1.ResourceMemory, pod(0, 0, phase(corev1.PodPending)), &PodUsage{Timestamp: now}, "unready"},
		{"pending without metrics", corev1.ResourceCPU, pod(0, 0, phase(corev1.PodPending)), nil, "unready"},
		{"succeeded with metrics", corev1.ResourceCPU, pod(0, 0, phase(corev1.PodSucceeded)), &PodUsage{Timestamp: now, Window: time.Minute}, "ready"},
		{"deleting", corev1.ResourceCPU, pod(0, 0, deleting), &PodUsage{Timestamp: now}, "ignored"},
		{"failed", corev1.ResourceCPU, pod(0, 0, phase(corev1.PodFailed)), nil, "ignored"},
	} {
		t.Run(c.name, func(t *testing.T) {
			usage := map[PodKey]PodUsage{}
			if c.usage != nil {
				usage[c.pod.Key()] = *c.usage
			}
			g := groupPods([]PodInfo{c.pod}, usage, c.resource, DefaultResourceOptions(now))
			got := "ignored"
			switch {
			case len(g.ready) == 1:
				got = "ready"
			case len(g.unready) == 1:
				got = "unready"
			case len(g.missing) == 1:
				got = "missing"
			}
			if n := len(g.ready) + len(g.unready) + len(g.missing); n > 1 {
				t.Fatalf("pod in %d groups", n)
			}
			if got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}
