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

package binding

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/apis/federation/policy"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/override"
)

// refusal is the host's answer that an author may not create a manifest.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }

// checkOverridden checks what the override policies applied (their objects) made of a template
// with each policy's author: fed writes to a member, with powers its users lack, only what
// the author of each change may create in the host. It returns a refusal for the Work (the
// policy, its author and the host's reason), or another error to try again.
func checkOverridden(ctx context.Context, checks *author.Checks, applied []metav1.Object, gvr schema.GroupVersionResource, manifest *unstructured.Unstructured) error {
	for _, p := range applied {
		a, err := policy.AuthorOf(p)
		if err != nil {
			return refusal{fmt.Errorf("%s: %v", policyName(p), err)}
		}
		refused, err := checks.Ask(ctx, a, gvr, manifest)
		if err != nil {
			return fmt.Errorf("checking %s with the host as its author %s: %w", policyName(p), a.User, err)
		}
		if refused != nil {
			return refusal{fmt.Errorf("%s, written by %s: the host would not let %s create what it makes of the template: %v", policyName(p), a.User, a.User, refused)}
		}
	}
	return nil
}

// policyName names an override policy as the override engine does.
func policyName(p metav1.Object) string {
	return override.Policy{Namespace: p.GetNamespace(), Name: p.GetName()}.String()
}
