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

package fleet

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// DeletionProtection refuses to delete a template labelled
// resourcetemplate.fedhq.io/deletion-protected=Always (Karmada's
// resourcetemplate.karmada.io/deletion-protected): through the fleet, a Helm uninstall, a
// `kubectl delete --all` (each object is admitted) or its namespace's deletion (which
// waits, Terminating, until the label goes). The label removed, it deletes as any other.
type DeletionProtection struct {
	*admission.Handler
}

var _ admission.ValidationInterface = &DeletionProtection{}

// NewDeletionProtection returns the admission.
func NewDeletionProtection() *DeletionProtection {
	return &DeletionProtection{Handler: admission.NewHandler(admission.Delete)}
}

// Validate implements admission.ValidationInterface.
func (p *DeletionProtection) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetOperation() != admission.Delete || a.GetSubresource() != "" || a.GetOldObject() == nil {
		return nil
	}
	if err := deletionProtected(a.GetOldObject(), a.GetResource().GroupResource()); err != nil {
		return admission.NewForbidden(a, err)
	}
	return nil
}

// deletionProtected says why an object of gr may not be deleted, or nil.
func deletionProtected(obj runtime.Object, gr schema.GroupResource) error {
	m, err := meta.Accessor(obj)
	if err != nil || m.GetLabels()[federationv1alpha1.LabelDeletionProtected] != federationv1alpha1.DeletionProtectedAlways {
		return nil
	}
	what := strings.TrimSuffix(gr.String(), ".")
	unlabel := fmt.Sprintf("kubectl label %s %s %s-", what, m.GetName(), federationv1alpha1.LabelDeletionProtected)
	if ns := m.GetNamespace(); ns != "" {
		unlabel = fmt.Sprintf("kubectl label %s %s -n %s %s-", what, m.GetName(), ns, federationv1alpha1.LabelDeletionProtected)
	}
	return fmt.Errorf("it is protected from deletion by its label %s=%s: to delete it, remove the label first (%s)",
		federationv1alpha1.LabelDeletionProtected, federationv1alpha1.DeletionProtectedAlways, unlabel)
}
