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

package works

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.Work]{
	{Name: "Workload-Kind", Type: "string", Description: "The kind of the first manifest.",
		Cell: func(w *federation.Work) any { return workloadKind(w.Spec.Workload.Manifests) }},
	{Name: "Applied", Type: "string", Description: "The status of the Applied condition.",
		Cell: func(w *federation.Work) any {
			return registrykit.ConditionStatus(w.Status.Conditions, federation.WorkConditionApplied)
		}},
}

// workloadKind returns the kind of the first manifest.
func workloadKind(manifests []runtime.RawExtension) string {
	if len(manifests) == 0 {
		return "<none>"
	}
	if obj := manifests[0].Object; obj != nil {
		return obj.GetObjectKind().GroupVersionKind().Kind
	}
	var typeMeta metav1.TypeMeta
	if err := json.Unmarshal(manifests[0].Raw, &typeMeta); err != nil || typeMeta.Kind == "" {
		return "<unknown>"
	}
	return typeMeta.Kind
}

// NewStorage returns the storage of works and works/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.Work]{
		Resource: federation.Resource("works"),
		Singular: "work",
		NewList:  func() runtime.Object { return &federation.WorkList{} },
		Strategy: Strategy,
		Columns:  columns,
	})
}
