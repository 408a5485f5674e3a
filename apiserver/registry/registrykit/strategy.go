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

// Package registrykit builds the REST storage of fed's API resources: one
// strategy, one store builder and one table printer, parameterised by what
// differs between kinds (validation, spec and status, columns, names).
package registrykit

import (
	"context"
	"fmt"
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apiserver/scheme"
)

// Object is an internal fed API object, such as *cluster.Cluster.
type Object interface {
	runtime.Object
	metav1.Object
	metav1.ObjectMetaAccessor
}

// Hooks are what a strategy needs to know about one kind.
type Hooks[T Object] struct {
	// GroupVersion is the served version whose field paths the reset fields
	// are given in, for example v1alpha1.SchemeGroupVersion.
	GroupVersion schema.GroupVersion
	// Namespaced is true for namespace-scoped kinds.
	Namespaced bool
	// New returns an empty object of the kind.
	New func() T
	// Parts returns pointers to the spec and the status of obj; status is nil
	// for kinds without a status subresource.
	Parts func(obj T) (spec, status any)

	// Prepare, when set, completes the spec of an object being created (old
	// is nil) or updated, after the strategy's own preparation.
	Prepare func(obj, old T)

	Validate             func(obj T) field.ErrorList
	ValidateUpdate       func(newObj, oldObj T) field.ErrorList
	ValidateStatusUpdate func(newObj, oldObj T) field.ErrorList

	// RecordAuthor, when set, records in federationv1alpha1.AnnotationAuthor the user who
	// creates an object or changes its spec; any other write keeps what was recorded, so
	// that nobody can claim someone else wrote a spec.
	RecordAuthor bool
}

// Strategy creates, updates and deletes objects of one kind through the main
// resource: status is the server's to keep, and every change of the spec
// bumps metadata.generation.
type Strategy[T Object] struct {
	runtime.ObjectTyper
	names.NameGenerator
	hooks     Hooks[T]
	hasStatus bool
}

// NewStrategy returns the strategy of the kind described by hooks. It
// panics when a hook the kind needs is missing: strategies are package
// variables, so that shows at start-up and in every test.
func NewStrategy[T Object](hooks Hooks[T]) *Strategy[T] {
	if hooks.New == nil || hooks.Parts == nil || hooks.Validate == nil || hooks.ValidateUpdate == nil {
		panic(fmt.Sprintf("registrykit: the hooks of %T need New, Parts, Validate and ValidateUpdate", hooks.New))
	}
	_, status := hooks.Parts(hooks.New())
	if (status != nil) != (hooks.ValidateStatusUpdate != nil) {
		panic(fmt.Sprintf("registrykit: the hooks of %T need ValidateStatusUpdate exactly when Parts returns a status", hooks.New))
	}
	return &Strategy[T]{
		ObjectTyper:   scheme.Scheme,
		NameGenerator: names.SimpleNameGenerator,
		hooks:         hooks,
		hasStatus:     status != nil,
	}
}

var (
	_ rest.RESTCreateStrategy  = &Strategy[Object]{}
	_ rest.RESTUpdateStrategy  = &Strategy[Object]{}
	_ rest.RESTDeleteStrategy  = &Strategy[Object]{}
	_ rest.ResetFieldsStrategy = &Strategy[Object]{}
)

// NamespaceScoped implements rest.RESTCreateStrategy.
func (s *Strategy[T]) NamespaceScoped() bool { return s.hooks.Namespaced }

// PrepareForCreate clears the status, which only the status subresource may
// write, and starts the generation at 1.
func (s *Strategy[T]) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	o := obj.(T)
	if _, status := s.hooks.Parts(o); status != nil {
		reflect.ValueOf(status).Elem().SetZero()
	}
	o.SetGeneration(1)
	if s.hooks.Prepare != nil {
		var none T
		s.hooks.Prepare(o, none)
	}
	if s.hooks.RecordAuthor {
		recordAuthor(ctx, o, true, "")
	}
}

// recordAuthor sets the author annotation of obj: the user of ctx when they wrote its spec
// (wroteSpec), else what the stored object had (stored; none when it had none).
func recordAuthor(ctx context.Context, obj metav1.Object, wroteSpec bool, stored string) {
	value := stored
	if wroteSpec {
		value = ""
		if u, ok := request.UserFrom(ctx); ok {
			value = policy.Author{User: u.GetName(), Groups: u.GetGroups()}.String()
		}
	}
	annotations := obj.GetAnnotations()
	if value == "" {
		delete(annotations, federationv1alpha1.AnnotationAuthor)
	} else {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[federationv1alpha1.AnnotationAuthor] = value
	}
	obj.SetAnnotations(annotations)
}

// PrepareForUpdate keeps the stored status and bumps the generation when
// the spec changes.
func (s *Strategy[T]) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	newObj, oldObj := obj.(T), old.(T)
	newSpec, newStatus := s.hooks.Parts(newObj)
	oldSpec, oldStatus := s.hooks.Parts(oldObj)
	if newStatus != nil {
		assign(newStatus, oldStatus)
	}
	if s.hooks.Prepare != nil {
		s.hooks.Prepare(newObj, oldObj)
	}
	specChanged := !apiequality.Semantic.DeepEqual(newSpec, oldSpec)
	if specChanged {
		newObj.SetGeneration(oldObj.GetGeneration() + 1)
	}
	if s.hooks.RecordAuthor {
		recordAuthor(ctx, newObj, specChanged, oldObj.GetAnnotations()[federationv1alpha1.AnnotationAuthor])
	}
}

// Validate implements rest.RESTCreateStrategy.
func (s *Strategy[T]) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.hooks.Validate(obj.(T))
}

// ValidateUpdate implements rest.RESTUpdateStrategy.
func (s *Strategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.hooks.ValidateUpdate(obj.(T), old.(T))
}

// WarningsOnCreate implements rest.RESTCreateStrategy.
func (s *Strategy[T]) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate implements rest.RESTUpdateStrategy.
func (s *Strategy[T]) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize implements rest.RESTCreateStrategy; fed objects have no
// canonical form to normalise to.
func (s *Strategy[T]) Canonicalize(runtime.Object) {}

// AllowCreateOnUpdate implements rest.RESTUpdateStrategy.
func (s *Strategy[T]) AllowCreateOnUpdate(context.Context) bool { return false }

// AllowUnconditionalUpdate implements rest.RESTUpdateStrategy.
func (s *Strategy[T]) AllowUnconditionalUpdate(context.Context) bool { return true }

// GetResetFields tells server-side apply that writes to the main resource
// do not own the status.
func (s *Strategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if !s.hasStatus {
		return nil
	}
	return s.resetFields("status")
}

func (s *Strategy[T]) resetFields(topLevelField string) map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(s.hooks.GroupVersion.String()): fieldpath.NewSet(fieldpath.MakePathOrDie(topLevelField)),
	}
}

// StatusStrategy returns the strategy of the status subresource, or nil for
// kinds without one.
func (s *Strategy[T]) StatusStrategy() *StatusStrategy[T] {
	if !s.hasStatus {
		return nil
	}
	return &StatusStrategy[T]{Strategy: s}
}

// StatusStrategy updates objects through the status subresource: only the
// status (and the managed fields) change.
type StatusStrategy[T Object] struct {
	*Strategy[T]
}

var _ rest.RESTUpdateStrategy = &StatusStrategy[Object]{}

// PrepareForUpdate keeps the stored spec and the metadata a status writer
// must not change (labels, annotations, finalizers, owners, generation).
func (s *StatusStrategy[T]) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newObj, oldObj := obj.(T), old.(T)
	newSpec, _ := s.hooks.Parts(newObj)
	oldSpec, _ := s.hooks.Parts(oldObj)
	assign(newSpec, oldSpec)
	metav1.ResetObjectMetaForStatus(newObj, oldObj)
}

// ValidateUpdate implements rest.RESTUpdateStrategy.
func (s *StatusStrategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.hooks.ValidateStatusUpdate(obj.(T), old.(T))
}

// GetResetFields tells server-side apply that writes to the status
// subresource do not own the spec.
func (s *StatusStrategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return s.resetFields("spec")
}

// assign sets *dst to *src; both point to the same type, the spec or the
// status of one kind.
func assign(dst, src any) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}
