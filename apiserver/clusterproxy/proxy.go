// Package clusterproxy forwards a request to a member cluster's API server as the user who
// made it: fed authenticates to the member with its own credentials and impersonates the
// caller, so the member's RBAC decides what that user may do there.
package clusterproxy

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/rest"
)

// Handler returns the handler that sends one request to memberPath on the member reached
// with cfg, impersonating u. It handles upgrades (exec, attach, port-forward) and streams
// (logs -f, watches).
func Handler(cfg *rest.Config, u user.Info, memberPath string, responder proxy.ErrorResponder) (http.Handler, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = impersonation(u)

	location, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("member endpoint %q: %w", cfg.Host, err)
	}
	location.Path = path.Join(location.Path, "/", memberPath)
	if strings.HasSuffix(memberPath, "/") && !strings.HasSuffix(location.Path, "/") {
		location.Path += "/"
	}

	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	// Upgrades dial the member over TLS and carry fed's credentials and the impersonation
	// headers on the upgrade request.
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	dialer := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsConfig})
	headers, err := rest.HTTPWrappersForConfig(cfg, proxy.MirrorRequest)
	if err != nil {
		return nil, err
	}

	upgrade := proxy.NewUpgradeRequestRoundTripper(dialer, headers)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// The handler takes an upgrade's query from its location, not the request.
		loc := *location
		loc.RawQuery = req.URL.RawQuery
		h := proxy.NewUpgradeAwareHandler(&loc, rt, false, false, responder)
		h.UpgradeTransport = upgrade
		h.ServeHTTP(w, withoutCallerCredentials(req))
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
