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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/works"
)

// WorkSpec is the spec of the Work of a binding for one member: the template's manifest
// first, then those of its dependencies.
func WorkSpec(manifests []*unstructured.Unstructured, spec *federationv1alpha1.ResourceBindingSpec, cluster string) (federationv1alpha1.WorkSpec, error) {
	out, err := works.Spec(manifests...)
	if err != nil {
		return out, err
	}
	out.PreserveResourcesOnDeletion = spec.PreserveResourcesOnDeletion
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
