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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apiserver/fleet/crd"
)

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crdGK  = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
)

// crdHooks makes CustomResourceDefinition templates behave as in a cluster: validated and
// defaulted by the apiextensions rules, established at once (status), and their kinds
// served by the fleet as soon as they are written.
func (f *Fleet) crdHooks(r *resource) {
	if r.gvr != crdGVR {
		return
	}
	r.validate = func(ctx context.Context, obj *unstructured.Unstructured, _ string) ([]string, *unstructured.Unstructured, error) {
		if errs := crd.ValidateCreate(ctx, obj); len(errs) > 0 {
			return nil, nil, apierrors.NewInvalid(crdGK, obj.GetName(), errs)
		}
		return crd.Warnings(ctx, obj, nil), nil, nil
	}
	r.validateUpdate = func(ctx context.Context, obj, old *unstructured.Unstructured, _ string) ([]string, *unstructured.Unstructured, error) {
		if errs := crd.ValidateUpdate(ctx, obj, old); len(errs) > 0 {
			return nil, nil, apierrors.NewInvalid(crdGK, obj.GetName(), errs)
		}
		return crd.Warnings(ctx, obj, old), nil, nil
	}
	r.prepare = func(obj *unstructured.Unstructured) {
		if err := crd.Default(obj); err != nil {
			return // validation reports it
		}
		crd.SetStatus(obj, f.takenNames(obj), metav1.Now())
	}
	r.changed = func() {
		go func() {
			if err := f.refresh(context.Background()); err != nil {
				klog.ErrorS(err, "Serving the kinds of the fleet's CustomResourceDefinitions")
			}
		}()
	}
}

// takenNames are the names a CRD of obj's group may not take: those of the fleet's other
// CRDs in the group and of the host's native kinds in it.
func (f *Fleet) takenNames(obj *unstructured.Unstructured) crd.Names {
	group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
	names := crd.TakenNames(group, f.crdTemplates(context.Background()), obj.GetName())
	if host := f.host.Load(); host != nil {
		for _, r := range host.resources {
			if r.gvr.Group == group {
				names.Add(r.gvr.Resource, r.singular, r.kind, r.listKind, r.shortNames...)
			}
		}
	}
	return names
}

// crdTemplates lists the fleet's CustomResourceDefinitions.
func (f *Fleet) crdTemplates(ctx context.Context) []*unstructured.Unstructured {
	st := f.storageOf(crdGVR)
	if st == nil {
		return nil
	}
	var list runtime.Object
	// A store just made answers once its watch cache has filled.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		var err error
		list, err = st.main.List(request.WithNamespace(systemContext, ""), &metainternalversion.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		klog.ErrorS(err, "Listing the fleet's CustomResourceDefinitions")
		return nil
	}
	items := list.(*unstructured.UnstructuredList).Items
	out := make([]*unstructured.Unstructured, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// crdResources are the kinds the fleet's established CRDs define.
func (f *Fleet) crdResources(ctx context.Context) []*resource {
	var out []*resource
	for _, obj := range f.crdTemplates(ctx) {
		if obj.GetDeletionTimestamp() != nil || !crd.Established(obj) {
			continue
		}
		versions, err := crd.Versions(obj)
		if err != nil {
			klog.ErrorS(err, "Not serving a CustomResourceDefinition of the fleet", "crd", obj.GetName())
			continue
		}
		for _, v := range versions {
			r := customResource(v)
			r.definedBy = obj.GetResourceVersion()
			out = append(out, r)
		}
	}
	return out
}

// customResourceVerbs are a custom resource's verbs, in the order the
// apiextensions-apiserver lists them.
var customResourceVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// customResource is how the fleet serves one version of a custom resource.
func customResource(v crd.Version) *resource {
	gk := schema.GroupKind{Group: v.GVR.Group, Kind: v.Kind}
	r := &resource{
		gvr:              v.GVR,
		kind:             v.Kind,
		listKind:         v.ListKind,
		singular:         v.Singular,
		namespaced:       v.Namespaced,
		shortNames:       v.ShortNames,
		categories:       v.Categories,
		verbs:            customResourceVerbs,
		status:           v.Status,
		scale:            v.Scale != nil,
		customResource:   v.NewStorage,
		table:            v.Table,
		selectableFields: v.SelectableFields,
		prepare:          v.Prepare,
		dnsNames:         true,
		fromCRD:          true,
	}
	invalid := func(obj *unstructured.Unstructured, errs field.ErrorList) error {
		if len(errs) == 0 {
			return nil
		}
		return apierrors.NewInvalid(gk, obj.GetName(), errs)
	}
	r.decodeBody = v.Decode
	r.validate = func(ctx context.Context, obj *unstructured.Unstructured, _ string) ([]string, *unstructured.Unstructured, error) {
		warnings := v.Warnings(ctx, obj, nil)
		if v.Deprecated {
			warnings = append(warnings, v.DeprecationWarning)
		}
		return warnings, nil, invalid(obj, v.Validate(ctx, obj))
	}
	r.validateUpdate = func(ctx context.Context, obj, old *unstructured.Unstructured, _ string) ([]string, *unstructured.Unstructured, error) {
		warnings := v.Warnings(ctx, obj, old)
		if v.Deprecated {
			warnings = append(warnings, v.DeprecationWarning)
		}
		return warnings, nil, invalid(obj, v.ValidateUpdate(ctx, obj, old))
	}
	if len(v.OpenAPIModels) > 0 {
		tc, err := managedfields.NewTypeConverter(v.OpenAPIModels, v.PreserveUnknownFields)
		if err != nil {
			klog.ErrorS(err, "Server-side apply of a custom resource treats its lists as atomic", "resource", v.GVR)
		} else {
			r.typeConverter = tc
		}
	}
	if r.typeConverter == nil {
		r.typeConverter = managedfields.NewDeducedTypeConverter()
	}
	return r
}
