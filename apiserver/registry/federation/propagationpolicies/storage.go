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

package propagationpolicies

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Columns are the table columns of a propagation policy, namespaced or
// cluster-wide, whose spec spec returns.
func Columns[T registrykit.Object](spec func(T) *federation.PropagationSpec) []registrykit.Column[T] {
	return []registrykit.Column[T]{
		{Name: "Conflict-Resolution", Type: "string", Description: "What happens when a template meets an existing object in a member: Abort or Overwrite.",
			Cell: func(p T) any { return string(spec(p).ConflictResolution) }},
		{Name: "Priority", Type: "integer", Description: "Among policies matching the same template, the highest priority wins.",
			Cell: func(p T) any { return int64(ptr.Deref(spec(p).Priority, 0)) }},
	}
}

var columns = Columns(func(p *federation.PropagationPolicy) *federation.PropagationSpec { return &p.Spec })

// NewStorage returns the storage of propagationpolicies.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.PropagationPolicy]{
		Resource:   federation.Resource("propagationpolicies"),
		Singular:   "propagationpolicy",
		NewList:    func() runtime.Object { return &federation.PropagationPolicyList{} },
		Strategy:   Strategy,
		ShortNames: []string{"pp"},
		Columns:    columns,
	})
}
