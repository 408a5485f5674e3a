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

package v1alpha1

import "testing"

// TestPaths checks the endpoints' paths, which clients and RBAC rules spell out.
func TestPaths(t *testing.T) {
	for got, want := range map[string]string{
		CachePath: "/apis/search.fedhq.io/v1alpha1/search/cache",
		ProxyPath: "/apis/search.fedhq.io/v1alpha1/proxying/fleet/proxy",
	} {
		if got != want {
			t.Errorf("path %s, want %s", got, want)
		}
	}
}
