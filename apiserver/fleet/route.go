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

	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fedhq/fed/apiserver/internal/subtree"
)

// RequestInfoResolver resolves a fleet request by its inner path, so that fed-apiserver's
// filters see what it is: authorization asks the host whether the user may, say, create
// deployments in namespace a — the same rule as for the host itself — and watches are
// long-running. Other requests go to the delegate.
func RequestInfoResolver(delegate request.RequestInfoResolver) request.RequestInfoResolver {
	return subtree.Resolver(Path, delegate)
}

// Route sends fleet requests, with Path removed, to the fleet's handler and the others to
// next. It sits inside fed-apiserver's filters, after authentication and authorization.
func Route(next http.Handler, fleet func() http.Handler) http.Handler {
	return subtree.Route(Path, next, fleet, "the fleet API is starting")
}
