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

package resourceregistries

import (
	"testing"

	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestStrategy(t *testing.T) {
	registrytest.CheckStrategy(t, Strategy, registrytest.ResourceRegistry())
}

func TestColumns(t *testing.T) {
	registrytest.CheckColumns(t, columns, registrytest.ResourceRegistry())
}

func TestKinds(t *testing.T) {
	tests := []struct {
		selectors []search.ResourceSelector
		want      string
	}{
		{nil, "<none>"},
		{[]search.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "v1", Kind: "Pod"}}, "Deployment.apps,Pod"},
		{[]search.ResourceSelector{
			{APIVersion: "v1", Kind: "Pod", Namespace: "a"}, {APIVersion: "v1", Kind: "Pod", Namespace: "b"},
			{APIVersion: "webapp.my.domain/v1", Kind: "Guestbook"}, {APIVersion: "webapp.my.domain/v2", Kind: "Guestbook"},
		}, "Pod,Guestbook.webapp.my.domain"},
	}
	for _, tc := range tests {
		if got := kinds(tc.selectors); got != tc.want {
			t.Errorf("kinds(%v) = %q, want %q", tc.selectors, got, tc.want)
		}
	}
}
