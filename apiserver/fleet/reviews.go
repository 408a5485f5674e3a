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
	"fmt"
	"io"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

var (
	selfSubjectAccessReviews = authorizationv1.SchemeGroupVersion.WithResource("selfsubjectaccessreviews")
	selfSubjectReviews       = authenticationv1.SchemeGroupVersion.WithResource("selfsubjectreviews")
)

// serveReview answers the reviews a user asks about themselves, as a cluster does, for the
// fleet: kubectl auth can-i (a SelfSubjectAccessReview, answered by the rules that govern
// the fleet: the host's gate to it, fleets/proxy, and the host's rule for the request
// itself, as fed-apiserver's authorization applies them) and kubectl auth whoami (a
// SelfSubjectReview: the user the host authenticated). It says whether gvr is one of them.
func (f *Fleet) serveReview(w http.ResponseWriter, req *http.Request, info *request.RequestInfo, gvr schema.GroupVersionResource) bool {
	if gvr != selfSubjectAccessReviews && gvr != selfSubjectReviews {
		return false
	}
	gv := gvr.GroupVersion()
	fail := func(err error) {
		responsewriters.ErrorNegotiated(err, clientgoscheme.Codecs, gv, w, req)
	}
	if info.Verb != "create" {
		fail(apierrors.NewMethodNotSupported(gvr.GroupResource(), info.Verb))
		return true
	}
	u, ok := request.UserFrom(req.Context())
	if !ok {
		fail(apierrors.NewBadRequest("no user on the request"))
		return true
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		fail(apierrors.NewBadRequest(err.Error()))
		return true
	}
	obj, _, err := clientgoscheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		fail(apierrors.NewBadRequest(fmt.Sprintf("decoding the review: %v", err)))
		return true
	}
	var answer runtime.Object
	switch r := obj.(type) {
	case *authorizationv1.SelfSubjectAccessReview:
		if gvr != selfSubjectAccessReviews {
			fail(apierrors.NewBadRequest(fmt.Sprintf("a %T sent to %s", obj, gvr.Resource)))
			return true
		}
		r.Status, err = f.accessReview(req, u, r.Spec)
		if err != nil {
			fail(err)
			return true
		}
		answer = r
	case *authenticationv1.SelfSubjectReview:
		if gvr != selfSubjectReviews {
			fail(apierrors.NewBadRequest(fmt.Sprintf("a %T sent to %s", obj, gvr.Resource)))
			return true
		}
		r.Status.UserInfo = authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
		if extra := u.GetExtra(); len(extra) > 0 {
			r.Status.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range extra {
				r.Status.UserInfo.Extra[k] = v
			}
		}
		answer = r
	default:
		fail(apierrors.NewBadRequest(fmt.Sprintf("not a review: %T", obj)))
		return true
	}
	responsewriters.WriteObjectNegotiated(clientgoscheme.Codecs, negotiation.DefaultEndpointRestrictions, gv, w, req, http.StatusCreated, answer, false)
	return true
}

// accessReview is whether user may do what spec names through the fleet: pass the host's
// gate (fleets/proxy, by the HTTP method such a request takes) and do it by the host's rule.
func (f *Fleet) accessReview(req *http.Request, u user.Info, spec authorizationv1.SelfSubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, error) {
	var inner authorizer.AttributesRecord
	switch {
	case spec.ResourceAttributes != nil:
		a := spec.ResourceAttributes
		inner = authorizer.AttributesRecord{User: u, Verb: a.Verb, Namespace: a.Namespace, APIGroup: a.Group, APIVersion: a.Version,
			Resource: a.Resource, Subresource: a.Subresource, Name: a.Name, ResourceRequest: true}
	case spec.NonResourceAttributes != nil:
		inner = authorizer.AttributesRecord{User: u, Verb: spec.NonResourceAttributes.Verb, Path: spec.NonResourceAttributes.Path}
	default:
		return authorizationv1.SubjectAccessReviewStatus{}, apierrors.NewBadRequest("spec: one of resourceAttributes and nonResourceAttributes is required")
	}
	if f.cfg.Authorizer == nil {
		return authorizationv1.SubjectAccessReviewStatus{}, apierrors.NewServiceUnavailable("the fleet has no authorizer")
	}
	gate := authorizer.AttributesRecord{User: u, Verb: gateVerb(inner.Verb), APIGroup: federationv1alpha1.GroupName, APIVersion: "v1alpha1",
		Resource: federationv1alpha1.FleetResource, Subresource: "proxy", Name: federationv1alpha1.FleetName, ResourceRequest: true}
	for _, attrs := range []authorizer.AttributesRecord{gate, inner} {
		decision, reason, err := f.cfg.Authorizer.Authorize(req.Context(), attrs)
		if decision != authorizer.DecisionAllow {
			status := authorizationv1.SubjectAccessReviewStatus{Denied: decision == authorizer.DecisionDeny, Reason: reason}
			if attrs.Resource == federationv1alpha1.FleetResource {
				status.Reason = strings.TrimSpace(fmt.Sprintf("the host does not let you %s fleets/proxy (the fleet's gate) %s", gate.Verb, reason))
			}
			if err != nil {
				status.EvaluationError = err.Error()
			}
			return status, nil
		}
	}
	return authorizationv1.SubjectAccessReviewStatus{Allowed: true}, nil
}

// gateVerb is the verb the host checks of fleets/proxy for a request of verb through the
// fleet: a proxy subresource's verb is its HTTP method's.
func gateVerb(verb string) string {
	switch verb {
	case "get", "list", "watch":
		return "get"
	case "deletecollection":
		return "delete"
	}
	return verb // create, update, patch, delete
}
