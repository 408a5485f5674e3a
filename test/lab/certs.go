package lab

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const certValidity = 10 * 365 * 24 * time.Hour

// CA is a certificate authority of the lab, kept as ca.crt/ca.key (or a given base name) in a
// directory. Each cluster has its own, so a credential of one cluster is worthless in another.
type CA struct {
	Cert     *x509.Certificate
	Key      crypto.Signer
	CertFile string
	KeyFile  string
}

// loadOrCreateCA reads DIR/NAME.crt and DIR/NAME.key, creating them when missing.
func loadOrCreateCA(dir, name, commonName string) (*CA, error) {
	ca := &CA{CertFile: filepath.Join(dir, name+".crt"), KeyFile: filepath.Join(dir, name+".key")}
	if ok, _ := certutil.CanReadCertAndKey(ca.CertFile, ca.KeyFile); ok {
		certs, err := certutil.CertsFromFile(ca.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := keyutil.PrivateKeyFromFile(ca.KeyFile)
		if err != nil {
			return nil, err
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("%s: not a signing key", ca.KeyFile)
		}
		ca.Cert, ca.Key = certs[0], signer
		return ca, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, err
	}
	ca.Cert, ca.Key = cert, key
	if err := writeCertKey(ca.CertFile, ca.KeyFile, cert.Raw, key); err != nil {
		return nil, err
	}
	return ca, nil
}

// CertKey is a certificate and its key in PEM, with the files they were written to.
type CertKey struct {
	CertPEM, KeyPEM   []byte
	CertFile, KeyFile string
}

// issue signs a certificate for a client (user and groups) or, with hosts set, a server, and
// writes DIR/NAME.crt and DIR/NAME.key. Existing files signed by this CA for the same hosts
// are kept.
func (ca *CA) issue(dir, name, commonName string, groups []string, hosts []string) (*CertKey, error) {
	ck := &CertKey{CertFile: filepath.Join(dir, name+".crt"), KeyFile: filepath.Join(dir, name+".key")}
	if certs, err := certutil.CertsFromFile(ck.CertFile); err == nil && certs[0].CheckSignatureFrom(ca.Cert) == nil && coversHosts(certs[0], hosts) {
		if ck.CertPEM, err = os.ReadFile(ck.CertFile); err != nil {
			return nil, err
		}
		if ck.KeyPEM, err = os.ReadFile(ck.KeyFile); err == nil {
			return ck, nil
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName, Organization: groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(hosts) > 0 {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, err
	}
	if err := writeCertKey(ck.CertFile, ck.KeyFile, der, key); err != nil {
		return nil, err
	}
	ck.CertPEM, _ = os.ReadFile(ck.CertFile)
	ck.KeyPEM, _ = os.ReadFile(ck.KeyFile)
	return ck, nil
}

func writeCertKey(certFile, keyFile string, der []byte, key crypto.PrivateKey) error {
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return err
	}
	return certutil.WriteCert(certFile, pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der}))
}

// ensureServiceAccountKey writes the RSA key pair that signs and verifies service account
// tokens of one cluster (sa.key, sa.pub), if missing.
func ensureServiceAccountKey(dir string) (keyFile, pubFile string, err error) {
	keyFile, pubFile = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if _, err := os.Stat(pubFile); err == nil {
		return keyFile, pubFile, nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return "", "", err
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	return keyFile, pubFile, os.WriteFile(pubFile, pubPEM, 0o644)
}

// coversHosts tells whether cert names exactly these hosts.
func coversHosts(cert *x509.Certificate, hosts []string) bool {
	names := map[string]bool{}
	for _, n := range cert.DNSNames {
		names[n] = true
	}
	for _, ip := range cert.IPAddresses {
		names[ip.String()] = true
	}
	if len(names) != len(hosts) {
		return false
	}
	for _, h := range hosts {
		if !names[h] {
			return false
		}
	}
	return true
}
