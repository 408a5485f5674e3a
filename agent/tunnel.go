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

package agent

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rancher/remotedialer"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/certificate"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
)

// holdTunnel keeps the agent's tunnel to fed-apiserver open until ctx is done: a websocket
// to its Cluster's attach subresource in the host, as the agent, opened again after every
// loss (backing off to 30 s). Every connection fed makes through it reaches the agent's
// cluster's API server, under the agent's credentials (fed's impersonation headers kept):
// fed reaches the cluster with no inbound connection to it.
func holdTunnel(ctx context.Context, id hostIdentity, certs certificate.Manager, member *rest.Config) error {
	forward, err := memberProxy(member)
	if err != nil {
		return err
	}
	// The member's API answers on a listener in the process, which only the tunnel dials:
	// no local user can reach the agent's credentials through it.
	ln := newPipeListener()
	srv := &http.Server{Handler: forward, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()

	u, err := url.Parse(id.Server)
	if err != nil {
		return fmt.Errorf("the host's server %q: %w", id.Server, err)
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = strings.TrimSuffix(u.Path, "/") + "/apis/" + clusterv1alpha1.SchemeGroupVersion.String() + "/clusters/" + id.Cluster + "/attach"
	tlsCfg, err := agentTLS(id, certs)
	if err != nil {
		return err
	}
	dialer := &websocket.Dialer{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsCfg, HandshakeTimeout: 10 * time.Second}
	// fed dials one address, which is the member's API server; the agent dials nothing else.
	allow := func(proto, address string) bool {
		return proto == "tcp" && address == clusterv1alpha1.AgentTunnelAddress
	}
	local := func(ctx context.Context, _, _ string) (net.Conn, error) { return ln.dial(ctx) }
	logrus.SetLevel(logrus.WarnLevel) // remotedialer's own logs; the agent logs what matters
	logger := klog.FromContext(ctx)
	go func() {
		backoff := tunnelBackoff()
		for ctx.Err() == nil {
			started := time.Now()
			err := remotedialer.ConnectToProxyWithDialer(ctx, u.String(), nil, allow, dialer, local, nil)
			if ctx.Err() != nil {
				return
			}
			if time.Since(started) > time.Minute {
				backoff = tunnelBackoff()
			}
			delay := backoff.Step()
			logger.Info("The tunnel to fed-apiserver is down; opening it again", "err", err, "after", delay)
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
		}
	}()
	return nil
}

// memberProxy forwards what comes through the tunnel to the agent's cluster's API server,
// with the agent's credentials: any credentials in the request are dropped, fed's
// impersonation headers are kept, so the member's RBAC decides for the user fed names.
func memberProxy(member *rest.Config) (http.Handler, error) {
	f, err := clusterclient.NewForwarder(member, errorWriter{})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req = req.Clone(req.Context())
		req.Header.Del("Authorization")
		f.Forward(w, req, req.URL.Path)
	}), nil
}

// errorWriter answers a request the member could not be reached for.
type errorWriter struct{}

func (errorWriter) Error(w http.ResponseWriter, _ *http.Request, err error) {
	http.Error(w, "fed-agent could not reach its cluster's API server: "+err.Error(), http.StatusBadGateway)
}

// pipeListener is a net.Listener whose connections are made in the process, by dial.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// dial returns one end of a new connection whose other end Accept returns.
func (l *pipeListener) dial(ctx context.Context) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Accept implements net.Listener.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "fed-agent" }

// tunnelBackoff spaces the agent's attempts to open its tunnel again: soon, and at most 4 s
// apart (4.8 s with the jitter), since fed-apiserver restarting (a rolling update, a crash) is the usual
// reason it is down, and until it is open again fed cannot reach the member. An attempt
// costs the host one refused handshake.
func tunnelBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 5, Cap: 4 * time.Second}
}
