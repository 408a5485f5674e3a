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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"

	"github.com/fedhq/fed/apis/federation/policy"
	"github.com/fedhq/fed/controllers/override"
)

// AuthorCheck asks the host whether author may create manifest (of resource gvr; namespaced
// tells its scope), as a server-side dry run impersonating them: nil when the host would
// let them, the host's Forbidden, Invalid or BadRequest when not, any other error when the
// host could not be asked.
type AuthorCheck func(ctx context.Context, author policy.Author, gvr schema.GroupVersionResource, namespaced bool, manifest *unstructured.Unstructured) error

// authorChecks remembers the host's answers for a while, so that a binding looked at again
// with nothing changed asks the host nothing.
type authorChecks struct {
	check   AuthorCheck
	answers *utilcache.LRUExpireCache
}

// authorAnswerTTL is how long an answer is used again: the host's RBAC may change meanwhile.
const authorAnswerTTL = 10 * time.Minute

func newAuthorChecks(check AuthorCheck) *authorChecks {
	return &authorChecks{check: check, answers: utilcache.NewLRUExpireCache(10000)}
}

// refusal is the host's answer that an author may not create a manifest.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }

// overridden checks what the override policies applied (their objects) made of a template
// with each policy's author: fed writes to a member, with powers its users lack, only what
// the author of each change may create in the host. It returns a refusal for the Work (the
// policy, its author and the host's reason), or another error to try again.
func (a *authorChecks) overridden(ctx context.Context, applied []metav1.Object, gvr schema.GroupVersionResource, manifest *unstructured.Unstructured) error {
	var digest string
	for _, p := range applied {
		author, err := policy.AuthorOf(p)
		if err != nil {
			return refusal{fmt.Errorf("%s: %v", policyName(p), err)}
		}
		if digest == "" {
			raw, err := json.Marshal(manifest.Object)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(raw)
			digest = hex.EncodeToString(sum[:])
		}
		key := author.String() + " " + gvr.String() + " " + digest
		if v, ok := a.answers.Get(key); ok {
			if v != nil {
				return v.(refusal)
			}
			continue
		}
		err = a.check(ctx, author, gvr, manifest.GetNamespace() != "", manifest)
		switch {
		case err == nil:
			a.answers.Add(key, nil, authorAnswerTTL)
		case apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
			r := refusal{fmt.Errorf("%s, written by %s: the host would not let %s create what it makes of the template: %v", policyName(p), author.User, author.User, err)}
			a.answers.Add(key, r, authorAnswerTTL)
			return r
		default:
			return fmt.Errorf("checking %s with the host as its author %s: %w", policyName(p), author.User, err)
		}
	}
	return nil
}

// policyName names an override policy as the override engine does.
func policyName(p metav1.Object) string {
	return override.Policy{Namespace: p.GetNamespace(), Name: p.GetName()}.String()
}
