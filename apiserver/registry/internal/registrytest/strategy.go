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

package registrytest

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/fedhq/fed/apiserver/registry/registrykit"
	"github.com/fedhq/fed/apiserver/scheme"
)

// CheckStrategy tests, without a server, what the strategy of the kind of c
// does to its objects on create and update, and that it runs the kind's
// validation.
func CheckStrategy[T registrykit.Object](t *testing.T, strategy *registrykit.Strategy[T], c Case[T]) {
	t.Helper()
	ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), c.Valid().GetNamespace())
	status := strategy.StatusStrategy()
	if (status != nil) != (c.ChangeStatus != nil) {
		t.Fatalf("status subresource: strategy has %t, test case has %t", status != nil, c.ChangeStatus != nil)
	}
	tests := []struct {
		name     string
		onStatus bool // needs a status subresource
		got      func() T
		want     func() T
	}{{
		name: "create clears the status and starts the generation at 1",
		got:  func() T { obj := withGeneration(c.Changed(), 5); strategy.PrepareForCreate(ctx, obj); return obj },
		want: func() T { obj := withGeneration(c.Valid(), 1); c.ChangeSpec(obj); return obj },
	}, {
		name: "update keeps the status and bumps the generation on a spec change",
		got: func() T {
			old, obj := withGeneration(c.Valid(), 3), withGeneration(c.Valid(), 3)
			if c.ChangeStatus != nil {
				c.ChangeStatus(old)
			}
			c.ChangeSpec(obj)
			strategy.PrepareForUpdate(ctx, obj, old)
			return obj
		},
		want: func() T { return withGeneration(c.Changed(), 4) },
	}, {
		name: "update keeps the generation without a spec change",
		got: func() T {
			obj := withGeneration(c.Valid(), 3)
			obj.SetLabels(map[string]string{"team": "a"})
			strategy.PrepareForUpdate(ctx, obj, withGeneration(c.Valid(), 3))
			return obj
		},
		want: func() T {
			obj := withGeneration(c.Valid(), 3)
			obj.SetLabels(map[string]string{"team": "a"})
			return obj
		},
	}, {
		name:     "status update keeps the spec, labels and generation",
		onStatus: true,
		got: func() T {
			obj := withGeneration(c.Changed(), 4)
			obj.SetLabels(map[string]string{"team": "a"})
			status.PrepareForUpdate(ctx, obj, withGeneration(c.Valid(), 3))
			return obj
		},
		want: func() T { obj := withGeneration(c.Valid(), 3); c.ChangeStatus(obj); return obj },
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.onStatus && status == nil {
				t.Skip("no status subresource")
			}
			if got, want := tc.got(), tc.want(); !apiequality.Semantic.DeepEqual(got, want) {
				t.Errorf("got\n%#v\nwant\n%#v", got, want)
			}
		})
	}
	t.Run("validation", func(t *testing.T) { checkValidation(t, strategy, c) })
	t.Run("reset fields", func(t *testing.T) { checkResetFields(t, strategy, c) })
	t.Run("scope and flags", func(t *testing.T) {
		if got, want := strategy.NamespaceScoped(), c.Valid().GetNamespace() != ""; got != want {
			t.Errorf("NamespaceScoped() = %t, want %t", got, want)
		}
		if strategy.AllowCreateOnUpdate(ctx) || !strategy.AllowUnconditionalUpdate(ctx) {
			t.Error("want no create on update and unconditional updates")
		}
	})
}

func withGeneration[T registrykit.Object](obj T, generation int64) T {
	obj.SetGeneration(generation)
	return obj
}

func withResourceVersion[T registrykit.Object](obj T) T {
	obj.SetResourceVersion("1")
	return obj
}

func checkValidation[T registrykit.Object](t *testing.T, strategy *registrykit.Strategy[T], c Case[T]) {
	ctx := genericapirequest.NewContext()
	valid, changed := withResourceVersion(c.Valid()), withResourceVersion(c.Changed())
	broken := withResourceVersion(c.Valid())
	c.BreakSpec(broken)
	expectErrors(t, "create valid", strategy.Validate(ctx, valid), "")
	expectErrors(t, "update valid", strategy.ValidateUpdate(ctx, changed, valid), "")
	expectErrors(t, "create invalid", strategy.Validate(ctx, broken), c.BrokenSpecField)
	expectErrors(t, "update invalid", strategy.ValidateUpdate(ctx, broken, valid), c.BrokenSpecField)
	if status := strategy.StatusStrategy(); status != nil {
		brokenStatus := withResourceVersion(c.Changed())
		c.BreakStatus(brokenStatus)
		expectErrors(t, "status update valid", status.ValidateUpdate(ctx, changed, valid), "")
		expectErrors(t, "status update invalid", status.ValidateUpdate(ctx, brokenStatus, changed), c.BrokenStatusField)
	}
}

// expectErrors checks that errs is empty if wantField is, or else has an
// error about wantField.
func expectErrors(t *testing.T, what string, errs field.ErrorList, wantField string) {
	t.Helper()
	if wantField == "" {
		if len(errs) > 0 {
			t.Errorf("%s: unexpected errors: %v", what, errs.ToAggregate())
		}
		return
	}
	for _, err := range errs {
		if err.Field == wantField {
			return
		}
	}
	t.Errorf("%s: want an error about %s, got %v", what, wantField, errs.ToAggregate())
}

func checkResetFields[T registrykit.Object](t *testing.T, strategy *registrykit.Strategy[T], c Case[T]) {
	kinds, _, err := scheme.Scheme.ObjectKinds(c.Valid())
	if err != nil {
		t.Fatal(err)
	}
	version := fieldpath.APIVersion(kinds[0].Group + "/v1alpha1")
	check := func(what string, got map[fieldpath.APIVersion]*fieldpath.Set, want string) {
		t.Helper()
		if want == "" {
			if len(got) != 0 {
				t.Errorf("%s: want no reset fields, got %v", what, got)
			}
			return
		}
		if len(got) != 1 || got[version] == nil || !got[version].Equals(fieldpath.NewSet(fieldpath.MakePathOrDie(want))) {
			t.Errorf("%s: want %s reset in %s, got %v", what, want, version, got)
		}
	}
	if status := strategy.StatusStrategy(); status != nil {
		check("main resource", strategy.GetResetFields(), "status")
		check("status", status.GetResetFields(), "spec")
	} else {
		check("main resource", strategy.GetResetFields(), "")
	}
}
