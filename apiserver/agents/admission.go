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

	clusterapi "github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation"
)

// Admission lets an agent change nothing of its Works but their finalizers (execution's
// own) and their status: their manifests, labels and annotations (which tie a Work to its
// binding) are fed's, as a node's spec is not its kubelet's to change. And it keeps a
// Cluster's status.remedyActions as stored when an agent writes its Cluster's status: the
// remedy controller is its one writer, and an agent built before the field existed writes
// it empty.
func Admission() interface {
	admission.MutationInterface
	admission.ValidationInterface
} {
	return &restriction{Handler: admission.NewHandler(admission.Update)}
}

type restriction struct{ *admission.Handler }

var (
	_ admission.MutationInterface   = &restriction{}
	_ admission.ValidationInterface = &restriction{}
)

// isAgent says whether a request is an agent's.
func isAgent(a admission.Attributes) bool {
	u := a.GetUserInfo()
	return u != nil && strings.HasPrefix(u.GetName(), clusterv1alpha1.AgentUserPrefix)
}

// Admit implements admission.MutationInterface.
func (w *restriction) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != clusterapi.Resource("clusters") || a.GetSubresource() != "status" || !isAgent(a) {
		return nil
	}
	obj, ok1 := a.GetObject().(*clusterapi.Cluster)
	old, ok2 := a.GetOldObject().(*clusterapi.Cluster)
	if ok1 && ok2 {
		obj.Status.RemedyActions = old.Status.RemedyActions
	}
	return nil
}

// Validate implements admission.ValidationInterface.
func (w *restriction) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != federation.Resource("works") || a.GetSubresource() != "" {
		return nil
	}
	if !isAgent(a) {
		return nil
	}
	u := a.GetUserInfo()
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
