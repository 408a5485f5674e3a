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

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
)

// scaleREST serves the scale subresource (autoscaling/v1 Scale) of native workloads from
// spec.replicas, status.replicas and spec.selector. apiextensions' ScaleREST serves custom
// resources' (see newStorage) but does not fit these: an unset spec.replicas means 1 here,
// an error there, and the selector is a LabelSelector, not a string at a labelSelectorPath.
type scaleREST struct {
	store *genericregistry.Store
	r     *resource
}

var (
	_ rest.Storage                  = &scaleREST{}
	_ rest.Patcher                  = &scaleREST{}
	_ rest.GroupVersionKindProvider = &scaleREST{}
)

func (s *scaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }
func (s *scaleREST) Destroy()            {}

func (s *scaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

func (s *scaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := s.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	return s.toScale(obj.(*unstructured.Unstructured))
}

func (s *scaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := s.store.Update(ctx, name, &scaleUpdate{scale: s, info: objInfo}, createValidation, func(ctx context.Context, obj, old runtime.Object) error {
		if updateValidation == nil {
			return nil
		}
		newScale, err := s.toScale(obj.(*unstructured.Unstructured))
		if err != nil {
			return err
		}
		oldScale, err := s.toScale(old.(*unstructured.Unstructured))
		if err != nil {
			return err
		}
		return updateValidation(ctx, newScale, oldScale)
	}, false, options)
	if err != nil {
		return nil, false, err
	}
	scale, err := s.toScale(obj.(*unstructured.Unstructured))
	return scale, false, err
}

func (s *scaleREST) toScale(u *unstructured.Unstructured) (*autoscalingv1.Scale, error) {
	replicas := int64(1) // what an unset spec.replicas means
	if v, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); err == nil && found {
		n, ok := asInt64(v)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("spec.replicas is not an integer: %v", v))
		}
		replicas = n
	}
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec: autoscalingv1.ScaleSpec{Replicas: int32(replicas)},
	}
	if v, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "replicas"); found {
		n, _ := asInt64(v)
		scale.Status.Replicas = int32(n)
	}
	if m, found, _ := unstructured.NestedMap(u.Object, "spec", "selector"); found {
		var ls metav1.LabelSelector
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err == nil {
			if sel, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
				scale.Status.Selector = sel.String()
			}
		}
	}
	return scale, nil
}

func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

// scaleUpdate turns an update of a Scale into an update of the object's replicas.
type scaleUpdate struct {
	scale *scaleREST
	info  rest.UpdatedObjectInfo
}

func (u *scaleUpdate) Preconditions() *metav1.Preconditions { return u.info.Preconditions() }

func (u *scaleUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	old := oldObj.(*unstructured.Unstructured)
	oldScale, err := u.scale.toScale(old)
	if err != nil {
		return nil, err
	}
	obj, err := u.info.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected autoscaling/v1 Scale, got %T", obj))
	}
	if scale.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, scale.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")})
	}
	if scale.ResourceVersion != "" && scale.ResourceVersion != old.GetResourceVersion() {
		return nil, apierrors.NewConflict(u.scale.r.gvr.GroupResource(), old.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	updated := old.DeepCopy()
	if err := unstructured.SetNestedField(updated.Object, int64(scale.Spec.Replicas), "spec", "replicas"); err != nil {
		return nil, err
	}
	recordScaleOwner(updated, scale.ManagedFields)
	return updated, nil
}

// scaleFields is what a write of the scale subresource owns of its object.
var scaleFields = metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}

// recordScaleOwner records in obj's managedFields that the writer of its scale subresource
// (the manager the request's Scale names, as kube-apiserver records it) owns spec.replicas,
// so that replicas a template left to its default and a scale then set are the writer's, and
// reach the members (trim.WritersOnly keeps only the fields some writer owns).
func recordScaleOwner(obj *unstructured.Unstructured, scaleManaged []metav1.ManagedFieldsEntry) {
	manager := "scale"
	for _, e := range scaleManaged {
		if e.Manager != "" {
			manager = e.Manager
		}
	}
	managed := obj.GetManagedFields()
	now := metav1.Now()
	for i, e := range managed {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationUpdate && e.Subresource == "scale" {
			managed[i].Time, managed[i].FieldsV1 = &now, scaleFields.DeepCopy()
			obj.SetManagedFields(managed)
			return
		}
	}
	obj.SetManagedFields(append(managed, metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: obj.GetAPIVersion(),
		Time: &now, FieldsType: "FieldsV1", FieldsV1: scaleFields.DeepCopy(), Subresource: "scale",
	}))
}
