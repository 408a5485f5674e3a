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

package registrykit

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Category is the category of every fed resource: `kubectl get fed` lists
// them all.
const Category = "fed"

// Config describes the storage of one resource.
type Config[T Object] struct {
	// Resource is the plural resource, for example cluster.Resource("clusters").
	Resource schema.GroupResource
	// Singular is the singular name, for example "cluster".
	Singular   string
	NewList    func() runtime.Object
	Strategy   *Strategy[T]
	ShortNames []string
	Columns    []Column[T]
	// Fields are what field selectors can match besides metadata.name and
	// metadata.namespace.
	Fields Fields[T]
}

// Storage is the REST storage of one resource: the resource itself and,
// for kinds with a status, its status subresource.
type Storage struct {
	Main *REST
	// Status is nil for kinds without a status subresource.
	Status *StatusREST
}

// NewStorage builds the storage described by cfg on the backend optsGetter
// chooses.
func NewStorage[T Object](optsGetter generic.RESTOptionsGetter, cfg Config[T]) (*Storage, error) {
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return cfg.Strategy.hooks.New() },
		NewListFunc:               cfg.NewList,
		DefaultQualifiedResource:  cfg.Resource,
		SingularQualifiedResource: schema.GroupResource{Group: cfg.Resource.Group, Resource: cfg.Singular},

		CreateStrategy:      cfg.Strategy,
		UpdateStrategy:      cfg.Strategy,
		DeleteStrategy:      cfg.Strategy,
		ResetFieldsStrategy: cfg.Strategy,

		TableConvertor: NewTableConvertor(cfg.Resource, cfg.Columns),
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: cfg.Fields.attrFunc(cfg.Strategy.NamespaceScoped())}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, err
	}
	s := &Storage{Main: &REST{Store: store, shortNames: cfg.ShortNames}}
	if statusStrategy := cfg.Strategy.StatusStrategy(); statusStrategy != nil {
		s.Status = NewStatusREST(store, statusStrategy)
	}
	return s, nil
}

// AddTo adds the storage to the storage map of an API group version, under
// "<resource>" and "<resource>/status".
func (s *Storage) AddTo(m map[string]rest.Storage) {
	resource := s.Main.DefaultQualifiedResource.Resource
	m[resource] = s.Main
	if s.Status != nil {
		m[resource+"/status"] = s.Status
	}
}

// REST is the storage of a fed resource.
type REST struct {
	*genericregistry.Store
	shortNames []string
}

var (
	_ rest.StandardStorage      = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.ResetFieldsStrategy  = &REST{}
)

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return slices.Clone(r.shortNames) }

// Categories implements rest.CategoriesProvider.
func (r *REST) Categories() []string { return []string{Category} }

// StatusREST is the storage of a status subresource: of fed's own kinds, and of the
// fleet's templates, which are stored as unstructured objects.
type StatusREST struct {
	store *genericregistry.Store
}

// StatusUpdateStrategy is how a status subresource updates an object (only its status)
// and which fields it resets.
type StatusUpdateStrategy interface {
	rest.RESTUpdateStrategy
	rest.ResetFieldsStrategy
}

// NewStatusREST returns the status subresource of the resource store serves: the same
// storage, updated with strategy.
func NewStatusREST(store *genericregistry.Store, strategy StatusUpdateStrategy) *StatusREST {
	statusStore := *store
	statusStore.UpdateStrategy = strategy
	statusStore.ResetFieldsStrategy = strategy
	return &StatusREST{store: &statusStore}
}

var (
	_ rest.Storage             = &StatusREST{}
	_ rest.Patcher             = &StatusREST{}
	_ rest.TableConvertor      = &StatusREST{}
	_ rest.ResetFieldsStrategy = &StatusREST{}
)

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy implements rest.Storage. The backend is shared with the main
// resource, whose REST destroys it.
func (r *StatusREST) Destroy() {}

// Get implements rest.Getter; it is needed for patches.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update writes the status of an object; it never creates one.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo,
	createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc,
	_ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields implements rest.ResetFieldsStrategy.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable implements rest.TableConvertor.
func (r *StatusREST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}
