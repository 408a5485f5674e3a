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

package validation

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// expectErrors compares the type and path of every error, in order, with
// want, written as "FieldValueInvalid spec.x".
func expectErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := make([]string, 0, len(errs))
	for _, e := range errs {
		got = append(got, string(e.Type)+" "+e.Field)
	}
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("errors:\n got  %q\n want %q\n%v", got, want, errs.ToAggregate())
	}
}
