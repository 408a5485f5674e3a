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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// The write path of the Works, one for every controller that makes them (a binding's, for
// each cluster it goes to; the multi-cluster services' EndpointSlices and derived Services):
// the spec made from manifests, compared as JSON values, written once when it changed, and
// an update recorded in the view.

// Spec is a Work spec holding manifests, in order, as JSON.
func Spec(manifests ...*unstructured.Unstructured) (federationv1alpha1.WorkSpec, error) {
	out := federationv1alpha1.WorkSpec{}
	for _, m := range manifests {
		raw, err := json.Marshal(m.Object)
		if err != nil {
			return federationv1alpha1.WorkSpec{}, fmt.Errorf("encoding the manifest: %w", err)
		}
		out.Workload.Manifests = append(out.Workload.Manifests, runtime.RawExtension{Raw: raw})
	}
	return out, nil
}

// SpecEqual compares Work specs with their manifests as JSON values, not bytes.
func SpecEqual(a, b *federationv1alpha1.WorkSpec) bool {
	if !apiequality.Semantic.DeepEqual(a.SuspendDispatching, b.SuspendDispatching) ||
		!apiequality.Semantic.DeepEqual(a.PreserveResourcesOnDeletion, b.PreserveResourcesOnDeletion) ||
		len(a.Workload.Manifests) != len(b.Workload.Manifests) {
		return false
	}
	for i := range a.Workload.Manifests {
		if bytes.Equal(a.Workload.Manifests[i].Raw, b.Workload.Manifests[i].Raw) {
			continue // what fed wrote and reads back, most of the time
		}
		var x, y any
		if json.Unmarshal(a.Workload.Manifests[i].Raw, &x) != nil || json.Unmarshal(b.Workload.Manifests[i].Raw, &y) != nil {
			return false
		}
		if !apiequality.Semantic.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// ErrDeleting says a Work to write is being deleted: it is made again once gone.
var ErrDeleting = errors.New("the Work is still being deleted")

// Write makes the Work k hold spec and annotations: created with execution's finalizer when
// current (the Work as read) is nil, updated when its spec or annotations differ. It says
// whether it wrote. A Work that exists though current is nil (created a moment ago, by this
// controller or another worker, and not in the informer yet) is read from the API server
// and updated if it holds something else: nothing else brings its owner back, and a spec
// that changed in between (an OverridePolicy made right after the Work) was lost, the
// member keeping the Work's first spec (the fault campaign's seed 31337). One being
// deleted is ErrDeleting.
func (a *Access) Write(ctx context.Context, k types.NamespacedName, current *federationv1alpha1.Work, annotations map[string]string,
	spec federationv1alpha1.WorkSpec) (bool, error) {
	if current == nil {
		w := &federationv1alpha1.Work{
			ObjectMeta: metav1.ObjectMeta{Name: k.Name, Namespace: k.Namespace, Annotations: annotations,
				Finalizers: []string{federationv1alpha1.FinalizerExecution}},
			Spec: spec,
		}
		// The view serves the Work once the informer has it (it keeps newer copies of the
		// Works the informer has, not new ones).
		_, err := a.fed.FederationV1alpha1().Works(k.Namespace).Create(ctx, w, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return err == nil, err
		}
		if current, err = a.fed.FederationV1alpha1().Works(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{}); err != nil {
			return false, err // gone again meanwhile (NotFound): the next try makes it
		}
	}
	if current.DeletionTimestamp != nil {
		return false, fmt.Errorf("%s: %w", k, ErrDeleting)
	}
	if SpecEqual(&current.Spec, &spec) && apiequality.Semantic.DeepEqual(current.Annotations, annotations) {
		return false, nil
	}
	w := current.DeepCopy()
	w.Spec, w.Annotations = spec, annotations
	_, err := a.Update(ctx, w)
	return err == nil, err
}

// Update writes a changed copy of a Work and records it in the view.
func (a *Access) Update(ctx context.Context, w *federationv1alpha1.Work) (*federationv1alpha1.Work, error) {
	written, err := a.fed.FederationV1alpha1().Works(w.Namespace).Update(ctx, w, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	a.Wrote(written)
	return written, nil
}

// Delete deletes a Work if it is still the one w is, at w's resourceVersion; one already
// gone is no error, one replaced or changed meanwhile a Conflict (read it again, try
// again). The resourceVersion matters: the API server decides between deleting at once and
// waiting for finalizers on what it read before it deletes, so a Work whose execution
// finalizer was added in between went at once, without execution removing its objects from
// the member (a Work deleted right as it was first applied left its member's copy).
func (a *Access) Delete(ctx context.Context, w *federationv1alpha1.Work) error {
	uid, rv := w.UID, w.ResourceVersion
	err := a.fed.FederationV1alpha1().Works(w.Namespace).Delete(ctx, w.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Owned are the Works whose annotation says owner, in every namespace (those of a cluster
// that left the fleet too): the Works a controller other than the binding controller makes
// for an object of its own (a multi-cluster service's, a quota's). annotation is one of
// ownerAnnotations: the Works are read from the informer's index of them, not by a scan of
// every Work.
func (a *Access) Owned(annotation, owner string) map[types.NamespacedName]*federationv1alpha1.Work {
	have := map[types.NamespacedName]*federationv1alpha1.Work{}
	objs, _ := a.written.ByIndex(byOwner, annotation+"="+owner) // as OfBinding
	for _, obj := range objs {
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			have[types.NamespacedName{Namespace: w.Namespace, Name: w.Name}] = w
		}
	}
	return have
}

// Sync creates, updates and deletes Works (have: those whose annotation says owner, Owned)
// to match want.
func (a *Access) Sync(ctx context.Context, annotation, owner string, have map[types.NamespacedName]*federationv1alpha1.Work,
	want map[types.NamespacedName]federationv1alpha1.WorkSpec) error {
	var errs []error
	for key, spec := range want {
		current := have[key]
		wrote, err := a.Write(ctx, key, current, map[string]string{annotation: owner}, spec)
		switch {
		case errors.Is(err, ErrDeleting):
			// Made again once it is gone (its Work event brings the key back).
			errs = append(errs, reconciler.RequeueAfter(5*time.Second, nil))
		case apierrors.IsConflict(err):
			// Execution or workstatus wrote the Work meanwhile: again with the newer one.
			errs = append(errs, reconciler.ErrRetrySoon)
		case err != nil:
			errs = append(errs, err)
		case current == nil && !wrote:
			errs = append(errs, reconciler.ErrRetrySoon) // made meanwhile: the view has not got it yet
		}
	}
	for key, w := range have {
		if _, ok := want[key]; ok || w.DeletionTimestamp != nil {
			continue
		}
		if err := a.Delete(ctx, w); apierrors.IsConflict(err) {
			errs = append(errs, reconciler.ErrRetrySoon) // changed meanwhile: again with the newer one
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
