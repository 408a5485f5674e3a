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

package fleet

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// rules allows what its function says and records what it was asked.
type rules struct {
	allow func(authorizer.Attributes) bool
	asked []string
}

func (r *rules) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.asked = append(r.asked, a.GetVerb()+" "+a.GetResource()+"/"+a.GetSubresource())
	if r.allow(a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no rule", nil
}

func TestAccessReview(t *testing.T) {
	u := &user.DefaultInfo{Name: "team"}
	spec := func(verb, resource string) authorizationv1.SelfSubjectAccessReviewSpec {
		return authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Resource: resource, Namespace: "a"}}
	}
	viewer := &rules{allow: func(a authorizer.Attributes) bool {
		return a.GetResource() == "fleets" && a.GetVerb() == "get" || a.GetResource() == "deployments"
	}}
	f := &Fleet{cfg: Config{Authorizer: authorizer.AuthorizerFunc(viewer.Authorize)}}
	req := httptest.NewRequest("POST", "/", nil)
	if st, err := f.accessReview(req, u, spec("list", "deployments")); err != nil || !st.Allowed {
		t.Errorf("list through a gate of get: %+v, %v", st, err)
	}
	if got := strings.Join(viewer.asked, ","); got != "get fleets/proxy,list deployments/" {
		t.Errorf("asked %s, want the gate then the request", got)
	}
	st, err := f.accessReview(req, u, spec("create", "deployments"))
	if err != nil || st.Allowed || !strings.Contains(st.Reason, "create fleets/proxy") {
		t.Errorf("create through a gate of get only: %+v, %v; want refused by the gate", st, err)
	}
	if _, err := f.accessReview(req, u, authorizationv1.SelfSubjectAccessReviewSpec{}); err == nil {
		t.Error("a review of nothing accepted")
	}
}
