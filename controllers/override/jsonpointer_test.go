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

package override

import (
	"reflect"
	"strings"
	"testing"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestPatchPointerArrays(t *testing.T) {
	list := func() interface{} { return map[string]interface{}{"l": []interface{}{"a", "b"}} }
	cases := []struct {
		op      federationv1alpha1.OverriderOperator
		pointer string
		want    []interface{}
		wantErr string
	}{
		{op: "add", pointer: "/l/0", want: []interface{}{"x", "a", "b"}},
		{op: "add", pointer: "/l/2", want: []interface{}{"a", "b", "x"}},
		{op: "add", pointer: "/l/-", want: []interface{}{"a", "b", "x"}},
		{op: "add", pointer: "/l/3", wantErr: "out of range"},
		{op: "add", pointer: "/l/01", wantErr: "not an array index"},
		{op: "add", pointer: "/l/-1", wantErr: "not an array index"},
		{op: "replace", pointer: "/l/1", want: []interface{}{"a", "x"}},
		{op: "replace", pointer: "/l/-", wantErr: "not an array index"},
		{op: "replace", pointer: "/l/2", wantErr: "out of range"},
		{op: "remove", pointer: "/l/0", want: []interface{}{"b"}},
		{op: "remove", pointer: "/l/99999999999999999999", wantErr: "out of range"},
	}
	for _, tc := range cases {
		t.Run(string(tc.op)+" "+tc.pointer, func(t *testing.T) {
			got, err := patchPointer(list(), tc.op, tc.pointer, "x")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l := got.(map[string]interface{})["l"]; !reflect.DeepEqual(l, tc.want) {
				t.Errorf("list = %v, want %v", l, tc.want)
			}
		})
	}
	if _, err := patchPointer(list(), "remove", "", nil); err == nil {
		t.Error("removing the whole document is an error")
	}
}
