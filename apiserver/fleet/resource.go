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
	"time"

	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	apistorage "k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// resource is one kind the fleet serves, at one version.
type resource struct {
	gvr        schema.GroupVersionResource
	kind       string
	listKind   string
	singular   string
	namespaced bool
	shortNames []string
	categories []string
	verbs      []string

	// ttl, when set, is how long an object is kept after its last write (events).
	ttl time.Duration

	// memberView marks the kind the fleet shows from its members instead of storing
	// templates of it (nodes): get and list only, no storage.
	memberView bool

	// status and scale tell which subresources it has.
	status bool
	scale  bool
	// customResource builds apiextensions' storage of a custom resource, which serves its
	// status and scale subresources; nil for other kinds.
	customResource func(generic.RESTOptionsGetter) (customresource.CustomResourceStorage, error)

	table rest.TableConvertor
	// fields are the field selectors the kind supports beyond metadata.name and
	// metadata.namespace, each with the path of its value.
	fields map[string][]string
	// selectableFields, when set, replaces fields (custom resources).
	selectableFields func(*unstructured.Unstructured) (fields.Set, error)

	// prepare normalises an object before it is validated and stored (custom resources:
	// pruning and defaults).
	prepare func(*unstructured.Unstructured)
	// prepareCreate completes a new object after prepare (Namespaces: their finalizer).
	prepareCreate func(*unstructured.Unstructured)
	// validate and validateUpdate check an object with the rules of its kind: the host's
	// for native kinds, the CRD's for custom resources. Either may be nil.
	// fieldValidation is the request's directive (Strict, Warn, Ignore).
	validate func(ctx context.Context, obj *unstructured.Unstructured, fieldValidation string) (warnings []string, dryRun *unstructured.Unstructured, err error)
	// completed completes an object about to be stored with what its validation's dry run
	// answered (the host's defaults, a Service's cluster IP); old is the stored object on an
	// update, nil on a create.
	completed func(obj, old, dryRun *unstructured.Unstructured)
	// views lists objects the fleet shows in lists of this resource without storing them
	// (rollouts.go).
	views func(ctx context.Context) ([]unstructured.Unstructured, error)
	// prepareUpdate completes an updated object from the stored one.
	prepareUpdate  func(obj, old *unstructured.Unstructured)
	validateUpdate func(ctx context.Context, obj, old *unstructured.Unstructured, fieldValidation string) (warnings []string, dryRun *unstructured.Unstructured, err error)
	// decodeBody decodes a request's object in place as its kind does, before the field
	// manager sees it, and returns the paths of the fields it dropped (custom resources:
	// pruning and the schema's defaults, as the apiextensions-apiserver decodes).
	decodeBody func(obj *unstructured.Unstructured) (dropped []string, err error)
	// returnsDeleted answers a delete with the deleted object, as kube-apiserver does for
	// this kind, rather than a Status.
	returnsDeleted bool
	// shouldDeleteDuringUpdate replaces the store's rule for an update that lets an object
	// being deleted go (Namespaces: their spec's finalizers too).
	shouldDeleteDuringUpdate func(ctx context.Context, key string, obj, existing runtime.Object) bool
	// fromCRD marks the kinds the fleet's CRDs define: their objects go with them.
	fromCRD bool
	// definedBy is the resourceVersion of the CRD that defines the kind: a changed CRD
	// (schema, columns) gets a new store.
	definedBy string
	// updated is called after an update was stored (not on a dry run) with the object
	// before it (Deployments: their rollout history).
	updated func(ctx context.Context, obj, old *unstructured.Unstructured)
	// deleted is called after objects were deleted for good (not on a dry run).
	deleted func(ctx context.Context, objs []*unstructured.Unstructured)
	// changed is called after an object was written or deleted (CRDs: serve their kinds).
	changed func()
	// typeConverter, when set, replaces the host's for server-side apply (custom resources).
	typeConverter managedfields.TypeConverter
	// unconditionalUpdate allows a PUT without resourceVersion (native kinds).
	unconditionalUpdate bool
	// dnsNames requires DNS subdomain names (custom resources); other kinds need path-safe
	// names here and the host checks their own rules.
	dnsNames bool
}

func (r *resource) gvk() schema.GroupVersionKind { return r.gvr.GroupVersion().WithKind(r.kind) }

// key identifies the resource across rebuilds of the served set: the same key keeps its
// store (and watch cache) and definition.
func (r *resource) key() string {
	return fmt.Sprintf("%s|%s|%s|%v|%v|%v|%s", r.gvr, r.kind, r.listKind, r.namespaced, r.status, r.scale, r.definedBy)
}

// strategy is the create/update/delete strategy of every template kind.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	r *resource
}

func newStrategy(r *resource) strategy {
	return strategy{ObjectTyper: typer, NameGenerator: names.SimpleNameGenerator, r: r}
}

func (s strategy) NamespaceScoped() bool { return s.r.namespaced }

func (s strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if !s.r.status {
		return nil
	}
	return map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(s.r.gvr.GroupVersion().String()): fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.r.status {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
	if s.r.prepare != nil {
		s.r.prepare(u)
	}
	if s.r.prepareCreate != nil {
		s.r.prepareCreate(u)
	}
}

func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	if s.r.status {
		if status, ok := oldU.Object["status"]; ok {
			u.Object["status"] = status
		} else {
			delete(u.Object, "status")
		}
	}
	if s.r.prepare != nil {
		s.r.prepare(u)
	}
	if s.r.prepareUpdate != nil {
		s.r.prepareUpdate(u, oldU)
	}
	setGeneration(u, oldU)
}

// setGeneration gives an updated object old's generation, one more when anything but its
// metadata changed.
func setGeneration(u, old *unstructured.Unstructured) {
	generation := old.GetGeneration()
	if !apiequality.Semantic.DeepEqual(without(u.Object, "metadata"), without(old.Object, "metadata")) {
		generation++
	}
	u.SetGeneration(generation)
}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	errs := s.validateTypeMeta(u)
	nameFn := apimachineryvalidation.ValidateNameFunc(path.ValidatePathSegmentName)
	if s.r.dnsNames {
		nameFn = apimachineryvalidation.NameIsDNSSubdomain
	}
	return append(errs, apimachineryvalidation.ValidateObjectMetaAccessor(u, s.r.namespaced, nameFn, field.NewPath("metadata"))...)
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	errs := s.validateTypeMeta(u)
	return append(errs, apimachineryvalidation.ValidateObjectMetaAccessorUpdate(u, old.(*unstructured.Unstructured), field.NewPath("metadata"))...)
}

func (s strategy) validateTypeMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != s.r.kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), "must be "+s.r.kind))
	}
	if want := s.r.gvr.GroupVersion().String(); u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "must be "+want))
	}
	return errs
}

func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (strategy) Canonicalize(runtime.Object)                     {}
func (strategy) AllowCreateOnUpdate(context.Context) bool        { return false }
func (s strategy) AllowUnconditionalUpdate(context.Context) bool { return s.r.unconditionalUpdate }

// GetAttrs returns an object's labels and the fields its kind can be selected by.
func (s strategy) GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, fmt.Errorf("not a template: %T", obj)
	}
	if s.r.selectableFields != nil {
		set, err := s.r.selectableFields(u)
		return u.GetLabels(), set, err
	}
	set := fields.Set{"metadata.name": u.GetName()}
	if s.r.namespaced {
		set["metadata.namespace"] = u.GetNamespace()
	}
	for label, p := range s.r.fields {
		v, found, _ := unstructured.NestedFieldNoCopy(u.Object, p...)
		if !found || v == nil {
			set[label] = ""
			continue
		}
		set[label] = fmt.Sprint(v)
	}
	return u.GetLabels(), set, nil
}

// fieldLabelConverter refuses field selectors the resource does not support, with the
// message kube-apiserver gives.
type fieldLabelConverter struct {
	converter
	r *resource
}

func (c fieldLabelConverter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	switch {
	case label == "metadata.name", label == "metadata.namespace" && c.r.namespaced:
		return label, value, nil
	case c.r.selectableFields != nil:
		if set, err := c.r.selectableFields(&unstructured.Unstructured{Object: map[string]any{}}); err == nil {
			if _, ok := set[label]; ok {
				return label, value, nil
			}
		}
	default:
		if _, ok := c.r.fields[label]; ok {
			return label, value, nil
		}
		if len(c.r.fields) == 0 {
			// A kind with no fields of its own converts as kube's
			// runtime.DefaultMetaV1FieldSelectorConversion does.
			return "", "", fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
		}
	}
	return "", "", fmt.Errorf("field label not supported: %s", label)
}

// statusStrategy updates only an object's status (native kinds; custom resources have
// apiextensions' status strategy).
type statusStrategy struct{ strategy }

func (s statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(s.r.gvr.GroupVersion().String()): fieldpath.NewSet(
			fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"), fieldpath.MakePathOrDie("metadata", "annotations")),
	}
}

func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	status, hasStatus := u.Object["status"]
	metadata := u.Object["metadata"]
	u.Object = runtime.DeepCopyJSON(oldU.Object)
	u.Object["metadata"] = metadata
	u.SetLabels(oldU.GetLabels())
	u.SetAnnotations(oldU.GetAnnotations())
	u.SetFinalizers(oldU.GetFinalizers())
	u.SetOwnerReferences(oldU.GetOwnerReferences())
	u.SetGeneration(oldU.GetGeneration())
	if hasStatus {
		u.Object["status"] = status
	} else {
		delete(u.Object, "status")
	}
}

// restStorage is the REST storage of one resource and its subresources.
type restStorage struct {
	main *templateREST
	// status and scale are nil for kinds without the subresource.
	status statusStorage
	scale  rest.Patcher
	// finalize is a Namespace's finalize subresource (nil for other kinds).
	finalize rest.Updater
}

// statusStorage serves a status subresource: fed's StatusREST, or apiextensions' for
// custom resources.
type statusStorage interface {
	rest.Patcher
	rest.ResetFieldsStrategy
}

var (
	_ statusStorage = &registrykit.StatusREST{}
	_ statusStorage = &customresource.StatusREST{}
	_ rest.Patcher  = &customresource.ScaleREST{}
)

func newStorage(r *resource, optsGetter generic.RESTOptionsGetter) (*restStorage, error) {
	s := newStrategy(r)
	gvk, listGVK := r.gvk(), r.gvr.GroupVersion().WithKind(r.listKind)
	table := r.table
	if table == nil {
		table = rest.NewDefaultTableConvertor(r.gvr.GroupResource())
	}
	store := &genericregistry.Store{
		NewFunc: func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u
		},
		NewListFunc: func() runtime.Object {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(listGVK)
			return l
		},
		PredicateFunc: func(label labels.Selector, field fields.Selector) apistorage.SelectionPredicate {
			return apistorage.SelectionPredicate{Label: label, Field: field, GetAttrs: s.GetAttrs}
		},
		DefaultQualifiedResource:  r.gvr.GroupResource(),
		SingularQualifiedResource: schema.GroupResource{Group: r.gvr.Group, Resource: r.singular},
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ResetFieldsStrategy:       s,
		TableConvertor:            table,
		ReturnDeletedObject:       r.returnsDeleted,
		ShouldDeleteDuringUpdate:  r.shouldDeleteDuringUpdate,
	}
	if r.ttl > 0 {
		ttl := uint64(r.ttl.Seconds())
		store.TTLFunc = func(runtime.Object, uint64, bool) (uint64, error) { return ttl, nil }
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: s.GetAttrs}); err != nil {
		return nil, err
	}
	st := &restStorage{main: &templateREST{Store: store, r: r}}
	if r.gvr == namespacesGVR {
		st.finalize = &finalizeREST{store: store}
	}
	if r.customResource != nil && (r.status || r.scale) {
		// A custom resource's subresources are apiextensions', as on the host.
		crs, err := r.customResource(sharedStorage{RESTOptionsGetter: optsGetter, store: store})
		if err != nil {
			return nil, err
		}
		if crs.Status != nil {
			st.status = crs.Status
		}
		if crs.Scale != nil {
			st.scale = crs.Scale
		}
		return st, nil
	}
	if r.status {
		st.status = registrykit.NewStatusREST(store, statusStrategy{s})
	}
	if r.scale {
		st.scale = &scaleREST{store: store, r: r}
	}
	return st, nil
}

// sharedStorage gives apiextensions' storage of a custom resource the storage of the
// fleet's store of the kind: both read and write the same objects through one watch
// cache, which the fleet's store owns and destroys.
type sharedStorage struct {
	generic.RESTOptionsGetter
	store *genericregistry.Store
}

func (g sharedStorage) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	o, err := g.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err != nil {
		return o, err
	}
	o.Decorator = func(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object,
		func() runtime.Object, apistorage.AttrFunc, apistorage.IndexerFuncs, *cache.Indexers) (apistorage.Interface, factory.DestroyFunc, error) {
		return g.store.Storage.Storage, func() {}, nil
	}
	o.CountMetricPollPeriod = 0 // the fleet's store counts the objects
	return o, nil
}

func (s *restStorage) destroy() { s.main.Destroy() }

// templateREST is a resource's store; native templates are also checked by the host on
// create and update, after fed's own validation and admission.
type templateREST struct {
	*genericregistry.Store
	r *resource
}

var (
	_ rest.ShortNamesProvider   = &templateREST{}
	_ rest.CategoriesProvider   = &templateREST{}
	_ rest.SingularNameProvider = &templateREST{}
)

func (t *templateREST) ShortNames() []string    { return t.r.shortNames }
func (t *templateREST) Categories() []string    { return t.r.categories }
func (t *templateREST) GetSingularName() string { return t.r.singular }

func (t *templateREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	stored := obj.(*unstructured.Unstructured)
	withoutTypedParents(stored)
	out, err := t.Store.Create(ctx, obj, t.validateCreate(createValidation, func() *unstructured.Unstructured { return stored }, options.FieldValidation), options)
	t.notify(err)
	return out, err
}

// validateCreate is the validation of a new object: the caller's (admission), then its
// kind's, whose dry run completes the object the store is about to store (stored; the
// store validates a copy).
func (t *templateREST) validateCreate(createValidation rest.ValidateObjectFunc, stored func() *unstructured.Unstructured, fieldValidation string) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if createValidation != nil {
			if err := createValidation(ctx, obj); err != nil {
				return err
			}
		}
		if t.r.validate == nil {
			return nil
		}
		warnings, dryRun, err := t.r.validate(ctx, obj.(*unstructured.Unstructured), fieldValidation)
		addWarnings(ctx, warnings)
		if err == nil && t.r.completed != nil {
			if u := stored(); u != nil {
				t.r.completed(u, nil, dryRun)
			}
		}
		return err
	}
}

// List is the store's, with the resource's views.
func (t *templateREST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := t.Store.List(ctx, options)
	if err != nil || t.r.views == nil {
		return out, err
	}
	if list, ok := out.(*unstructured.UnstructuredList); ok {
		if err := t.withViews(ctx, list, options); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *templateREST) notify(err error) {
	if err == nil && t.r.changed != nil {
		t.r.changed()
	}
}

func (t *templateREST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if t.r.gvr == namespacesGVR {
		return t.deleteNamespace(ctx, name, deleteValidation, options)
	}
	var before runtime.Object
	if t.r.deleted != nil {
		before, _ = t.Store.Get(ctx, name, &metav1.GetOptions{})
	}
	out, deleted, err := t.Store.Delete(ctx, name, deleteValidation, options)
	if u, ok := before.(*unstructured.Unstructured); ok && err == nil && deleted && !dryrun.IsDryRun(options.DryRun) {
		t.r.deleted(ctx, []*unstructured.Unstructured{u})
	}
	t.notify(err)
	return out, deleted, err
}

func (t *templateREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// An update that creates (server-side apply of a new object) is validated as a create.
	captured := &capturedUpdate{UpdatedObjectInfo: objInfo}
	var previous *unstructured.Unstructured // the stored object the update was made from
	createValidation = t.validateCreate(createValidation, func() *unstructured.Unstructured { return captured.obj }, options.FieldValidation)
	out, created, err := t.Store.Update(ctx, name, captured, createValidation, func(ctx context.Context, obj, old runtime.Object) error {
		if updateValidation != nil {
			if err := updateValidation(ctx, obj, old); err != nil {
				return err
			}
		}
		oldU := old.(*unstructured.Unstructured)
		previous = oldU
		if t.r.validateUpdate == nil {
			return nil
		}
		warnings, dryRun, err := t.r.validateUpdate(ctx, obj.(*unstructured.Unstructured), oldU, options.FieldValidation)
		addWarnings(ctx, warnings)
		if err == nil && t.r.completed != nil && captured.obj != nil {
			t.r.completed(captured.obj, oldU, dryRun)
		}
		return err
	}, forceAllowCreate, options)
	if u, ok := out.(*unstructured.Unstructured); ok && err == nil && !created && previous != nil && t.r.updated != nil && !dryrun.IsDryRun(options.DryRun) {
		t.r.updated(ctx, u, previous)
	}
	t.notify(err)
	return out, created, err
}

func addWarnings(ctx context.Context, warnings []string) {
	for _, w := range warnings {
		warning.AddWarning(ctx, "", w)
	}
}

func (t *templateREST) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := t.Store.DeleteCollection(ctx, deleteValidation, options, listOptions)
	if list, ok := out.(*unstructured.UnstructuredList); ok && err == nil && t.r.deleted != nil && !dryrun.IsDryRun(options.DryRun) {
		objs := make([]*unstructured.Unstructured, len(list.Items))
		for i := range list.Items {
			objs[i] = &list.Items[i]
		}
		t.r.deleted(ctx, objs)
	}
	t.notify(err)
	return out, err
}

// capturedUpdate keeps the object an update computed, which the store goes on to store.
type capturedUpdate struct {
	rest.UpdatedObjectInfo
	obj *unstructured.Unstructured
}

func (c *capturedUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := c.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		withoutTypedParents(u)
		c.obj = u
	}
	return obj, err
}

// isEvents says whether a resource is events, of the core group or events.k8s.io: the
// fleet's record of what happened, which expires (EventTTL).
func isEvents(gr schema.GroupResource) bool {
	return gr.Resource == "events" && (gr.Group == "" || gr.Group == "events.k8s.io")
}
