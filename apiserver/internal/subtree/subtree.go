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

// Package subtree serves a Kubernetes API below a path prefix of fed-apiserver (the fleet,
// the search cache): it resolves such a request by its inner path, so that fed-apiserver's
// filters see what it is (authorization asks the host whether the user may, say, list pods
// in namespace a, and watches are long-running), and routes it, with the prefix removed,
// to the handler of the subtree.
package subtree

import (
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// RequestInfoFactory resolves inner paths as kube-apiserver resolves its own.
var RequestInfoFactory = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// Inner returns the path of a request below prefix, and whether it is below it.
func Inner(p, prefix string) (string, bool) {
	if p != prefix && !strings.HasPrefix(p, prefix+"/") {
		return "", false
	}
	inner := strings.TrimPrefix(p, prefix)
	if inner == "" {
		inner = "/"
	}
	return inner, true
}

// Resolver resolves a request below prefix by its inner path, and the others with
// delegate.
func Resolver(prefix string, delegate request.RequestInfoResolver) request.RequestInfoResolver {
	return resolver{prefix: prefix, delegate: delegate}
}

type resolver struct {
	prefix   string
	delegate request.RequestInfoResolver
}

func (r resolver) NewRequestInfo(req *http.Request) (*request.RequestInfo, error) {
	inner, ok := Inner(req.URL.Path, r.prefix)
	if !ok {
		return r.delegate.NewRequestInfo(req)
	}
	return RequestInfoFactory.NewRequestInfo(WithPath(req, inner))
}

// Route sends requests below prefix, with prefix removed, to the handler handler returns,
// and the others to next; while handler returns nil, they are answered 503 with
// unavailable. It sits inside fed-apiserver's filters, after authentication and
// authorization.
func Route(prefix string, next http.Handler, handler func() http.Handler, unavailable string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		inner, ok := Inner(req.URL.Path, prefix)
		if !ok {
			next.ServeHTTP(w, req)
			return
		}
		h := handler()
		if h == nil {
			http.Error(w, unavailable, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, WithPath(req, inner))
	})
}

// WithPath is req for path p.
func WithPath(req *http.Request, p string) *http.Request {
	r := new(http.Request)
	*r = *req
	u := new(url.URL)
	*u = *req.URL
	u.Path, u.RawPath = p, ""
	r.URL = u
	r.RequestURI = u.RequestURI()
	return r
}
