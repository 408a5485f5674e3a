package apiserver

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes/fake"
)

// caContent is the bundle the server trusts, which the test changes as the ConfigMap's
// controller would once it has read the host's CA.
type caContent struct{ bundle []byte }

func (c *caContent) Name() string                              { return "test" }
func (c *caContent) CurrentCABundleContent() []byte            { return c.bundle }
func (c *caContent) AddListener(dynamiccertificates.Listener)  {}
func (c *caContent) VerifyOptions() (x509.VerifyOptions, bool) { return x509.VerifyOptions{}, false }

func TestClientCAGateOpensOnceTheHostCAIsTrusted(t *testing.T) {
	host := fake.NewSimpleClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "extension-apiserver-authentication"},
		Data:       map[string]string{"client-ca-file": "HOST-CA\n"},
	})
	trusted := &caContent{bundle: []byte("REQUESTHEADER-CA\n")}
	served := 0
	handler := newClientCAGate(trusted, host).wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	get := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/apis", nil).WithContext(context.Background()))
		return w
	}
	if w := get(); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || served != 0 {
		t.Fatalf("before the host's CA is trusted: %d, Retry-After %q, served %d; want 503, 1, 0", w.Code, w.Header().Get("Retry-After"), served)
	}
	trusted.bundle = []byte("REQUESTHEADER-CA\nHOST-CA\n")
	if w := get(); w.Code != http.StatusOK || served != 1 {
		t.Fatalf("once trusted: %d, served %d", w.Code, served)
	}
	// Open for good: a CA rotated later is the authenticator's business, not the gate's.
	trusted.bundle = nil
	if w := get(); w.Code != http.StatusOK || served != 2 {
		t.Fatalf("after: %d, served %d", w.Code, served)
	}
}

func TestClientCAGateWithoutAHostCA(t *testing.T) {
	host := fake.NewSimpleClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "extension-apiserver-authentication"},
		Data:       map[string]string{"requestheader-client-ca-file": "REQUESTHEADER-CA"},
	})
	g := newClientCAGate(&caContent{}, host)
	if !g.ready(context.Background()) {
		t.Fatal("a host that publishes no client CA holds requests back")
	}
	// A host that cannot be read yet is asked again, at most every 200 ms.
	g = newClientCAGate(&caContent{}, fake.NewSimpleClientset())
	if g.ready(context.Background()) || g.ready(context.Background()) {
		t.Fatal("ready without the host's ConfigMap")
	}
	if n := len(g.host.(*fake.Clientset).Actions()); n != 1 {
		t.Fatalf("%d reads of the ConfigMap at once, want 1", n)
	}
	time.Sleep(250 * time.Millisecond)
	g.ready(context.Background())
	if n := len(g.host.(*fake.Clientset).Actions()); n != 2 {
		t.Fatalf("%d reads after 250 ms, want 2", n)
	}
}
