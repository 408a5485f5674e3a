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

package workloadrebalancers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.WorkloadRebalancer]{
	{Name: "Workloads", Type: "integer", Description: "How many workloads the rebalancer names.",
		Cell: func(r *federation.WorkloadRebalancer) any { return int64(len(r.Spec.Workloads)) }},
	{Name: "Results", Type: "string", Description: "How many of them are rescheduled (Successful) and how many could not be (Failed).",
		Cell: func(r *federation.WorkloadRebalancer) any {
			var ok, failed int
			for _, o := range r.Status.ObservedWorkloads {
				switch o.Result {
				case federation.RebalanceSuccessful:
					ok++
				case federation.RebalanceFailed:
					failed++
				}
			}
			return fmt.Sprintf("%d Successful, %d Failed", ok, failed)
		}},
}

// NewStorage returns the storage of workloadrebalancers and workloadrebalancers/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.WorkloadRebalancer]{
		Resource: federation.Resource("workloadrebalancers"),
		Singular: "workloadrebalancer",
		NewList:  func() runtime.Object { return &federation.WorkloadRebalancerList{} },
		Strategy: Strategy,
		Columns:  columns,
	})
}
