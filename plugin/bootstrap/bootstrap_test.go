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

package bootstrap

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	bootstrapapi "k8s.io/cluster-bootstrap/token/api"
	"k8s.io/cluster-bootstrap/token/jws"
	bootstrapsecretutil "k8s.io/cluster-bootstrap/util/secrets"
)

func newCA(t *testing.T, name string) ([]byte, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: name}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw}), cert
}

func TestCAHash(t *testing.T) {
	caPEM, cert := newCA(t, "host-ca")
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := CAHash(cert); got != want {
		t.Fatalf("CAHash = %s, want %s", got, want)
	}
	if err := ValidatePin(want); err != nil {
		t.Fatal(err)
	}
	otherPEM, other := newCA(t, "other-ca")
	tests := []struct {
		name   string
		bundle []byte
		pins   []string
		ok     bool
	}{
		{"the pin", caPEM, []string{want}, true},
		{"upper case", caPEM, []string{strings.ToUpper(want[:7]) + strings.ToUpper(want[7:])}, true},
		{"one pin of several", caPEM, []string{CAHash(other), want}, true},
		{"a bundle with the pinned certificate second", append(otherPEM, caPEM...), []string{want}, true},
		{"another CA", otherPEM, []string{want}, false},
		{"no pins", caPEM, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyPins(tt.bundle, tt.pins)
			if (err == nil) != tt.ok {
				t.Fatalf("VerifyPins: %v, want ok %v", err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "does not match --discovery-token-ca-cert-hash") {
				t.Fatalf("VerifyPins: %v", err)
			}
		})
	}
	for _, bad := range []string{"sha256:abc", "sha1:" + want[7:], want[7:], "sha256:" + strings.Repeat("g", 64)} {
		if ValidatePin(bad) == nil {
			t.Errorf("ValidatePin(%q) accepted it", bad)
		}
	}
}

func TestVerifyClusterInfo(t *testing.T) {
	caPEM, cert := newCA(t, "host-ca")
	pin := CAHash(cert)
	_, other := newCA(t, "other-ca")
	kubeconfig, err := ClusterInfo("https://127.0.0.1:6443", caPEM)
	if err != nil {
		t.Fatal(err)
	}
	tok := Token{ID: "abcdef", Secret: "0123456789abcdef"}
	sig, err := jws.ComputeDetachedSignature(string(kubeconfig), tok.ID, tok.Secret)
	if err != nil {
		t.Fatal(err)
	}
	clusterInfo := func(data map[string]string) *corev1.ConfigMap { return &corev1.ConfigMap{Data: data} }
	signed := map[string]string{bootstrapapi.KubeConfigKey: string(kubeconfig), bootstrapapi.JWSSignatureKeyPrefix + tok.ID: sig}
	tampered := map[string]string{bootstrapapi.KubeConfigKey: strings.Replace(string(kubeconfig), "6443", "6444", 1), bootstrapapi.JWSSignatureKeyPrefix + tok.ID: sig}

	tests := []struct {
		name    string
		data    map[string]string
		tok     Token
		pins    []string
		skip    bool
		wantErr string // "" for success
	}{
		{name: "signed and pinned", data: signed, tok: tok, pins: []string{pin}},
		{name: "another CA's pin", data: signed, tok: tok, pins: []string{CAHash(other)}, wantErr: "does not match --discovery-token-ca-cert-hash"},
		{name: "another CA's pin, CA not verified", data: signed, tok: tok, pins: nil, skip: true},
		{name: "a wrong token secret", data: signed, tok: Token{ID: tok.ID, Secret: "fedcba9876543210"}, pins: []string{pin}, wantErr: "does not match the token"},
		{name: "a changed kubeconfig", data: tampered, tok: tok, pins: []string{pin}, wantErr: "does not match the token"},
		{name: "not signed yet", data: map[string]string{bootstrapapi.KubeConfigKey: string(kubeconfig)}, tok: tok, pins: []string{pin}, wantErr: errNoSignature.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca, err := VerifyClusterInfo(clusterInfo(tt.data), tt.tok, tt.pins, tt.skip)
			if tt.wantErr == "" {
				if err != nil || string(ca) != string(caPEM) {
					t.Fatalf("VerifyClusterInfo = %q, %v; want the CA", ca, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("VerifyClusterInfo: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
	if _, err := VerifyClusterInfo(clusterInfo(map[string]string{bootstrapapi.KubeConfigKey: string(kubeconfig)}), tok, []string{pin}, false); !errors.Is(err, errNoSignature) {
		t.Fatalf("an unsigned cluster-info: %v, want errNoSignature (what Discover waits on)", err)
	}
}

func TestTokens(t *testing.T) {
	tok, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if len(tok.ID) != 6 || len(tok.Secret) != 16 || tok.String() != tok.ID+"."+tok.Secret {
		t.Fatalf("NewToken = %+v (%s)", tok, tok)
	}
	if got, err := ParseToken(tok.String()); err != nil || got != tok {
		t.Fatalf("ParseToken(%s) = %+v, %v", tok, got, err)
	}
	for _, s := range []string{tok.ID, tok.String()} {
		if id, err := ParseTokenID(s); err != nil || id != tok.ID {
			t.Fatalf("ParseTokenID(%s) = %q, %v", s, id, err)
		}
	}
	for _, bad := range []string{"ABCDEF", "abcdef.short", "abcdefg", ""} {
		if _, err := ParseTokenID(bad); err == nil {
			t.Errorf("ParseTokenID(%q) accepted it", bad)
		}
	}

	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := NewTokenSecret(tok, "for member9", 24*time.Hour, now)
	if s.Name != "bootstrap-token-"+tok.ID || s.Namespace != "kube-system" || s.Type != "bootstrap.kubernetes.io/token" || s.Labels[labelManagedBy] != managedBy {
		t.Fatalf("secret %s/%s of type %s, labels %v", s.Namespace, s.Name, s.Type, s.Labels)
	}
	want := map[string]string{
		"token-id": tok.ID, "token-secret": tok.Secret, "usage-bootstrap-authentication": "true", "usage-bootstrap-signing": "true",
		"auth-extra-groups": "system:bootstrappers:fed:register", "description": "for member9", "expiration": "2026-11-27T12:00:00Z",
	}
	for k, v := range want {
		if got := string(s.Data[k]); got != v {
			t.Errorf("data %s = %q, want %q", k, got, v)
		}
	}
	if len(s.Data) != len(want) {
		t.Errorf("data has %d keys, want %d", len(s.Data), len(want))
	}
	if groups, err := bootstrapsecretutil.GetGroups(s); err != nil || len(groups) != 2 {
		t.Errorf("groups %v, %v: want system:bootstrappers and fed's", groups, err)
	}

	rows := []struct {
		name string
		s    *corev1.Secret
		at   time.Time
		want TokenRow
	}{
		{"a day left", s, now, TokenRow{ID: tok.ID, TTL: "24h", Expires: "2026-11-27T12:00:00Z", Description: "for member9"}},
		{"90 minutes left", s, now.Add(22*time.Hour + 30*time.Minute), TokenRow{ID: tok.ID, TTL: "90m", Expires: "2026-11-27T12:00:00Z", Description: "for member9"}},
		{"expired", s, now.Add(25 * time.Hour), TokenRow{ID: tok.ID, TTL: "<invalid>", Expires: "2026-11-27T12:00:00Z", Description: "for member9"}},
		{"no expiration", NewTokenSecret(tok, "", 0, now), now, TokenRow{ID: tok.ID, TTL: "<forever>", Expires: "<never>"}},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			if got := Row(tt.s, tt.at); got != tt.want {
				t.Fatalf("Row = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDiscoverTimesOut: Discover ends with its own timeout's message whether the host keeps
// answering an unsigned cluster-info or its last read is cut short by the timeout. Polling
// every 10 ms would spend a rate-limited client's burst (10 requests at 5 per second), and a
// later read would meet the limiter's refusal to wait past the deadline.
func TestDiscoverTimesOut(t *testing.T) {
	caPEM, _ := newCA(t, "host-ca")
	kubeconfig, err := ClusterInfo("https://127.0.0.1:6443", caPEM)
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := json.Marshal(&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespacePublic, Name: bootstrapapi.ConfigMapClusterInfo},
		Data:       map[string]string{bootstrapapi.KubeConfigKey: string(kubeconfig)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		answer http.HandlerFunc
	}{
		{name: "never signed", answer: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(unsigned)
		}},
		{name: "last read cut short", answer: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			host := httptest.NewTLSServer(tt.answer)
			defer host.Close()
			d := Discovery{Server: host.URL, Token: Token{ID: "abcdef", Secret: "0123456789abcdef"}, SkipCAVerification: true,
				Timeout: 300 * time.Millisecond, Interval: 10 * time.Millisecond}
			_, err := d.Discover(context.Background())
			if err == nil || !strings.Contains(err.Error(), "carries no signature for token ID abcdef after 300ms") {
				t.Fatalf("Discover: %v, want the timeout's message", err)
			}
		})
	}
}
