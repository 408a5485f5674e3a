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
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// requestInfoFactory resolves fleet paths as kube-apiserver resolves its own.
var requestInfoFactory = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// innerPath returns the path of a fleet request below Path.
func innerPath(p string) (string, bool) {
	if p != Path && !strings.HasPrefix(p, Path+"/") {
		return "", false
	}
	inner := strings.TrimPrefix(p, Path)
	if inner == "" {
		inner = "/"
	}
	return inner, true
}

// RequestInfoResolver resolves a fleet request by its inner path, so that fed-apiserver's
// filters see what it is: authorization asks the host whether the user may, say, create
// deployments in namespace a — the same rule as for the host itself — and watches are
// long-running. Other requests go to the delegate.
func RequestInfoResolver(delegate request.RequestInfoResolver) request.RequestInfoResolver {
	return resolver{delegate}
}

type resolver struct{ delegate request.RequestInfoResolver }

func (r resolver) NewRequestInfo(req *http.Request) (*request.RequestInfo, error) {
	inner, ok := innerPath(req.URL.Path)
	if !ok {
		return r.delegate.NewRequestInfo(req)
	}
	return requestInfoFactory.NewRequestInfo(withPath(req, inner))
}

// Route sends fleet requests, with Path removed, to the fleet's handler and the others to
// next. It sits inside fed-apiserver's filters, after authentication and authorization.
func Route(next http.Handler, fleet func() http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		inner, ok := innerPath(req.URL.Path)
		if !ok {
			next.ServeHTTP(w, req)
			return
		}
		h := fleet()
		if h == nil {
			http.Error(w, "the fleet API is starting", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, withPath(req, inner))
	})
}

func withPath(req *http.Request, p string) *http.Request {
	r := new(http.Request)
	*r = *req
	u := new(url.URL)
	*u = *req.URL
	u.Path, u.RawPath = p, ""
	r.URL = u
	r.RequestURI = u.RequestURI()
	return r
}
