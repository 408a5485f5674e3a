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

package federatedresourcequotas

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.FederatedResourceQuota]{
	{Name: "Overall", Type: "string", Description: "The namespace's quota across the fleet, as fed last enforced it.",
		Cell: func(q *federation.FederatedResourceQuota) any { return registrykit.ResourceList(q.Status.Overall) }},
	{Name: "Overall_Used", Type: "string", Description: "What the namespace's scheduled workloads request across the fleet, of each resource of the quota.",
		Cell: func(q *federation.FederatedResourceQuota) any { return registrykit.ResourceList(q.Status.OverallUsed) }},
}

// NewStorage returns the storage of federatedresourcequotas and
// federatedresourcequotas/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.FederatedResourceQuota]{
		Resource:   federation.Resource("federatedresourcequotas"),
		Singular:   "federatedresourcequota",
		NewList:    func() runtime.Object { return &federation.FederatedResourceQuotaList{} },
		Strategy:   Strategy,
		ShortNames: []string{"frq"},
		Columns:    columns,
	})
}
