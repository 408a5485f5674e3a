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

package binding

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// WorkSpec is the spec of the Work of a binding for one member: the template's manifest
// first, then those of its dependencies.
func WorkSpec(manifests []*unstructured.Unstructured, spec *federationv1alpha1.ResourceBindingSpec, cluster string) (federationv1alpha1.WorkSpec, error) {
	out := federationv1alpha1.WorkSpec{PreserveResourcesOnDeletion: spec.PreserveResourcesOnDeletion}
	for _, m := range manifests {
		raw, err := json.Marshal(m.Object)
		if err != nil {
			return federationv1alpha1.WorkSpec{}, fmt.Errorf("encoding the manifest: %w", err)
		}
		out.Workload.Manifests = append(out.Workload.Manifests, runtime.RawExtension{Raw: raw})
	}
	if Suspended(spec.Suspension, cluster) {
		out.SuspendDispatching = ptr.To(true)
	}
	return out, nil
}

// Suspended says whether a binding's suspension stops updates to a cluster.
func Suspended(s *federationv1alpha1.Suspension, cluster string) bool {
	if s == nil {
		return false
	}
	if s.Dispatching != nil && *s.Dispatching {
		return true
	}
	if s.DispatchingOnClusters != nil {
		for _, name := range s.DispatchingOnClusters.ClusterNames {
			if name == cluster {
				return true
			}
		}
	}
	return false
}
