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

package registry

import (
	"context"
	"reflect"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// storageCase is the test of the storage of one resource.
type storageCase[T registrykit.Object] struct {
	registrytest.Case[T]
	shortNames []string
	// selects is a field selector beyond metadata.name that matches Valid.
	selects string
}

// storageMap returns the storage of the version of the group newGroupInfo
// returns on etcd, destroyed after t.
func storageMap(t *testing.T, newGroupInfo func(generic.RESTOptionsGetter) (*genericapiserver.APIGroupInfo, error)) map[string]rest.Storage {
	t.Helper()
	info, err := newGroupInfo(registrytest.RESTOptionsGetter(t))
	if err != nil {
		t.Fatal(err)
	}
	m := info.VersionedResourcesStorageMap["v1alpha1"]
	t.Cleanup(func() {
		for _, s := range m {
			s.Destroy()
		}
	})
	return m
}

// run creates, reads, lists, updates, prints and deletes an object of the
// resource through the storage m[resource] and m[resource+"/status"].
func (c storageCase[T]) run(t *testing.T, m map[string]rest.Storage, resource string) {
	main := m[resource].(*registrykit.REST)
	status, _ := m[resource+"/status"].(rest.Updater)
	if (status != nil) != (c.ChangeStatus != nil) {
		t.Fatalf("status subresource served: %t, expected: %t", status != nil, c.ChangeStatus != nil)
	}
	if !slices.Equal(main.ShortNames(), c.shortNames) || !slices.Equal(main.Categories(), []string{"fed"}) {
		t.Errorf("short names %q, categories %q", main.ShortNames(), main.Categories())
	}
	ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), c.Valid().GetNamespace())

	broken := c.Valid()
	c.BreakSpec(broken)
	_, err := main.Create(ctx, broken, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	expectInvalid(t, "create", err, c.BrokenSpecField)

	obj := c.Valid()
	if c.ChangeStatus != nil {
		c.ChangeStatus(obj)
	}
	created := create(t, ctx, main, obj)
	if created.GetGeneration() != 1 || !equalPart(created, c.Valid(), "Status") {
		t.Errorf("create: want generation 1 and no status, got %#v", created)
	}

	in := registrytest.DeepCopy(created)
	c.ChangeSpec(in)
	if c.ChangeStatus != nil {
		c.ChangeStatus(in)
	}
	updated := update(t, ctx, main, in)
	if updated.GetGeneration() != 2 || !equalPart(updated, in, "Spec") || !equalPart(updated, created, "Status") {
		t.Errorf("update: want generation 2, the new spec and the old status, got %#v", updated)
	}

	if status != nil {
		updated = c.checkStatus(t, ctx, main, status, updated)
	}

	got, err := main.Get(ctx, registrytest.Name, &metav1.GetOptions{})
	if err != nil || !apiequality.Semantic.DeepEqual(got, updated) {
		t.Errorf("get: %v\n got  %#v\n want %#v", err, got, updated)
	}
	c.checkList(t, ctx, main)
	table, err := main.ConvertToTable(ctx, got, &metav1.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.CheckTable(t, table)

	if _, _, err := main.Delete(ctx, registrytest.Name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := main.Get(ctx, registrytest.Name, &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: want NotFound, got %v", err)
	}
}

// checkStatus writes the status of stored, with a broken spec and new labels
// that the status subresource must ignore, then updates the main resource
// without a status, which must keep it. It returns the object stored last.
func (c storageCase[T]) checkStatus(t *testing.T, ctx context.Context, main *registrykit.REST, status rest.Updater, stored T) T {
	in := registrytest.DeepCopy(stored)
	c.ChangeStatus(in)
	c.BreakSpec(in)
	in.SetLabels(map[string]string{"written-by": "status"})
	withStatus := update(t, ctx, status, in)
	if !equalPart(withStatus, in, "Status") || !equalPart(withStatus, stored, "Spec") ||
		withStatus.GetLabels() != nil || withStatus.GetGeneration() != stored.GetGeneration() {
		t.Errorf("status update: want the new status, the old spec, labels and generation, got %#v", withStatus)
	}

	in = registrytest.DeepCopy(withStatus)
	c.BreakStatus(in)
	_, _, err := status.Update(ctx, registrytest.Name, rest.DefaultUpdatedObjectInfo(in),
		rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	expectInvalid(t, "status update", err, c.BrokenStatusField)

	in = registrytest.DeepCopy(withStatus)
	reflect.ValueOf(in).Elem().FieldByName("Status").SetZero()
	in.SetLabels(map[string]string{"written-by": "main"})
	updated := update(t, ctx, main, in)
	if !equalPart(updated, withStatus, "Status") || updated.GetLabels()["written-by"] != "main" ||
		updated.GetGeneration() != withStatus.GetGeneration() {
		t.Errorf("update without status: want the status and generation kept and the labels written, got %#v", updated)
	}
	return updated
}

func (c storageCase[T]) checkList(t *testing.T, ctx context.Context, main *registrykit.REST) {
	selectors := map[string]int{"": 1, "metadata.name=" + registrytest.Name: 1, "metadata.name=other": 0}
	if c.selects != "" {
		selectors[c.selects] = 1
	}
	for selector, want := range selectors {
		list, err := main.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.ParseSelectorOrDie(selector)})
		if err != nil {
			t.Fatalf("list %q: %v", selector, err)
		}
		items, err := apimeta.ExtractList(list)
		if err != nil || len(items) != want {
			t.Errorf("list %q: want %d items, got %d (%v)", selector, want, len(items), err)
		}
		if selector != "" {
			continue
		}
		table, err := main.ConvertToTable(ctx, list, &metav1.TableOptions{NoHeaders: true})
		if err != nil || len(table.Rows) != 1 || table.ColumnDefinitions != nil {
			t.Errorf("table of the list without headers: %v %#v", err, table)
		}
	}
}

func create[T registrykit.Object](t *testing.T, ctx context.Context, s rest.Creater, obj T) T {
	t.Helper()
	out, err := s.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return out.(T)
}

func update[T registrykit.Object](t *testing.T, ctx context.Context, s rest.Updater, obj T) T {
	t.Helper()
	out, _, err := s.Update(ctx, obj.GetName(), rest.DefaultUpdatedObjectInfo(obj),
		rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	return out.(T)
}

// expectInvalid checks that err is a 422 Invalid naming field.
func expectInvalid(t *testing.T, what string, err error, field string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("%s: want Invalid, got %v", what, err)
	}
	for _, cause := range err.(apierrors.APIStatus).Status().Details.Causes {
		if cause.Field == field {
			return
		}
	}
	t.Errorf("%s: want an error about %s, got %v", what, field, err)
}

// equalPart says whether the field name, Spec or Status, of a and b are
// equal; kinds without a Status have equal statuses.
func equalPart(a, b any, name string) bool {
	fa, fb := reflect.ValueOf(a).Elem().FieldByName(name), reflect.ValueOf(b).Elem().FieldByName(name)
	if !fa.IsValid() || !fb.IsValid() {
		return fa.IsValid() == fb.IsValid()
	}
	return apiequality.Semantic.DeepEqual(fa.Interface(), fb.Interface())
}
