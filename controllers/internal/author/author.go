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

// Package author asks the host whether the author of a fed object (an override policy, a
// quota) may create what fed would write into a member for them, or (a ClusterTaintPolicy,
// a WorkloadRebalancer) may do in the fleet what fed would do for them: fed writes with
// powers its users lack, and writes for a user only what that user may do.
package author

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/kubernetes"

	"github.com/fedhq/fed/apis/federation/policy"
)

// Check asks the host whether author may create manifest (of resource gvr; namespaced
// tells its scope), as a server-side dry run impersonating them: nil when the host would
// let them, the host's Forbidden, Invalid or BadRequest when not, any other error when the
// host could not be asked.
type Check func(ctx context.Context, author policy.Author, gvr schema.GroupVersionResource, namespaced bool, manifest *unstructured.Unstructured) error

// Checks remembers the host's answers for a while, so that an object looked at again with
// nothing changed asks the host nothing.
type Checks struct {
	check   Check
	answers *utilcache.LRUExpireCache
}

// answerTTL is how long an answer is used again: the host's RBAC may change meanwhile.
const answerTTL = 10 * time.Minute

// NewChecks asks the host with check.
func NewChecks(check Check) *Checks {
	return &Checks{check: check, answers: utilcache.NewLRUExpireCache(10000)}
}

// Ask asks whether author may create manifest: refused is the host's refusal (Forbidden,
// Invalid or BadRequest), err a failure to ask (to try again). Answers are kept by author,
// resource and manifest.
func (c *Checks) Ask(ctx context.Context, author policy.Author, gvr schema.GroupVersionResource, manifest *unstructured.Unstructured) (refused, err error) {
	raw, err := json.Marshal(manifest.Object)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	key := author.String() + " " + gvr.String() + " " + hex.EncodeToString(sum[:])
	if v, ok := c.answers.Get(key); ok {
		if v != nil {
			return v.(error), nil
		}
		return nil, nil
	}
	err = c.check(ctx, author, gvr, manifest.GetNamespace() != "", manifest)
	switch {
	case err == nil:
		c.answers.Add(key, nil, answerTTL)
		return nil, nil
	case apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		c.answers.Add(key, err, answerTTL)
		return err, nil
	default:
		return nil, err
	}
}

// Access asks the host whether authors may act on a resource (a SubjectAccessReview: the
// host authorizes fed's API and the fleet's), remembering each answer a minute.
type Access struct {
	host    kubernetes.Interface
	answers *utilcache.LRUExpireCache
}

// accessTTL is how long an answer of Access is used again.
const accessTTL = time.Minute

// NewAccess asks host.
func NewAccess(host kubernetes.Interface) *Access {
	return &Access{host: host, answers: utilcache.NewLRUExpireCache(10000)}
}

// Allowed tells whether author may act as attrs say; err when the host could not be asked.
func (a *Access) Allowed(ctx context.Context, author policy.Author, attrs authorizationv1.ResourceAttributes) (bool, error) {
	key := fmt.Sprintf("%s %+v", author, attrs)
	if v, ok := a.answers.Get(key); ok {
		return v.(bool), nil
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: author.User, Groups: author.Groups, ResourceAttributes: &attrs}}
	res, err := a.host.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the host whether %s may %s %s: %w", author.User, attrs.Verb, attrs.Resource, err)
	}
	a.answers.Add(key, res.Status.Allowed, accessTTL)
	return res.Status.Allowed, nil
}

// Refused asks whether the recorded author of obj, a kind's object (named so in the
// message), may act as attrs say: refused says why not (no author recorded, or the host's
// no, with what, the action refused, as "update clusters.cluster.fedhq.io"), err that the
// host could not be asked.
func (a *Access) Refused(ctx context.Context, kind string, obj metav1.Object, attrs authorizationv1.ResourceAttributes, what string) (refused, err error) {
	author, err := policy.AuthorOf(obj)
	if err != nil {
		return fmt.Errorf("%s %s: %v", kind, obj.GetName(), err), nil
	}
	ok, err := a.Allowed(ctx, author, attrs)
	if err != nil || ok {
		return nil, err
	}
	return fmt.Errorf("%s %s was written by %s, who may not %s", kind, obj.GetName(), author.User, what), nil
}
