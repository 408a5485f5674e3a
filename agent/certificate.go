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
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/certificate"
	"k8s.io/client-go/util/connrotation"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// hostIdentity is what the agent's Secret in its member says about the host: where it is,
// the CA that signs its serving certificate, and the agent's cluster.
type hostIdentity struct {
	Server  string
	CAData  []byte
	Cluster string
	// Organizations are those of the agent's certificate: its group and its registration's
	// (clusterv1alpha1.RegistrationGroup), which every renewal asks for again.
	Organizations []string
}

// secretStore keeps the agent's client certificate for the host in the agent's Secret in
// its member (a kubeconfig), so that a renewed certificate outlives the agent's process.
// It is client-go's certificate.Store for the certificate manager.
type secretStore struct {
	client          kubernetes.Interface
	namespace, name string

	mu      sync.Mutex
	current *tls.Certificate
}

var _ certificate.Store = &secretStore{}

// load reads the Secret: the host's identity and the agent's current certificate.
func (s *secretStore) load(ctx context.Context) (hostIdentity, error) {
	secret, err := s.client.CoreV1().Secrets(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return hostIdentity{}, fmt.Errorf("the agent's Secret %s/%s is not in its cluster: run kubectl fed register there first", s.namespace, s.name)
	}
	if err != nil {
		return hostIdentity{}, fmt.Errorf("reading the agent's Secret %s/%s: %w", s.namespace, s.name, err)
	}
	cfg, err := clientcmd.Load(secret.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil {
		return hostIdentity{}, fmt.Errorf("the agent's Secret %s/%s: key %s: %w", s.namespace, s.name, clusterv1alpha1.SecretKubeconfigKey, err)
	}
	cluster, auth, err := current(cfg)
	if err != nil {
		return hostIdentity{}, fmt.Errorf("the agent's Secret %s/%s: %w", s.namespace, s.name, err)
	}
	id := hostIdentity{Server: cluster.Server, CAData: cluster.CertificateAuthorityData, Cluster: string(secret.Data[clusterv1alpha1.AgentSecretClusterKey])}
	if id.Server == "" || len(id.CAData) == 0 {
		return hostIdentity{}, fmt.Errorf("the agent's Secret %s/%s names no host server and CA", s.namespace, s.name)
	}
	if len(auth.ClientCertificateData) > 0 {
		cert, err := tls.X509KeyPair(auth.ClientCertificateData, auth.ClientKeyData)
		if err != nil {
			return hostIdentity{}, fmt.Errorf("the agent's Secret %s/%s: its client certificate: %w", s.namespace, s.name, err)
		}
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return hostIdentity{}, err
		}
		id.Organizations = cert.Leaf.Subject.Organization
		s.mu.Lock()
		s.current = &cert
		s.mu.Unlock()
	}
	return id, nil
}

// current returns a kubeconfig's cluster and user of its current context.
func current(cfg *clientcmdapi.Config) (*clientcmdapi.Cluster, *clientcmdapi.AuthInfo, error) {
	kctx := cfg.Contexts[cfg.CurrentContext]
	if kctx == nil {
		return nil, nil, fmt.Errorf("its kubeconfig has no current context")
	}
	cluster, auth := cfg.Clusters[kctx.Cluster], cfg.AuthInfos[kctx.AuthInfo]
	if cluster == nil || auth == nil {
		return nil, nil, fmt.Errorf("its kubeconfig's context %s names no cluster or user", cfg.CurrentContext)
	}
	return cluster, auth, nil
}

// Current implements certificate.Store.
func (s *secretStore) Current() (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil {
		err := certificate.NoCertKeyError("the agent's Secret holds no client certificate")
		return nil, &err
	}
	return s.current, nil
}

// Update implements certificate.Store: the new certificate goes into the Secret's
// kubeconfig, then is used.
func (s *secretStore) Update(certPEM, keyPEM []byte) (*tls.Certificate, error) {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	secrets := s.client.CoreV1().Secrets(s.namespace)
	secret, err := secrets.Get(ctx, s.name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the agent's Secret %s/%s: %w", s.namespace, s.name, err)
	}
	cfg, err := clientcmd.Load(secret.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil {
		return nil, err
	}
	_, auth, err := current(cfg)
	if err != nil {
		return nil, err
	}
	auth.ClientCertificateData, auth.ClientKeyData = certPEM, keyPEM
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, err
	}
	secret.Data[clusterv1alpha1.SecretKubeconfigKey] = data
	if _, err := secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("keeping the renewed certificate in the agent's Secret %s/%s: %w", s.namespace, s.name, err)
	}
	s.mu.Lock()
	s.current = &cert
	s.mu.Unlock()
	return &cert, nil
}

// newCertificateManager renews the agent's client certificate through the host's
// CertificateSigningRequests, which fed's registration controller approves for the agent
// of a pull cluster, once most of its life is gone (client-go's manager: at 70 to 90%).
func newCertificateManager(id hostIdentity, store *secretStore) (certificate.Manager, error) {
	return certificate.NewManager(&certificate.Config{
		ClientsetFn: func(current *tls.Certificate) (kubernetes.Interface, error) {
			if current == nil {
				return nil, fmt.Errorf("the agent has no certificate to renew its certificate with: run kubectl fed register again")
			}
			cfg := &rest.Config{Host: id.Server, TLSClientConfig: rest.TLSClientConfig{CAData: id.CAData}}
			tlsCfg, err := rest.TLSConfigFor(cfg)
			if err != nil {
				return nil, err
			}
			tlsCfg.Certificates = []tls.Certificate{*current}
			cfg.TLSClientConfig = rest.TLSClientConfig{}
			cfg.Transport = utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsCfg})
			return kubernetes.NewForConfig(cfg)
		},
		// The same registration as the certificate it renews: fed approves no other.
		Template: &x509.CertificateRequest{Subject: pkix.Name{
			CommonName: clusterv1alpha1.AgentUser(id.Cluster), Organization: id.Organizations}},
		SignerName:       certificatesv1.KubeAPIServerClientSignerName,
		Usages:           []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		CertificateStore: store,
		Name:             "fed-agent",
	})
}

// agentTLS is the TLS configuration of the agent's connections to the host: the host's
// CA, and whichever certificate the manager holds at each handshake.
func agentTLS(id hostIdentity, certs certificate.Manager) (*tls.Config, error) {
	tlsCfg, err := rest.TLSConfigFor(&rest.Config{Host: id.Server, TLSClientConfig: rest.TLSClientConfig{CAData: id.CAData}})
	if err != nil {
		return nil, err
	}
	tlsCfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		if c := certs.Current(); c != nil {
			return c, nil
		}
		return &tls.Certificate{}, nil // none: the host answers 401, which says so
	}
	return tlsCfg, nil
}

// hostConfig reaches the host as the agent, with whichever certificate the manager holds
// now: connections made with the previous one are closed when it changes, so that every
// request after a renewal presents the new one.
func hostConfig(ctx context.Context, id hostIdentity, certs certificate.Manager) (*rest.Config, error) {
	cfg := &rest.Config{Host: id.Server}
	tlsCfg, err := agentTLS(id, certs)
	if err != nil {
		return nil, err
	}
	dialer := connrotation.NewDialer((&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext)
	last := certs.Current()
	go wait.Until(func() {
		if c := certs.Current(); c != last {
			last = c
			dialer.CloseAll()
		}
	}, 5*time.Second, ctx.Done())
	cfg.Transport = utilnet.SetTransportDefaults(&http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     tlsCfg,
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
	})
	return cfg, nil
}
