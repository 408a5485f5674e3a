package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// clientCAGate holds requests back, with a 503 and Retry-After, until the server trusts the
// client CA the host publishes for extension servers (client-ca-file of
// kube-system/extension-apiserver-authentication).
//
// The generic apiserver loads that CA from the ConfigMap with an informer that starts when
// it starts serving, so for the first half second or so a client certificate of the host's
// CA is not verified and its request is served as system:anonymous: kubectl, Helm or a
// GitOps controller that reached fed-apiserver right after it started got "forbidden: User
// system:anonymous", and gave up, instead of an answer to retry (client-go retries a 503
// with Retry-After by itself). The request-header CA (the aggregator's) is read before
// serving and needs no gate.
type clientCAGate struct {
	// trusted is what the server trusts: its serving's client CAs.
	trusted dynamiccertificates.CAContentProvider
	host    kubernetes.Interface

	open atomic.Bool
	mu   sync.Mutex
	// published is the host's client-ca-file, once read; readAt is when it was last tried.
	published []byte
	readAt    time.Time
}

// newClientCAGate returns the gate, nil when the server does not take its client CA from
// the host's ConfigMap (a --client-ca-file, or no host).
func newClientCAGate(trusted dynamiccertificates.CAContentProvider, host kubernetes.Interface) *clientCAGate {
	if trusted == nil || host == nil {
		return nil
	}
	return &clientCAGate{trusted: trusted, host: host}
}

// ready tells whether the server trusts the host's client CA yet; once it does, for good.
func (g *clientCAGate) ready(ctx context.Context) bool {
	if g.open.Load() {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.published == nil && time.Since(g.readAt) > 200*time.Millisecond {
		g.readAt = time.Now()
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		cm, err := g.host.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
		switch {
		case err == nil && cm.Data["client-ca-file"] == "":
			// The host publishes no client CA: nothing to wait for.
			g.open.Store(true)
			return true
		case err == nil:
			g.published = bytes.TrimSpace([]byte(cm.Data["client-ca-file"]))
		default:
			klog.FromContext(ctx).V(2).Info("Reading the host's client CA to know when it is trusted", "err", err)
		}
	}
	if g.published != nil && bytes.Contains(g.trusted.CurrentCABundleContent(), g.published) {
		g.open.Store(true)
		klog.FromContext(ctx).V(2).Info("The host's client CA is trusted: serving every request")
		return true
	}
	return false
}

// wrap answers 503 with Retry-After until the gate is open.
func (g *clientCAGate) wrap(handler http.Handler) http.Handler {
	if g == nil {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !g.ready(req.Context()) {
			status := apierrors.NewServiceUnavailable("fed-apiserver is starting: it does not trust the host's client CA yet (kube-system/extension-apiserver-authentication); retry in a second").Status()
			body, _ := json.Marshal(&status)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write(body)
			return
		}
		handler.ServeHTTP(w, req)
	})
}
