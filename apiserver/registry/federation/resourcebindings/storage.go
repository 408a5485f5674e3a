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

package resourcebindings

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Fields are the fields of a binding, namespaced or cluster-wide, whose spec
// spec returns, that field selectors can match: the kind and name of the
// template it binds.
func Fields[T registrykit.Object](spec func(T) *federation.ResourceBindingSpec) registrykit.Fields[T] {
	return registrykit.Fields[T]{
		{Label: "spec.resource.kind", Value: func(b T) string { return spec(b).Resource.Kind }},
		{Label: "spec.resource.name", Value: func(b T) string { return spec(b).Resource.Name }},
	}
}

// Columns are the table columns of a binding, namespaced or cluster-wide,
// whose spec and status spec and status return.
func Columns[T registrykit.Object](spec func(T) *federation.ResourceBindingSpec,
	status func(T) *federation.ResourceBindingStatus) []registrykit.Column[T] {
	return []registrykit.Column[T]{
		{Name: "Scheduled", Type: "string", Description: "The status of the Scheduled condition.",
			Cell: func(b T) any {
				return registrykit.ConditionStatus(status(b).Conditions, federation.BindingConditionScheduled)
			}},
		{Name: "FullyApplied", Type: "string", Description: "The status of the FullyApplied condition.",
			Cell: func(b T) any {
				return registrykit.ConditionStatus(status(b).Conditions, federation.BindingConditionFullyApplied)
			}},
		{Name: "Resource-Kind", Type: "string", Wide: true, Description: "The kind of the bound template.",
			Cell: func(b T) any { return spec(b).Resource.Kind }},
		{Name: "Resource-Name", Type: "string", Wide: true, Description: "The name of the bound template.",
			Cell: func(b T) any { return spec(b).Resource.Name }},
		{Name: "Clusters", Type: "string", Wide: true, Description: "The member clusters the template is bound to.",
			Cell: func(b T) any { return clusterNames(spec(b).Clusters) }},
	}
}

func clusterNames(targets []federation.TargetCluster) string {
	names := make([]string, 0, len(targets))
	for _, t := range targets {
		names = append(names, t.Name)
	}
	return registrykit.OrNone(strings.Join(names, ","))
}

func specOf(b *federation.ResourceBinding) *federation.ResourceBindingSpec { return &b.Spec }

// SelectableFields are the spec fields of a ResourceBinding that field
// selectors can match.
var SelectableFields = Fields(specOf)

var columns = Columns(specOf, func(b *federation.ResourceBinding) *federation.ResourceBindingStatus { return &b.Status })

// NewStorage returns the storage of resourcebindings and resourcebindings/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ResourceBinding]{
		Resource:   federation.Resource("resourcebindings"),
		Singular:   "resourcebinding",
		NewList:    func() runtime.Object { return &federation.ResourceBindingList{} },
		Strategy:   Strategy,
		ShortNames: []string{"rb"},
		Columns:    columns,
		Fields:     SelectableFields,
	})
}
