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

package execution

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// inScope returns an error when manifest ordinal of w is not an object w may hold, so that
// nothing but the template a Work was made from (and its dependencies) ever reaches a
// member, whatever went wrong on the way (the binding controller checks the rendered
// manifests first; this is the last look before the member write):
//   - a ResourceBinding's Work ("N/B" in AnnotationBinding) holds objects of namespace N
//     only, and its first is the template itself, whose binding B is named after it;
//   - a ClusterResourceBinding's ("B") holds cluster-scoped objects, the first the template;
//   - a multi-cluster service's or ingress's, or a FederatedResourceQuota's ("N/name"),
//     holds objects of namespace N.
//
// namespaced is the object's scope in the member. A Work that names none of these (made
// by hand, by whoever may write Works in an execution namespace) is not checked.
func inScope(w *federationv1alpha1.Work, ordinal int, manifest *unstructured.Unstructured, namespaced bool) error {
	owner, binding := w.Annotations[federationv1alpha1.AnnotationBinding], true
	if owner == "" {
		binding = false
		if owner = w.Annotations[federationv1alpha1.AnnotationMultiClusterService]; owner == "" {
			owner = w.Annotations[federationv1alpha1.AnnotationMultiClusterIngress]
		}
		if owner == "" {
			owner = w.Annotations[federationv1alpha1.AnnotationFederatedResourceQuota]
		}
	}
	if owner == "" {
		return nil
	}
	namespace, name, found := strings.Cut(owner, "/")
	if !found {
		namespace, name = "", owner
	}
	what := fmt.Sprintf("manifest %d (%s %s)", ordinal, manifest.GetKind(), qualified(manifest))
	switch {
	case namespace != "" && !namespaced:
		return fmt.Errorf("%s is cluster-scoped, but the Work is of %s in namespace %s: fed applies nothing of it", what, owner, namespace)
	case namespace != "" && manifest.GetNamespace() != namespace:
		return fmt.Errorf("%s is not in namespace %s of %s: fed applies nothing of it", what, namespace, owner)
	case namespace == "" && namespaced:
		return fmt.Errorf("%s is namespaced, but the Work is of the cluster-scoped %s: fed applies nothing of it", what, owner)
	case binding && ordinal == 0 && federationv1alpha1.BindingName(manifest.GetKind(), manifest.GetName()) != name:
		return fmt.Errorf("%s is not the template of binding %s: fed applies nothing of it", what, owner)
	}
	return nil
}
