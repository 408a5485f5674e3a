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

package clusterresourcebindings

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/federation/resourcebindings"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

func specOf(b *federation.ClusterResourceBinding) *federation.ResourceBindingSpec { return &b.Spec }

// SelectableFields are the spec fields of a ClusterResourceBinding that field
// selectors can match.
var SelectableFields = resourcebindings.Fields(specOf)

var columns = resourcebindings.Columns(specOf, func(b *federation.ClusterResourceBinding) *federation.ResourceBindingStatus {
	return &b.Status
})

// NewStorage returns the storage of clusterresourcebindings and
// clusterresourcebindings/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.ClusterResourceBinding]{
		Resource:   federation.Resource("clusterresourcebindings"),
		Singular:   "clusterresourcebinding",
		NewList:    func() runtime.Object { return &federation.ClusterResourceBindingList{} },
		Strategy:   Strategy,
		ShortNames: []string{"crb"},
		Columns:    columns,
		Fields:     SelectableFields,
	})
}
