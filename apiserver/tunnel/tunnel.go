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

// Package tunnel holds the tunnels that pull clusters' agents open to fed-apiserver (the
// Cluster's attach subresource), over which fed reaches each such cluster's API server — the
// cluster proxy, kubectl fed get/logs/exec, search and metrics — without any inbound
// connection to the cluster. rancher/remotedialer carries them: one websocket per agent, on
// which fed's connections are multiplexed; the agent answers each with its cluster's API
// server, under its own credentials.
package tunnel

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rancher/remotedialer"
	"github.com/sirupsen/logrus"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// Server holds the agents' tunnels, by cluster name.
type Server struct {
	rd *remotedialer.Server

	mu sync.Mutex
	// transports are one per cluster, reused by every client of it (client-go's cache
	// of transports cannot tell one dial function from another).
	transports map[string]http.RoundTripper
}

type clusterKey struct{}

// New returns a Server with no tunnel.
func New() *Server {
	// remotedialer logs every tunnel and connection with logrus at info; fed logs what
	// matters itself.
	logrus.SetLevel(logrus.WarnLevel)
	s := &Server{transports: map[string]http.RoundTripper{}}
	s.rd = remotedialer.New(s.authorize, remotedialer.DefaultErrorWriter)
	return s
}

// authorize lets a tunnel request in when its user is the agent of the cluster it names;
// the tunnel is then that cluster's.
func (s *Server) authorize(req *http.Request) (string, bool, error) {
	cluster, _ := req.Context().Value(clusterKey{}).(string)
	u, ok := request.UserFrom(req.Context())
	if cluster == "" || !ok {
		return "", false, nil
	}
	return cluster, u.GetName() == clusterv1alpha1.AgentUser(cluster), nil
}

// Handler serves the tunnel request of a cluster's agent: it upgrades to a websocket and
// keeps the tunnel until either side closes it. Of two tunnels of the same cluster (a
// restarted agent whose old connection is not yet known to be gone), remotedialer uses the
// older until its pings time out (a minute).
func (s *Server) Handler(cluster string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.rd.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), clusterKey{}, cluster)))
	})
}

// Connected says whether a cluster's agent holds a tunnel open.
func (s *Server) Connected(cluster string) bool { return s.rd.HasSession(cluster) }

// Config is the client configuration of a pull cluster's API server through its agent's
// tunnel. It carries no credentials (the agent adds its own); callers add impersonation.
func (s *Server) Config(cluster string) (*rest.Config, error) {
	if !s.rd.HasSession(cluster) {
		return nil, fmt.Errorf("cluster %s is in pull mode and its agent holds no tunnel open to this fed-apiserver: is fed-agent running there? "+
			"(with several replicas of fed-apiserver, only the one its agent is connected to reaches it)", cluster)
	}
	host, _, _ := strings.Cut(clusterv1alpha1.AgentTunnelAddress, ":")
	dial := s.rd.Dialer(cluster)
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.transports[cluster]
	if !ok {
		// The dialer finds the cluster's session at each dial: a reconnected agent's new
		// tunnel serves the same transport.
		rt = utilnet.SetTransportDefaults(&http.Transport{DialContext: dial, MaxIdleConnsPerHost: 25, IdleConnTimeout: 90 * time.Second})
		s.transports[cluster] = rt
	}
	// Dial is for upgrades (exec, attach, port-forward), which dial themselves.
	return &rest.Config{Host: "http://" + host, Transport: rt, Dial: dial}, nil
}
