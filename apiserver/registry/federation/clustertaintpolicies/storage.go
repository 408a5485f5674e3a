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

package clustertaintpolicies

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.ClusterTaintPolicy]{
	{Name: "Taints", Type: "string", Description: "The taints the policy adds and removes, as kubectl taint writes them (key=value:effect).",
		Cell: func(p *federation.ClusterTaintPolicy) any {
			taints := make([]string, len(p.Spec.Taints))
			for i, t := range p.Spec.Taints {
				taints[i] = (&corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}).ToString()
			}
			return registrykit.OrNone(strings.Join(taints, ","))
		}},
}

// NewStorage returns the storage of clustertaintpolicies.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ClusterTaintPolicy]{
		Resource:   federation.Resource("clustertaintpolicies"),
		Singular:   "clustertaintpolicy",
		NewList:    func() runtime.Object { return &federation.ClusterTaintPolicyList{} },
		Strategy:   Strategy,
		ShortNames: []string{"ctp"},
		Columns:    columns,
	})
}
