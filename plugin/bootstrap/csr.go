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
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"maps"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/certificate/csr"
	"k8s.io/client-go/util/keyutil"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// CertificateValidity is how long the agent's certificate is asked to be valid (the host's
// signer may cap it: --cluster-signing-duration, a year by default).
const CertificateValidity = 365 * 24 * time.Hour

// TokenConfig reaches the host as the bootstrap token, over TLS verified by ca.
func TokenConfig(server string, ca []byte, t Token) *rest.Config {
	return &rest.Config{Host: server, BearerToken: t.String(), TLSClientConfig: rest.TLSClientConfig{CAData: ca}, Timeout: 30 * time.Second}
}

// AgentCertificate is what the host issued for an agent.
type AgentCertificate struct {
	// CSR is the CertificateSigningRequest as last seen, with the answer's condition.
	CSR *certificatesv1.CertificateSigningRequest
	// CertPEM and KeyPEM are the client certificate and its key.
	CertPEM, KeyPEM []byte
}

// Registration is whose certificate an agent asks for: its cluster, the registration it is
// of (clusterv1alpha1.RegistrationGroup), and the key it is asked with. A new registration
// has a new id and key (NewRegistration); registering a name again, the agent's own.
type Registration struct {
	Cluster, ID string
	Key         crypto.Signer
	// Again says that it is the registration of the agent's certificate in the member, to
	// continue (clusterv1alpha1.AnnotationReregistration): fed denies it, with
	// clusterv1alpha1.ReasonNotInFleet, when the cluster is not in the fleet any more.
	Again bool
}

// NewRegistration is a new registration of cluster: a random id, and a new ECDSA P-256 key.
func NewRegistration(cluster string) (Registration, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Registration{}, err
	}
	return Registration{Cluster: cluster, ID: string(uuid.NewUUID()), Key: key}, nil
}

// RequestAgentCertificate asks the host for the client certificate of an agent (CN
// AgentUser(cluster), O AgentGroup and RegistrationGroup(id)) signed with its registration's
// key, annotated with annotations (the cluster's location), and waits at most timeout for
// fed to answer and the host's signer to issue it.
func RequestAgentCertificate(ctx context.Context, client kubernetes.Interface, r Registration, annotations map[string]string, timeout time.Duration) (*AgentCertificate, error) {
	cluster, key := r.Cluster, r.Key
	request, err := certutil.MakeCSR(key, &pkix.Name{CommonName: clusterv1alpha1.AgentUser(cluster),
		Organization: []string{clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroup(r.ID)}}, nil, nil)
	if err != nil {
		return nil, err
	}
	if r.Again {
		annotations = maps.Clone(annotations)
		annotations[clusterv1alpha1.AnnotationReregistration] = "true"
	}
	req := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: clusterv1alpha1.AgentLease(cluster) + "-", Annotations: annotations},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:           request,
			SignerName:        certificatesv1.KubeAPIServerClientSignerName,
			Usages:            []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
			ExpirationSeconds: csr.DurationToExpirationSeconds(CertificateValidity),
		},
	}
	csrs := client.CertificatesV1().CertificateSigningRequests()
	created, err := csrs.Create(ctx, req, metav1.CreateOptions{})
	switch {
	case apierrors.IsUnauthorized(err):
		return nil, fmt.Errorf("the host refused the bootstrap token (deleted or expired? 'kubectl fed token create' makes another): %w", err)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("the bootstrap token may not ask the host for a certificate (is fed's RBAC for group %s installed in the host?): %w",
			clusterv1alpha1.RegisterGroup, err)
	case err != nil:
		return nil, fmt.Errorf("asking the host for the agent's certificate: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cert, waitErr := csr.WaitForCertificate(wctx, client, created.Name, created.UID)
	last, err := csrs.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		last = created
	}
	if waitErr != nil {
		return nil, answerError(last, timeout, waitErr)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	return &AgentCertificate{CSR: last, CertPEM: cert, KeyPEM: keyPEM}, nil
}

// DeniedError is the denial of an agent's certificate signing request.
type DeniedError struct {
	CSR             string
	Reason, Message string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("the host denied the agent's certificate signing request %s (%s): %s", e.CSR, e.Reason, e.Message)
}

// answerError explains why a CSR brought no certificate.
func answerError(req *certificatesv1.CertificateSigningRequest, timeout time.Duration, err error) error {
	for _, c := range req.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateDenied:
			return &DeniedError{CSR: req.Name, Reason: c.Reason, Message: c.Message}
		case certificatesv1.CertificateFailed:
			return fmt.Errorf("the host failed to sign the agent's certificate signing request %s (%s): %s", req.Name, c.Reason, c.Message)
		}
	}
	approved := false
	for _, c := range req.Status.Conditions {
		approved = approved || c.Type == certificatesv1.CertificateApproved
	}
	switch {
	case !wait.Interrupted(err) && !errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("waiting for the agent's certificate (certificate signing request %s): %w", req.Name, err)
	case approved:
		return fmt.Errorf("certificate signing request %s was approved but not issued within %s: does the host's kube-controller-manager sign "+
			"(its csrsigning controller, --cluster-signing-cert-file)?", req.Name, timeout)
	default:
		return fmt.Errorf("certificate signing request %s was not answered within %s: is fed-apiserver running in the host "+
			"(its registration controller approves agents' requests)?", req.Name, timeout)
	}
}

// AgentKubeconfig is the agent's kubeconfig for the host: its server and CA, and the
// agent's client certificate.
func AgentKubeconfig(server string, caPEM []byte, cluster string, cert *AgentCertificate) ([]byte, error) {
	user := clusterv1alpha1.AgentUser(cluster)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["fed-host"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert.CertPEM, ClientKeyData: cert.KeyPEM}
	cfg.Contexts["fed-host"] = &clientcmdapi.Context{Cluster: "fed-host", AuthInfo: user}
	cfg.CurrentContext = "fed-host"
	return clientcmd.Write(*cfg)
}
