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

// Package workloadrebalancers stores WorkloadRebalancers, which have fed schedule named
// workloads afresh, once.
package workloadrebalancers

import (
	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes WorkloadRebalancers. The author is recorded: fed
// reschedules a workload only when the rebalancer's author may update its template.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*federation.WorkloadRebalancer]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *federation.WorkloadRebalancer { return &federation.WorkloadRebalancer{} },
	Parts:        func(r *federation.WorkloadRebalancer) (spec, status any) { return &r.Spec, &r.Status },
	RecordAuthor: true,

	Validate:             validation.ValidateWorkloadRebalancer,
	ValidateUpdate:       validation.ValidateWorkloadRebalancerUpdate,
	ValidateStatusUpdate: validation.ValidateWorkloadRebalancerStatusUpdate,
})

// StatusStrategy writes the status of WorkloadRebalancers.
var StatusStrategy = Strategy.StatusStrategy()
