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

package install

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func TestNewCerts(t *testing.T) {
	c, err := NewCerts()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	notAfter, err := c.Check(now)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if d := notAfter.Sub(now); d < 9*365*24*time.Hour {
		t.Errorf("valid for %s only", d)
	}
	// What the aggregator does: verify the serving certificate for the Service's name
	// against the APIServices' caBundle.
	leaf := parse(t, c.Cert)
	roots := x509.NewCertPool()
	for _, ca := range parseAll(t, c.CA) {
		roots.AddCert(ca)
	}
	for _, name := range []string{"fed-apiserver.fed-system.svc", "fed-apiserver.fed-system.svc.cluster.local"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "kubernetes.default.svc", Roots: roots}); err == nil {
		t.Error("the certificate verifies for kubernetes.default.svc")
	}
	if !parseAll(t, c.CA)[0].IsCA {
		t.Error("ca.crt is not a CA")
	}
	// Another pair is another CA: renewing trusts nothing of the old one.
	other, err := NewCerts()
	if err != nil {
		t.Fatal(err)
	}
	if string(other.CA) == string(c.CA) {
		t.Error("two calls made the same CA")
	}
}

func TestCheck(t *testing.T) {
	good, err := NewCerts()
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCerts()
	if err != nil {
		t.Fatal(err)
	}
	otherName := selfSignedFor(t, "kubernetes.default.svc")
	now := time.Now()
	for _, c := range []struct {
		name  string
		certs Certs
		at    time.Time
		want  string
	}{
		{"no tls.crt", Certs{Key: good.Key, CA: good.CA}, now, "no tls.crt"},
		{"no ca.crt", Certs{Cert: good.Cert, Key: good.Key}, now, "no ca.crt"},
		{"another key", Certs{Cert: good.Cert, Key: other.Key, CA: good.CA}, now, "tls.crt and tls.key"},
		{"another CA", Certs{Cert: good.Cert, Key: good.Key, CA: other.CA}, now, "not a serving certificate of fed-apiserver.fed-system.svc signed by ca.crt"},
		{"another name", otherName, now, "not a serving certificate of fed-apiserver.fed-system.svc"},
		{"expiring", *good, now.Add(10*365*24*time.Hour - 10*24*time.Hour), "expires on"},
		{"expired", *good, now.Add(11 * 365 * 24 * time.Hour), "not a serving certificate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.certs.Check(c.at)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// selfSignedFor is a CA and a certificate it signs for another name than fed-apiserver's.
func selfSignedFor(t *testing.T, name string) Certs {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "other-ca"}, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	der, err := x509.CreateCertificate(cryptorand.Reader, &x509.Certificate{SerialNumber: ca.SerialNumber, DNSNames: []string{name},
		NotBefore: ca.NotBefore, NotAfter: ca.NotAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _ := encodeDER(der)
	keyPEM, _ := keyutil.MarshalPrivateKeyToPEM(key)
	caPEM, _ := cert.EncodeCertificates(ca)
	return Certs{Cert: certPEM, Key: keyPEM, CA: caPEM}
}

func parse(t *testing.T, pem []byte) *x509.Certificate {
	t.Helper()
	return parseAll(t, pem)[0]
}

func parseAll(t *testing.T, pem []byte) []*x509.Certificate {
	t.Helper()
	certs, err := cert.ParseCertsPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	return certs
}

func TestOperation(t *testing.T) {
	obj := func(rv string, mutate func(map[string]any)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "fed-apiserver", "resourceVersion": rv, "managedFields": []any{map[string]any{"manager": rv}}},
			"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(443)}}},
			"status":   map[string]any{"loadBalancer": map[string]any{}}}}
		if mutate != nil {
			mutate(u.Object)
		}
		return u
	}
	if op := operation(nil, obj("1", nil)); op != Created {
		t.Errorf("no object before: %s", op)
	}
	if op := operation(obj("1", nil), obj("2", func(m map[string]any) { m["status"] = map[string]any{"x": "y"} })); op != Unchanged {
		t.Errorf("only bookkeeping changed: %s", op)
	}
	if op := operation(obj("1", nil), obj("2", func(m map[string]any) { m["spec"] = map[string]any{} })); op != Configured {
		t.Errorf("spec changed: %s", op)
	}
}

func TestConflicts(t *testing.T) {
	err := apierrors.NewApplyConflict([]metav1.StatusCause{
		{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.caBundle", Message: `conflict with "lab" using apiregistration.k8s.io/v1`},
		{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.service.port", Message: `conflict with "lab" using apiregistration.k8s.io/v1`},
	}, "Apply failed with 2 conflicts")
	got := conflicts(err)
	want := []string{`.spec.caBundle (conflict with "lab" using apiregistration.k8s.io/v1)`, `.spec.service.port (conflict with "lab" using apiregistration.k8s.io/v1)`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("conflicts = %q, want %q", got, want)
	}
	if got := conflicts(apierrors.NewConflict(schema.GroupResource{Resource: "services"}, "x", nil)); got != nil {
		t.Errorf("an update conflict has fields %q", got)
	}
}

func TestRef(t *testing.T) {
	for _, c := range []struct{ apiVersion, kind, want string }{
		{"v1", "Namespace", "namespace/n"},
		{"apiregistration.k8s.io/v1", "APIService", "apiservice.apiregistration.k8s.io/n"},
		{"apps/v1", "StatefulSet", "statefulset.apps/n"},
	} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(c.apiVersion)
		u.SetKind(c.kind)
		u.SetName("n")
		if got := Ref(u); got != c.want {
			t.Errorf("Ref = %q, want %q", got, c.want)
		}
	}
}
