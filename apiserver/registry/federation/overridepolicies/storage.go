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

package overridepolicies

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Columns are the table columns of an override policy, namespaced or
// cluster-wide, whose spec spec returns.
func Columns[T registrykit.Object](spec func(T) *federation.OverrideSpec) []registrykit.Column[T] {
	return []registrykit.Column[T]{
		{Name: "Rules", Type: "integer", Wide: true, Description: "The number of override rules.",
			Cell: func(p T) any { return int64(len(spec(p).OverrideRules)) }},
	}
}

var columns = Columns(func(p *federation.OverridePolicy) *federation.OverrideSpec { return &p.Spec })

// NewStorage returns the storage of overridepolicies.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.OverridePolicy]{
		Resource:   federation.Resource("overridepolicies"),
		Singular:   "overridepolicy",
		NewList:    func() runtime.Object { return &federation.OverridePolicyList{} },
		Strategy:   Strategy,
		ShortNames: []string{"op"},
		Columns:    columns,
	})
}
