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
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/cluster"
)

func TestNewStrategyNeedsHooks(t *testing.T) {
	complete := func() Hooks[*cluster.Cluster] {
		return Hooks[*cluster.Cluster]{
			New:                  func() *cluster.Cluster { return &cluster.Cluster{} },
			Parts:                func(c *cluster.Cluster) (spec, status any) { return &c.Spec, &c.Status },
			Validate:             func(*cluster.Cluster) field.ErrorList { return nil },
			ValidateUpdate:       func(_, _ *cluster.Cluster) field.ErrorList { return nil },
			ValidateStatusUpdate: func(_, _ *cluster.Cluster) field.ErrorList { return nil },
		}
	}
	tests := []struct {
		name   string
		mutate func(*Hooks[*cluster.Cluster])
		panics bool
	}{
		{name: "complete", mutate: func(*Hooks[*cluster.Cluster]) {}},
		{name: "no validation", mutate: func(h *Hooks[*cluster.Cluster]) { h.Validate = nil }, panics: true},
		{name: "status without its validation", mutate: func(h *Hooks[*cluster.Cluster]) { h.ValidateStatusUpdate = nil }, panics: true},
		{name: "status validation without status", mutate: func(h *Hooks[*cluster.Cluster]) {
			h.Parts = func(c *cluster.Cluster) (spec, status any) { return &c.Spec, nil }
		}, panics: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != tc.panics {
					t.Errorf("panic: %v, want one: %t", r, tc.panics)
				}
			}()
			hooks := complete()
			tc.mutate(&hooks)
			NewStrategy(hooks)
		})
	}
}
