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
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// The column is kubectl get quota's REQUEST: used/hard of each resource of the quota (fed
// enforces no limits.* across the fleet, so there is no LIMIT).
var columns = []registrykit.Column[*federation.FederatedResourceQuota]{
	{Name: "Request", Type: "string", Description: "What the namespace's scheduled workloads request across the fleet of each resource of the quota, of what the quota allows (used/hard), as fed last enforced it.",
		Cell: func(q *federation.FederatedResourceQuota) any { return usedOfHard(q.Status) }},
}

// usedOfHard prints "cpu: 1500m/8, pods: 3/20" for the resources of a quota's status, as
// kubectl prints a ResourceQuota; "<none>" before fed enforced the quota.
func usedOfHard(st federation.FederatedResourceQuotaStatus) string {
	names := make([]string, 0, len(st.Overall))
	for name := range st.Overall {
		names = append(names, string(name))
	}
	slices.Sort(names)
	items := make([]string, 0, len(names))
	for _, name := range names {
		hard := st.Overall[corev1.ResourceName(name)]
		used, ok := st.OverallUsed[corev1.ResourceName(name)]
		if !ok {
			used = resource.MustParse("0")
		}
		items = append(items, fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String()))
	}
	return registrykit.OrNone(strings.Join(items, ", "))
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
