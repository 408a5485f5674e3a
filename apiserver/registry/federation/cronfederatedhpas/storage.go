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

package cronfederatedhpas

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.CronFederatedHPA]{
	{Name: "Reference-Kind", Type: "string", Description: "The kind of the scaled workload or FederatedHPA.",
		Cell: func(h *federation.CronFederatedHPA) any { return h.Spec.ScaleTargetRef.Kind }},
	{Name: "Reference-Name", Type: "string", Description: "The name of the scaled workload or FederatedHPA.",
		Cell: func(h *federation.CronFederatedHPA) any { return h.Spec.ScaleTargetRef.Name }},
	{Name: "Rules", Type: "string", Description: "The names of the rules; a suspended one in parentheses.",
		Cell: func(h *federation.CronFederatedHPA) any { return rules(h) }},
	{Name: "Last-Schedule", Type: "string", Description: "When a rule last ran, as scheduled.",
		Cell: func(h *federation.CronFederatedHPA) any { return lastSchedule(h) }},
}

// rules names the rules, a suspended one in parentheses.
func rules(h *federation.CronFederatedHPA) string {
	var names []string
	for _, r := range h.Spec.Rules {
		if r.Suspend != nil && *r.Suspend {
			names = append(names, "("+r.Name+")")
			continue
		}
		names = append(names, r.Name)
	}
	return strings.Join(names, ",")
}

// lastSchedule is the latest scheduled time of a run of any rule, successful or not;
// "<none>" before the first.
func lastSchedule(h *federation.CronFederatedHPA) any {
	var last *metav1.Time
	for _, hist := range h.Status.ExecutionHistories {
		for _, e := range hist.SuccessfulExecutions {
			if e.ScheduleTime != nil && (last == nil || e.ScheduleTime.After(last.Time)) {
				last = e.ScheduleTime
			}
		}
		for _, e := range hist.FailedExecutions {
			if e.ScheduleTime != nil && (last == nil || e.ScheduleTime.After(last.Time)) {
				last = e.ScheduleTime
			}
		}
	}
	if last == nil {
		return "<none>"
	}
	return duration.HumanDuration(time.Since(last.Time))
}

// NewStorage returns the storage of cronfederatedhpas and cronfederatedhpas/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.CronFederatedHPA]{
		Resource:   federation.Resource("cronfederatedhpas"),
		Singular:   "cronfederatedhpa",
		NewList:    func() runtime.Object { return &federation.CronFederatedHPAList{} },
		Strategy:   Strategy,
		ShortNames: []string{"cronfhpa"},
		Columns:    columns,
	})
}
