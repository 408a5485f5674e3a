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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/certificate"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// selfSigned returns a certificate and key in PEM, valid for an hour, with common name cn.
func selfSigned(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// TestSecretStore: the agent's identity and certificate come from its Secret, and a renewed
// certificate goes back into the Secret's kubeconfig, where a restarted agent finds it.
func TestSecretStore(t *testing.T) {
	ctx := context.Background()
	certPEM, keyPEM := selfSigned(t, "system:fed:agent:edge")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["host"] = &clientcmdapi.Cluster{Server: "https://host.example:6443", CertificateAuthorityData: []byte("ca")}
	kc.AuthInfos["agent"] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	kc.Contexts["host"] = &clientcmdapi.Context{Cluster: "host", AuthInfo: "agent"}
	kc.CurrentContext = "host"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fed-system", Name: "fed-agent"},
		Data:       map[string][]byte{clusterv1alpha1.SecretKubeconfigKey: data, clusterv1alpha1.AgentSecretClusterKey: []byte("edge")},
	})

	empty := &secretStore{client: client, namespace: "fed-system", name: "fed-agent"}
	if _, err := empty.Current(); err == nil {
		t.Fatal("a store not loaded has a certificate")
	} else if _, ok := err.(*certificate.NoCertKeyError); !ok {
		t.Fatalf("a store not loaded: %v, want a NoCertKeyError", err)
	}

	s := &secretStore{client: client, namespace: "fed-system", name: "fed-agent"}
	id, err := s.load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Server != "https://host.example:6443" || string(id.CAData) != "ca" || id.Cluster != "edge" {
		t.Fatalf("identity %+v", id)
	}
	cur, err := s.Current()
	if err != nil || cur.Leaf.Subject.CommonName != "system:fed:agent:edge" {
		t.Fatalf("current certificate %v, %v", cur, err)
	}

	newCert, newKey := selfSigned(t, "system:fed:agent:edge-renewed")
	if _, err := s.Update(newCert, newKey); err != nil {
		t.Fatal(err)
	}
	if cur, _ := s.Current(); cur.Leaf.Subject.CommonName != "system:fed:agent:edge-renewed" {
		t.Fatalf("after Update the store holds %s", cur.Leaf.Subject.CommonName)
	}
	restarted := &secretStore{client: client, namespace: "fed-system", name: "fed-agent"}
	if _, err := restarted.load(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, _ := restarted.Current(); cur.Leaf.Subject.CommonName != "system:fed:agent:edge-renewed" {
		t.Fatalf("a restarted agent reads %s from its Secret, want the renewed certificate", cur.Leaf.Subject.CommonName)
	}

	missing := &secretStore{client: client, namespace: "fed-system", name: "nope"}
	if _, err := missing.load(ctx); err == nil {
		t.Fatal("a missing Secret loads")
	}
}
