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

package agents

import (
	"context"
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation"
)

// Admission lets an agent change nothing of its Works but their finalizers (execution's
// own) and their status: their manifests, labels and annotations (which tie a Work to its
// binding) are fed's, as a node's spec is not its kubelet's to change.
func Admission() admission.ValidationInterface {
	return &workRestriction{Handler: admission.NewHandler(admission.Update)}
}

type workRestriction struct{ *admission.Handler }

// Validate implements admission.ValidationInterface.
func (w *workRestriction) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != federation.Resource("works") || a.GetSubresource() != "" {
		return nil
	}
	u := a.GetUserInfo()
	if u == nil || !strings.HasPrefix(u.GetName(), clusterv1alpha1.AgentUserPrefix) {
		return nil
	}
	obj, ok1 := a.GetObject().(*federation.Work)
	old, ok2 := a.GetOldObject().(*federation.Work)
	if !ok1 || !ok2 {
		return nil
	}
	if !sameButFinalizers(obj, old) {
		return apierrors.NewForbidden(a.GetResource().GroupResource(), a.GetName(),
			fmt.Errorf("%s may change only the finalizers and the status of its Works", u.GetName()))
	}
	return nil
}

// sameButFinalizers says two Works differ at most in their finalizers and in what the
// server keeps (resourceVersion, generation, managedFields).
func sameButFinalizers(obj, old *federation.Work) bool {
	a, b := obj.ObjectMeta.DeepCopy(), old.ObjectMeta.DeepCopy()
	for _, m := range []*metav1.ObjectMeta{a, b} {
		m.Finalizers, m.ResourceVersion, m.Generation, m.ManagedFields = nil, "", 0, nil
	}
	return apiequality.Semantic.DeepEqual(a, b) && apiequality.Semantic.DeepEqual(obj.Spec, old.Spec)
}
