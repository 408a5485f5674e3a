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
	"testing"

	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestSearchStorage(t *testing.T) {
	m := storageMap(t, NewSearchGroupInfo)
	expectPaths(t, m, "resourceregistries", "resourceregistries/status")
	t.Run("resourceregistries", func(t *testing.T) {
		storageCase[*search.ResourceRegistry]{Case: registrytest.ResourceRegistry(), shortNames: []string{"rr"}}.
			run(t, m, "resourceregistries")
	})
}
