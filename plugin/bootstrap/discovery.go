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
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"
	bootstrapapi "k8s.io/cluster-bootstrap/token/api"
	"k8s.io/cluster-bootstrap/token/jws"
)

// FieldManager is the plugin's server-side apply field manager.
const FieldManager = "kubectl-fed"

// clusterInfoReader is the Role and RoleBinding in kube-public that let anonymous users get
// cluster-info and nothing else (kubeadm's kubeadm:bootstrap-signer-clusterinfo does the
// same on a kubeadm host).
const clusterInfoReader = "fed:cluster-info"

// CAHash is the pin of a CA certificate: sha256: and the hex SHA-256 of its
// SubjectPublicKeyInfo, as kubeadm's --discovery-token-ca-cert-hash.
func CAHash(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CAHashes are the pins of every certificate of a PEM CA bundle.
func CAHashes(caPEM []byte) ([]string, error) {
	certs, err := certutil.ParseCertsPEM(caPEM)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificates: %w", err)
	}
	hashes := make([]string, 0, len(certs))
	for _, c := range certs {
		hashes = append(hashes, CAHash(c))
	}
	return hashes, nil
}

var pinPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ValidatePin checks the form of a --discovery-token-ca-cert-hash.
func ValidatePin(pin string) error {
	if !pinPattern.MatchString(strings.ToLower(pin)) {
		return fmt.Errorf("invalid CA certificate hash %q: it must be sha256: and 64 hexadecimal digits", pin)
	}
	return nil
}

// VerifyPins checks that a certificate of the CA bundle has one of the pins.
func VerifyPins(caPEM []byte, pins []string) error {
	hashes, err := CAHashes(caPEM)
	if err != nil {
		return err
	}
	for _, h := range hashes {
		for _, p := range pins {
			if strings.EqualFold(h, p) {
				return nil
			}
		}
	}
	return fmt.Errorf("the host's CA does not match --discovery-token-ca-cert-hash: this may not be the host you think " +
		"(ask its administrator for the hash: 'kubectl fed token create --print-register-command' prints it)")
}

// ClusterInfo is the kubeconfig that cluster-info carries: the host's server and CA only.
func ClusterInfo(server string, caPEM []byte) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[""] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	return clientcmd.Write(*cfg)
}

// EnsureClusterInfo makes sure members can discover the host: the ConfigMap
// kube-public/cluster-info (created from server and caPEM if missing; one that exists, as
// on a kubeadm host, is kept as it is), and a Role and RoleBinding letting anonymous users
// read it. It returns the CA that cluster-info carries and whether it created it.
func EnsureClusterInfo(ctx context.Context, client kubernetes.Interface, server string, caPEM []byte) ([]byte, bool, error) {
	ns := metav1.NamespacePublic
	cms := client.CoreV1().ConfigMaps(ns)
	created := false
	cm, err := cms.Get(ctx, bootstrapapi.ConfigMapClusterInfo, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if len(caPEM) == 0 {
			return nil, false, fmt.Errorf("the host has no ConfigMap %s/%s and your kubeconfig has no CA for the host to put into one (it skips TLS verification?)",
				ns, bootstrapapi.ConfigMapClusterInfo)
		}
		kubeconfig, err := ClusterInfo(server, caPEM)
		if err != nil {
			return nil, false, err
		}
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: bootstrapapi.ConfigMapClusterInfo, Namespace: ns, Labels: map[string]string{labelManagedBy: managedBy}},
			Data:       map[string]string{bootstrapapi.KubeConfigKey: string(kubeconfig)},
		}
		if cm, err = cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return nil, false, fmt.Errorf("creating %s/%s: %w", ns, bootstrapapi.ConfigMapClusterInfo, err)
		}
		created = true
	} else if err != nil {
		return nil, false, fmt.Errorf("reading %s/%s: %w", ns, bootstrapapi.ConfigMapClusterInfo, err)
	}
	_, ca, err := parseClusterInfo(cm)
	if err != nil {
		return nil, false, fmt.Errorf("the host's %s/%s: %w", ns, bootstrapapi.ConfigMapClusterInfo, err)
	}

	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	role := rbacv1ac.Role(clusterInfoReader, ns).WithLabels(map[string]string{labelManagedBy: managedBy}).
		WithRules(rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("configmaps").
			WithResourceNames(bootstrapapi.ConfigMapClusterInfo).WithVerbs("get"))
	if _, err := client.RbacV1().Roles(ns).Apply(ctx, role, opts); err != nil {
		return nil, false, fmt.Errorf("letting anonymous users read %s/%s: %w", ns, bootstrapapi.ConfigMapClusterInfo, err)
	}
	binding := rbacv1ac.RoleBinding(clusterInfoReader, ns).WithLabels(map[string]string{labelManagedBy: managedBy}).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(clusterInfoReader)).
		WithSubjects(rbacv1ac.Subject().WithAPIGroup(rbacv1.GroupName).WithKind(rbacv1.UserKind).WithName("system:anonymous"))
	if _, err := client.RbacV1().RoleBindings(ns).Apply(ctx, binding, opts); err != nil {
		return nil, false, fmt.Errorf("letting anonymous users read %s/%s: %w", ns, bootstrapapi.ConfigMapClusterInfo, err)
	}
	return ca, created, nil
}

// parseClusterInfo reads the server and CA of cluster-info's kubeconfig, which names one
// cluster.
func parseClusterInfo(cm *corev1.ConfigMap) (server string, caPEM []byte, err error) {
	data, ok := cm.Data[bootstrapapi.KubeConfigKey]
	if !ok {
		return "", nil, fmt.Errorf("no key %s", bootstrapapi.KubeConfigKey)
	}
	cfg, err := clientcmd.Load([]byte(data))
	if err != nil {
		return "", nil, fmt.Errorf("its %s: %w", bootstrapapi.KubeConfigKey, err)
	}
	if len(cfg.Clusters) != 1 {
		return "", nil, fmt.Errorf("its %s names %d clusters, not one", bootstrapapi.KubeConfigKey, len(cfg.Clusters))
	}
	for _, c := range cfg.Clusters {
		server, caPEM = c.Server, c.CertificateAuthorityData
	}
	if len(caPEM) == 0 {
		return "", nil, fmt.Errorf("its %s has no certificate-authority-data", bootstrapapi.KubeConfigKey)
	}
	return server, caPEM, nil
}

// errNoSignature is VerifyClusterInfo's error while the bootstrapsigner has not signed
// cluster-info with the token.
var errNoSignature = errors.New("no signature of the token")

// VerifyClusterInfo checks the host's cluster-info as a member that holds a token sees it:
// the bootstrapsigner's JWS signature of its kubeconfig with the token (only a host that
// knows the token can make it), and the CA it carries against the pins (unless
// skipCAVerification). It returns that CA.
func VerifyClusterInfo(cm *corev1.ConfigMap, t Token, pins []string, skipCAVerification bool) ([]byte, error) {
	sig, ok := cm.Data[bootstrapapi.JWSSignatureKeyPrefix+t.ID]
	if !ok {
		return nil, errNoSignature
	}
	if !jws.DetachedTokenIsValid(sig, cm.Data[bootstrapapi.KubeConfigKey], t.ID, t.Secret) {
		return nil, fmt.Errorf("cluster-info's signature for token ID %s does not match the token: its secret is wrong, or this is not the host that issued it", t.ID)
	}
	_, ca, err := parseClusterInfo(cm)
	if err != nil {
		return nil, fmt.Errorf("the host's cluster-info: %w", err)
	}
	if !skipCAVerification {
		if err := VerifyPins(ca, pins); err != nil {
			return nil, err
		}
	}
	return ca, nil
}

// Discovery finds a host with a bootstrap token, as kubeadm's token discovery does.
type Discovery struct {
	// Server is the host's API server URL.
	Server string
	Token  Token
	// Pins are the accepted CA hashes (CAHash); SkipCAVerification accepts any CA.
	Pins               []string
	SkipCAVerification bool
	// Timeout bounds the wait for the host's bootstrapsigner to sign cluster-info with
	// the token; Interval is how often cluster-info is read meanwhile.
	Timeout, Interval time.Duration
}

// Discover reads the host's cluster-info anonymously over TLS without verification (the
// CA is not known yet), waits for its signature with the token, verifies it and the CA,
// then reads it again over TLS verified by that CA and checks that it is the same. It
// returns the host's CA.
func (d Discovery) Discover(ctx context.Context) ([]byte, error) {
	insecure, err := anonymousClient(&rest.Config{Host: d.Server, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		return nil, err
	}
	var ca []byte
	var kubeconfig string
	err = wait.PollUntilContextTimeout(ctx, d.Interval, d.Timeout, true, func(ctx context.Context) (bool, error) {
		cm, err := getClusterInfo(ctx, insecure, d.Server)
		if err != nil {
			return false, err
		}
		ca, err = VerifyClusterInfo(cm, d.Token, d.Pins, d.SkipCAVerification)
		if errors.Is(err, errNoSignature) {
			return false, nil
		}
		kubeconfig = cm.Data[bootstrapapi.KubeConfigKey]
		return err == nil, err
	})
	if wait.Interrupted(err) {
		return nil, fmt.Errorf("the host's %s/%s carries no signature for token ID %s after %s: the token does not exist in the host "+
			"(deleted, expired, or created for another host), or the host's kube-controller-manager does not run the bootstrapsigner controller",
			metav1.NamespacePublic, bootstrapapi.ConfigMapClusterInfo, d.Token.ID, d.Timeout)
	}
	if err != nil {
		return nil, err
	}
	secure, err := anonymousClient(&rest.Config{Host: d.Server, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
	if err != nil {
		return nil, err
	}
	cm, err := getClusterInfo(ctx, secure, d.Server)
	if err != nil {
		return nil, fmt.Errorf("with the host's CA: %w", err)
	}
	if cm.Data[bootstrapapi.KubeConfigKey] != kubeconfig {
		return nil, fmt.Errorf("the host's cluster-info changed between two reads; try again")
	}
	return ca, nil
}

// anonymousClient reads cluster-info once per Discovery.Interval. It has no client-side rate
// limiter: one would refuse a read whose wait ends past the poll's deadline with an error of
// its own, where a read cut short by the deadline ends the poll as a timeout.
func anonymousClient(cfg *rest.Config) (kubernetes.Interface, error) {
	cfg.Timeout = 10 * time.Second
	cfg.QPS = -1
	return kubernetes.NewForConfig(cfg)
}

func getClusterInfo(ctx context.Context, client kubernetes.Interface, server string) (*corev1.ConfigMap, error) {
	cm, err := client.CoreV1().ConfigMaps(metav1.NamespacePublic).Get(ctx, bootstrapapi.ConfigMapClusterInfo, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("the host at %s has no ConfigMap %s/%s: run 'kubectl fed token create' against it, which makes one",
			server, metav1.NamespacePublic, bootstrapapi.ConfigMapClusterInfo)
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return nil, fmt.Errorf("the host at %s does not let anonymous users read %s/%s ('kubectl fed token create' grants it; anonymous authentication must be on): %w",
			server, metav1.NamespacePublic, bootstrapapi.ConfigMapClusterInfo, err)
	case err != nil:
		return nil, fmt.Errorf("reading %s/%s from the host at %s: %w", metav1.NamespacePublic, bootstrapapi.ConfigMapClusterInfo, server, err)
	}
	return cm, nil
}
