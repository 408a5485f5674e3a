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

package hostvalidation

import (
	"fmt"
	"net/http"

	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/transport"
)

// AsCaller wraps a transport to the host so that each request impersonates the user of its
// context (request.UserFrom): the user and groups fed-apiserver authenticated for the
// request being validated, as the aggregator passed them. The host then judges a template
// as it would judge its author creating it there: RBAC (escalation through Roles and
// bindings included), admission plugins and webhooks see the author, not fed. Extra fields
// and the UID are not passed: impersonating them would need rights on every extra key, and
// the host's authorization reads user and groups.
//
// A request whose context has no user is not sent: nothing is validated as fed itself.
func AsCaller(rt http.RoundTripper) http.RoundTripper {
	return callerTransport{rt}
}

type callerTransport struct{ rt http.RoundTripper }

func (c callerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	u, ok := request.UserFrom(req.Context())
	if !ok || u.GetName() == "" {
		return nil, fmt.Errorf("hostvalidation: no user to validate the template as")
	}
	return transport.NewImpersonatingRoundTripper(transport.ImpersonationConfig{UserName: u.GetName(), Groups: u.GetGroups()}, c.rt).RoundTrip(req)
}

func (c callerTransport) WrappedRoundTripper() http.RoundTripper { return c.rt }
