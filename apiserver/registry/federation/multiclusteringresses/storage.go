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

package multiclusteringresses

import (
	"cmp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.MultiClusterIngress]{
	{Name: "Hosts", Type: "string", Description: "The hosts of the rules; * for a rule without a host.",
		Cell: func(i *federation.MultiClusterIngress) any { return hosts(i) }},
	{Name: "Clusters", Type: "string", Description: "The clusters the Ingress is written into.",
		Cell: func(i *federation.MultiClusterIngress) any { return clusters(i.Status.Clusters) }},
}

// hosts are the hosts of the rules, * for a rule without one (or for an
// Ingress with a default backend only), as `kubectl get ingress` prints them.
func hosts(i *federation.MultiClusterIngress) string {
	rules := i.Spec.Template.Spec.Rules
	if len(rules) == 0 {
		return "*"
	}
	hs := make([]string, 0, len(rules))
	for _, r := range rules {
		hs = append(hs, cmp.Or(r.Host, "*"))
	}
	return strings.Join(hs, ",")
}

func clusters(cs []string) string {
	if len(cs) == 0 {
		return "<none>"
	}
	return strings.Join(cs, ",")
}

// NewStorage returns the storage of multiclusteringresses and
// multiclusteringresses/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.MultiClusterIngress]{
		Resource:   federation.Resource("multiclusteringresses"),
		Singular:   "multiclusteringress",
		NewList:    func() runtime.Object { return &federation.MultiClusterIngressList{} },
		Strategy:   Strategy,
		ShortNames: []string{"mci"},
		Columns:    columns,
	})
}
