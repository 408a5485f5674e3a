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

package replicaschedulingpolicies

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.ReplicaSchedulingPolicy]{
	{Name: "Enabled", Type: "boolean", Description: "Whether fed moves replicas under the policy.",
		Cell: func(p *federation.ReplicaSchedulingPolicy) any { return enabled(p) }},
	{Name: "Interval", Type: "string", Description: "How often fed compares the members' load with the threshold.",
		Cell: func(p *federation.ReplicaSchedulingPolicy) any { return interval(p) }},
	{Name: "CPU", Type: "string", Description: "The percentage of its allocatable CPU a member's pods may request before replicas move off it.",
		Cell: func(p *federation.ReplicaSchedulingPolicy) any { return threshold(p, cpu) }},
	{Name: "Memory", Type: "string", Description: "The percentage of its allocatable memory a member's pods may request before replicas move off it.",
		Cell: func(p *federation.ReplicaSchedulingPolicy) any { return threshold(p, memory) }},
	{Name: "Last-Rebalance", Type: "string", Description: "When fed last compared the members' load with the threshold.",
		Cell: func(p *federation.ReplicaSchedulingPolicy) any { return lastRebalance(p) }},
}

func enabled(p *federation.ReplicaSchedulingPolicy) bool {
	return p.Spec.ReschedulePolicy != nil && p.Spec.ReschedulePolicy.Enabled
}

// interval is the interval as Go prints a duration, "<none>" when unset.
func interval(p *federation.ReplicaSchedulingPolicy) string {
	if rp := p.Spec.ReschedulePolicy; rp != nil && rp.Interval != nil {
		return rp.Interval.Duration.String()
	}
	return "<none>"
}

func cpu(t *federation.RescheduleThreshold) *int32    { return t.CPUUtilization }
func memory(t *federation.RescheduleThreshold) *int32 { return t.MemoryUtilization }

// threshold is one threshold as a percentage, "<none>" when unset.
func threshold(p *federation.ReplicaSchedulingPolicy, of func(*federation.RescheduleThreshold) *int32) string {
	if rp := p.Spec.ReschedulePolicy; rp != nil && rp.Threshold != nil {
		if v := of(rp.Threshold); v != nil {
			return fmt.Sprintf("%d%%", *v)
		}
	}
	return "<none>"
}

// lastRebalance is the time since the last rebalance, "<none>" before the
// first.
func lastRebalance(p *federation.ReplicaSchedulingPolicy) string {
	if t := p.Status.LastRebalanceTime; t != nil {
		return duration.HumanDuration(time.Since(t.Time))
	}
	return "<none>"
}

// NewStorage returns the storage of replicaschedulingpolicies and
// replicaschedulingpolicies/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ReplicaSchedulingPolicy]{
		Resource:   federation.Resource("replicaschedulingpolicies"),
		Singular:   "replicaschedulingpolicy",
		NewList:    func() runtime.Object { return &federation.ReplicaSchedulingPolicyList{} },
		Strategy:   Strategy,
		ShortNames: []string{"rsp"},
		Columns:    columns,
	})
}
