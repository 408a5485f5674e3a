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

package mcs

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// A provider's slice Works are told apart from another provider's whose name it begins.
func TestIsSliceWork(t *testing.T) {
	k := types.NamespacedName{Namespace: "ns", Name: "nginx"}
	for name, want := range map[string]bool{
		workName(k, sliceWork("member1", 0)):   true,
		workName(k, sliceWork("member1", 3)):   true,
		workName(k, sliceWork("member10", 0)):  false,
		workName(k, sliceWork("member1-a", 0)): false,
		workName(k, "derived"):                 false,
	} {
		if got := isSliceWork(name, k, "member1"); got != want {
			t.Errorf("isSliceWork(%q, member1) = %v, want %v", name, got, want)
		}
	}
}
