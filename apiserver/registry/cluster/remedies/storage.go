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

// Package remedies stores Remedies, which call for actions on the member clusters whose
// conditions match.
package remedies

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/cluster"
	"github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes Remedies. The author is recorded: fed writes a
// remedy's actions only while its author may update the status of Clusters.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*cluster.Remedy]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *cluster.Remedy { return &cluster.Remedy{} },
	Parts:        func(r *cluster.Remedy) (spec, status any) { return &r.Spec, nil },

	Validate:       validation.ValidateRemedy,
	ValidateUpdate: validation.ValidateRemedyUpdate,
	RecordAuthor:   true,
})

var columns = []registrykit.Column[*cluster.Remedy]{
	{Name: "Clusters", Type: "string", Description: "The clusters the remedy looks at; <all> without a clusterAffinity.",
		Cell: func(r *cluster.Remedy) any {
			if r.Spec.ClusterAffinity == nil {
				return "<all>"
			}
			return registrykit.OrNone(strings.Join(r.Spec.ClusterAffinity.ClusterNames, ","))
		}},
	{Name: "Actions", Type: "string", Description: "The actions taken on a cluster where a decision match holds.",
		Cell: func(r *cluster.Remedy) any {
			actions := make([]string, len(r.Spec.Actions))
			for i, a := range r.Spec.Actions {
				actions[i] = string(a)
			}
			return registrykit.OrNone(strings.Join(actions, ","))
		}},
}

// NewStorage returns the storage of remedies.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*cluster.Remedy]{
		Resource: cluster.Resource("remedies"),
		Singular: "remedy",
		NewList:  func() runtime.Object { return &cluster.RemedyList{} },
		Strategy: Strategy,
		Columns:  columns,
	})
}
