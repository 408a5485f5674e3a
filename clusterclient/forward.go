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

package clusterclient

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/client-go/rest"
)

// Forwarder sends requests to a member's API server with the credentials (and the
// impersonation) of a client configuration, upgrades (exec, attach, port-forward) and
// streams (logs -f, watches) included: the cluster proxy forwards to members this way, and a
// pull cluster's agent forwards what comes through its tunnel to its own cluster.
type Forwarder struct {
	location  *url.URL
	transport http.RoundTripper
	upgrade   proxy.UpgradeRequestRoundTripper
	responder proxy.ErrorResponder
}

// NewForwarder returns the Forwarder to the server cfg reaches.
func NewForwarder(cfg *rest.Config, responder proxy.ErrorResponder) (*Forwarder, error) {
	location, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("member endpoint %q: %w", cfg.Host, err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	// Upgrades dial the member themselves (through cfg's dialer, if it has one: a pull
	// cluster's tunnel) and carry the credentials and impersonation headers of cfg on the
	// upgrade request.
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	dialer := &http.Transport{TLSClientConfig: tlsConfig}
	if cfg.Dial != nil {
		dialer.DialContext = cfg.Dial
	}
	headers, err := rest.HTTPWrappersForConfig(cfg, proxy.MirrorRequest)
	if err != nil {
		return nil, err
	}
	return &Forwarder{location: location, transport: rt,
		upgrade: proxy.NewUpgradeRequestRoundTripper(utilnet.SetTransportDefaults(dialer), headers), responder: responder}, nil
}

// Forward sends req to memberPath on the member, with req's query.
func (f *Forwarder) Forward(w http.ResponseWriter, req *http.Request, memberPath string) {
	loc := *f.location
	loc.Path = path.Join(loc.Path, "/", memberPath)
	if strings.HasSuffix(memberPath, "/") && !strings.HasSuffix(loc.Path, "/") {
		loc.Path += "/"
	}
	// The handler takes an upgrade's query from its location, not the request.
	loc.RawQuery = req.URL.RawQuery
	h := proxy.NewUpgradeAwareHandler(&loc, f.transport, false, false, f.responder)
	h.UpgradeTransport = f.upgrade
	h.ServeHTTP(w, req)
}
