// Package clusterproxy forwards a request to a member cluster's API server as the user who
// made it: fed authenticates to the member with its own credentials and impersonates the
// caller, so the member's RBAC decides what that user may do there.
package clusterproxy

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/rest"

	"github.com/fedhq/fed/clusterclient"
)

// Handler returns the handler that sends one request to memberPath on the member reached
// with cfg, impersonating u. It handles upgrades (exec, attach, port-forward) and streams
// (logs -f, watches).
func Handler(cfg *rest.Config, u user.Info, memberPath string, responder proxy.ErrorResponder) (http.Handler, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = impersonation(u)
	f, err := clusterclient.NewForwarder(cfg, responder)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		f.Forward(w, withoutCallerCredentials(req), memberPath)
	}), nil
}

// impersonation is who the member should see: the caller as the host authenticated it.
// The groups every authenticated user has are added by the member itself.
func impersonation(u user.Info) rest.ImpersonationConfig {
	var groups []string
	for _, g := range u.GetGroups() {
		if g != user.AllAuthenticated {
			groups = append(groups, g)
		}
	}
	return rest.ImpersonationConfig{UserName: u.GetName(), UID: u.GetUID(), Groups: groups, Extra: u.GetExtra()}
}

// withoutCallerCredentials copies req with every header that carried the caller's identity
// to fed removed: the member must only see fed's credentials and the impersonation headers
// fed sets.
func withoutCallerCredentials(req *http.Request) *http.Request {
	out := req.Clone(req.Context())
	for name := range out.Header {
		lower := strings.ToLower(name)
		if lower == "authorization" || strings.HasPrefix(lower, "impersonate-") || strings.HasPrefix(lower, "x-remote-") {
			out.Header.Del(name)
		}
	}
	return out
}
