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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.CronFederatedHPA]{
	{Name: "Reference-Kind", Type: "string", Description: "The kind of the scaled workload or FederatedHPA.",
		Cell: func(h *federation.CronFederatedHPA) any { return h.Spec.ScaleTargetRef.Kind }},
	{Name: "Reference-Name", Type: "string", Description: "The name of the scaled workload or FederatedHPA.",
		Cell: func(h *federation.CronFederatedHPA) any { return h.Spec.ScaleTargetRef.Name }},
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
