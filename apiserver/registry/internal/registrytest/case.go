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

// Package registrytest holds what the tests of fed's registries share: a
// valid object and valid changes of every kind, a check of a kind's
// strategy, and an etcd to store them in.
package registrytest

import (
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Case is what the tests need to know about one kind.
type Case[T registrykit.Object] struct {
	// Valid returns a valid object named "test", in the namespace "default"
	// for namespaced kinds, with an empty status.
	Valid func() T
	// ChangeSpec makes a valid change to the spec.
	ChangeSpec func(T)
	// ChangeStatus writes a valid status; nil for kinds without one.
	ChangeStatus func(T)

	// BreakSpec makes the spec invalid, with an error at BrokenSpecField.
	BreakSpec       func(T)
	BrokenSpecField string
	// BreakStatus makes the status invalid, with an error at
	// BrokenStatusField; nil for kinds without a status.
	BreakStatus       func(T)
	BrokenStatusField string

	// Columns are the headers of the kind's table.
	Columns []string
	// Row are the cells of Valid after ChangeSpec and ChangeStatus, by
	// header; Age is left out.
	Row map[string]any
}

// Namespace is the namespace of the objects of namespaced kinds.
const Namespace = "default"

// Name is the name of every test object.
const Name = "test"

// DeepCopy returns a deep copy of obj with its type.
func DeepCopy[T registrykit.Object](obj T) T {
	return obj.DeepCopyObject().(T)
}

// Changed returns Valid after ChangeSpec and ChangeStatus.
func (c Case[T]) Changed() T {
	obj := c.Valid()
	c.ChangeSpec(obj)
	if c.ChangeStatus != nil {
		c.ChangeStatus(obj)
	}
	return obj
}
