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
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// ServiceName is the DNS name the host's aggregator reaches fed-apiserver at (the Service
// the APIServices name), which the serving certificate must hold.
const ServiceName = "fed-apiserver." + Namespace + ".svc"

// RenewBefore is how long before it expires a serving certificate is no longer reused.
const RenewBefore = 30 * 24 * time.Hour

// Certs are fed-apiserver's serving certificate, its key and the CA that signed it, PEM
// encoded, as the Secret fed-apiserver-serving holds them (tls.crt, tls.key, ca.crt).
type Certs struct {
	Cert, Key, CA []byte
}

// NewCerts makes a self-signed CA and a serving certificate for fed-apiserver's Service
// signed by it, both valid ten years (client-go's CA lifetime): nothing rotates them, and
// only the APIServices of fed trust this CA. The CA's key is thrown away, so no other
// certificate can ever be signed by it; renewing means a new CA.
func NewCerts() (*Certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: fmt.Sprintf("fed-apiserver-ca@%d", time.Now().Unix())}, caKey)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := signServing(ca, caKey, key.Public())
	if err != nil {
		return nil, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	caPEM, err := cert.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	certPEM, err := encodeDER(der)
	if err != nil {
		return nil, err
	}
	return &Certs{Cert: certPEM, Key: keyPEM, CA: caPEM}, nil
}

// signServing signs a serving certificate for the names of fed-apiserver's Service,
// valid as long as ca.
func signServing(ca *x509.Certificate, caKey crypto.Signer, pub crypto.PublicKey) ([]byte, error) {
	serial, err := cryptorand.Int(cryptorand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: ServiceName},
		DNSNames: []string{"fed-apiserver", "fed-apiserver." + Namespace, ServiceName,
			ServiceName + ".cluster.local"},
		NotBefore:   ca.NotBefore,
		NotAfter:    ca.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return x509.CreateCertificate(cryptorand.Reader, tmpl, ca, pub, caKey)
}

func encodeDER(der []byte) ([]byte, error) {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return cert.EncodeCertificates(c)
}

// CertsFromSecret reads the serving certificate's Secret.
func CertsFromSecret(s *corev1.Secret) *Certs {
	return &Certs{Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey], CA: s.Data["ca.crt"]}
}

// Check tells whether c can serve fed-apiserver until at least RenewBefore after now: the
// key is the certificate's, the certificate is for ServiceName and verifies against the
// CA. It returns when the certificate expires.
func (c *Certs) Check(now time.Time) (time.Time, error) {
	switch {
	case len(c.Cert) == 0:
		return time.Time{}, errors.New("it has no tls.crt")
	case len(c.Key) == 0:
		return time.Time{}, errors.New("it has no tls.key")
	case len(c.CA) == 0:
		return time.Time{}, errors.New("it has no ca.crt, the CA the APIServices must trust")
	}
	pair, err := tls.X509KeyPair(c.Cert, c.Key)
	if err != nil {
		return time.Time{}, fmt.Errorf("tls.crt and tls.key: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return time.Time{}, fmt.Errorf("tls.crt: %w", err)
	}
	cas, err := cert.ParseCertsPEM(c.CA)
	if err != nil {
		return time.Time{}, fmt.Errorf("ca.crt: %w", err)
	}
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	for _, ca := range cas {
		roots.AddCert(ca)
	}
	for _, der := range pair.Certificate[1:] {
		if ic, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(ic)
		}
	}
	opts := x509.VerifyOptions{DNSName: ServiceName, Roots: roots, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, at := range []time.Time{now, now.Add(RenewBefore)} {
		opts.CurrentTime = at
		if _, err := leaf.Verify(opts); err != nil {
			if at != now && now.Before(leaf.NotAfter) {
				return leaf.NotAfter, fmt.Errorf("tls.crt expires on %s, in less than %d days", leaf.NotAfter.Format(time.DateOnly), int(RenewBefore.Hours()/24))
			}
			return leaf.NotAfter, fmt.Errorf("tls.crt is not a serving certificate of %s signed by ca.crt: %w", ServiceName, err)
		}
	}
	return leaf.NotAfter, nil
}

// ServingCerts are the certificates an install uses, and what the APIServices trust:
//   - new ones when the host has no Secret fed-apiserver-serving;
//   - the Secret's when it holds a usable serving certificate (Check): a second init
//     changes nothing;
//   - an error saying so when it holds none, unless renew: then new ones, and the
//     APIServices trust the new CA and the Secret's until the next init, so that the
//     host reaches fed-apiserver while its pods still serve the old certificate (the
//     kubelet updates a Secret's volume within a minute or so, and fed-apiserver reloads
//     its certificate files).
//
// note says which, for the user.
func (h *Host) ServingCerts(ctx context.Context, renew bool, now time.Time) (certs *Certs, caBundle []byte, note string, err error) {
	secret, err := h.Client.CoreV1().Secrets(Namespace).Get(ctx, ServingSecret, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, "", fmt.Errorf("reading the serving certificate's Secret: %w", err)
	}
	found := err == nil
	ref := "secret " + Namespace + "/" + ServingSecret
	if found && !renew {
		existing := CertsFromSecret(secret)
		notAfter, err := existing.Check(now)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s holds no usable serving certificate: %w\n"+
				"Run init with --renew-certs to replace it with a new one (and a new CA), or fix the Secret: "+
				"tls.crt for %s signed by ca.crt, and tls.key", ref, err, ServiceName)
		}
		return existing, nil, fmt.Sprintf("reusing the serving certificate of %s (valid until %s)", ref, notAfter.Format(time.DateOnly)), nil
	}
	if certs, err = NewCerts(); err != nil {
		return nil, nil, "", err
	}
	note = fmt.Sprintf("new serving certificate for %s and a new CA (valid ten years)", ServiceName)
	if found {
		if old := secret.Data["ca.crt"]; len(old) > 0 {
			if _, err := cert.ParseCertsPEM(old); err == nil {
				caBundle = append(append(slices.Clone(certs.CA), '\n'), old...)
				note += "; the APIServices trust the old CA too until the next init"
			}
		}
	}
	return certs, caBundle, note, nil
}
