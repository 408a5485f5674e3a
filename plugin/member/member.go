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

// Package member installs fed in a member cluster and removes it again, as join and unjoin
// do with the member's own (admin) kubeconfig: fed's namespace, its service account bound to
// cluster-admin and a non-expiring token, and the host Secret that holds that token. For
// pull mode, register and unregister install and remove the agent there (agent.go).
package member

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

const (
	// memberTokenSecret is the Secret in the member's fed namespace that the member's token
	// controller fills with a non-expiring token of fed's service account.
	//
	// A kubernetes.io/service-account-token Secret rather than a TokenRequest: fed holds the
	// credential for as long as the member is joined and nothing in fed refreshes it, so a
	// token that expires (TokenRequest tokens not bound to a pod always do, and the member's
	// --service-account-max-token-expiration may cap them) would cut the member off months
	// later. The Secret's token lives as long as the Secret and the service account, and is
	// revoked by deleting either, which unjoin does. The cost is that join needs the member's
	// controller manager to run its serviceaccount-token controller, which it does by default.
	memberTokenSecret = "fed-token"
	// ClusterRoleBinding gives fed's service account cluster-admin in the member: fed
	// applies arbitrary objects there and impersonates users for the proxy.
	ClusterRoleBinding = "fed"

	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "kubectl-fed"
)

// Cluster is a member cluster as reached with its own (admin) kubeconfig.
type Cluster struct {
	Config *rest.Config
	Client kubernetes.Interface
	// Endpoint is the member's API server URL, CABundle the CA that signs its serving
	// certificate, Insecure whether the kubeconfig skips TLS verification.
	Endpoint string
	CABundle []byte
	Insecure bool
	// ID is the UID of the member's kube-system namespace, Version its Kubernetes version;
	// both are set by Probe.
	ID      string
	Version string
}

// Load reads a member's kubeconfig (context kubeContext, or its current context).
func Load(kubeconfig, kubeContext string) (*Cluster, error) {
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the member's kubeconfig %s: %w", kubeconfig, err)
	}
	return FromConfig(cfg)
}

// FromConfig is the member a client configuration reaches (register's: the user's current
// kubeconfig).
func FromConfig(cfg *rest.Config) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			return nil, fmt.Errorf("reading the member's CA: %w", err)
		}
	}
	// Each request to the member gives up after a while rather than hanging on an address
	// that does not answer.
	cfg.Timeout = 30 * time.Second
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Config: cfg, Client: client, Endpoint: cfg.Host, CABundle: ca, Insecure: cfg.Insecure}, nil
}

// Probe checks that the member answers and is ready, and reads its ID and version.
func (m *Cluster) Probe(ctx context.Context) error {
	if _, err := m.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("the member cluster at %s is not reachable or not ready: %w", m.Endpoint, err)
	}
	v, err := m.Client.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("reading the version of the member cluster at %s: %w", m.Endpoint, err)
	}
	ns, err := m.Client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the kube-system namespace of the member cluster at %s (its UID identifies the cluster): %w", m.Endpoint, err)
	}
	m.ID, m.Version = string(ns.UID), v.GitVersion
	return nil
}

func managedMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{labelManagedBy: managedBy}}
}

// newFedNamespace is fed's namespace, in the member and in the host.
func newFedNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: managedMeta(clusterv1alpha1.FedNamespace, "")}
}

// newMemberServiceAccount is the identity fed acts as in the member.
func newMemberServiceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: managedMeta(clusterv1alpha1.MemberServiceAccount, clusterv1alpha1.FedNamespace)}
}

// newMemberClusterRoleBinding binds fed's service account to cluster-admin.
func newMemberClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: managedMeta(ClusterRoleBinding, ""),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{
			Kind:      rbacv1.ServiceAccountKind,
			Name:      clusterv1alpha1.MemberServiceAccount,
			Namespace: clusterv1alpha1.FedNamespace,
		}},
	}
}

// newMemberTokenSecret asks the member's token controller for a non-expiring token of
// fed's service account.
func newMemberTokenSecret() *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: managedMeta(memberTokenSecret, clusterv1alpha1.FedNamespace), Type: corev1.SecretTypeServiceAccountToken}
	s.Annotations = map[string]string{corev1.ServiceAccountNameKey: clusterv1alpha1.MemberServiceAccount}
	return s
}

// NewHostSecret holds what fed needs to reach the member: the token and the member's CA.
func NewHostSecret(name string, token, caBundle []byte) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: managedMeta(name, clusterv1alpha1.FedNamespace), Type: corev1.SecretTypeOpaque}
	s.Data = map[string][]byte{clusterv1alpha1.SecretTokenKey: token, clusterv1alpha1.SecretCABundleKey: caBundle}
	return s
}

// Install creates fed's namespace, service account, binding and token Secret in the member
// (keeping those already there) and returns the token once the member's token controller
// has filled it in, waiting at most tokenTimeout.
func (m *Cluster) Install(ctx context.Context, tokenTimeout time.Duration) ([]byte, error) {
	if err := ensureNamespace(ctx, m.Client); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	sa := newMemberServiceAccount()
	if _, err := m.Client.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	if err := m.ensureClusterRoleBinding(ctx); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	secret := newMemberTokenSecret()
	secrets := m.Client.CoreV1().Secrets(secret.Namespace)
	if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	var token []byte
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, tokenTimeout, true, func(ctx context.Context) (bool, error) {
		s, err := secrets.Get(ctx, secret.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		token = s.Data[corev1.ServiceAccountTokenKey]
		return len(token) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the member did not fill the token of Secret %s/%s within %s (is its kube-controller-manager running the serviceaccount-token controller?): %w",
			secret.Namespace, secret.Name, tokenTimeout, err)
	}
	return token, nil
}

// ensureClusterRoleBinding creates fed's binding or puts back its role and subject.
func (m *Cluster) ensureClusterRoleBinding(ctx context.Context) error {
	want := newMemberClusterRoleBinding()
	crbs := m.Client.RbacV1().ClusterRoleBindings()
	got, err := crbs.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = crbs.Create(ctx, want, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case got.RoleRef != want.RoleRef:
		// roleRef cannot change: replace the binding.
		if err := crbs.Delete(ctx, want.Name, metav1.DeleteOptions{}); ignoreNotFound(err) != nil {
			return err
		}
		_, err = crbs.Create(ctx, want, metav1.CreateOptions{})
		return err
	default:
		got.Subjects = want.Subjects
		_, err = crbs.Update(ctx, got, metav1.UpdateOptions{})
		return err
	}
}

// Uninstall removes what Install created; objects already gone are fine. The namespace is
// left terminating: the member's namespace controller finishes deleting it.
func (m *Cluster) Uninstall(ctx context.Context) error {
	ns := clusterv1alpha1.FedNamespace
	steps := []func() error{
		func() error {
			return m.Client.RbacV1().ClusterRoleBindings().Delete(ctx, ClusterRoleBinding, metav1.DeleteOptions{})
		},
		func() error {
			return m.Client.CoreV1().Secrets(ns).Delete(ctx, memberTokenSecret, metav1.DeleteOptions{})
		},
		func() error {
			return m.Client.CoreV1().ServiceAccounts(ns).Delete(ctx, clusterv1alpha1.MemberServiceAccount, metav1.DeleteOptions{})
		},
		func() error { return m.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) },
	}
	for _, step := range steps {
		if err := ignoreNotFound(step()); err != nil {
			return fmt.Errorf("in the member: %w", err)
		}
	}
	return nil
}

// ensureNamespace creates fed's namespace unless it exists. A namespace still terminating
// (after an unjoin) is waited for, up to a minute, since nothing can be created in it.
func ensureNamespace(ctx context.Context, client kubernetes.Interface) error {
	namespaces := client.CoreV1().Namespaces()
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		ns, err := namespaces.Get(ctx, clusterv1alpha1.FedNamespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = namespaces.Create(ctx, newFedNamespace(), metav1.CreateOptions{})
			return err == nil, ignoreAlreadyExists(err)
		}
		if err != nil {
			return false, err
		}
		return ns.DeletionTimestamp == nil, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("namespace %s is still terminating", clusterv1alpha1.FedNamespace)
	}
	return err
}

func ignoreAlreadyExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// EnsureHostSecret creates or updates the host Secret that holds a member's credentials.
func EnsureHostSecret(ctx context.Context, client kubernetes.Interface, want *corev1.Secret) error {
	if err := ensureNamespace(ctx, client); err != nil {
		return err
	}
	secrets := client.CoreV1().Secrets(want.Namespace)
	got, err := secrets.Get(ctx, want.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = secrets.Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if got.Type != want.Type {
		return fmt.Errorf("secret %s/%s exists with type %s, not %s; delete it or choose another cluster name", got.Namespace, got.Name, got.Type, want.Type)
	}
	got.Data = want.Data
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	got.Labels[labelManagedBy] = managedBy
	_, err = secrets.Update(ctx, got, metav1.UpdateOptions{})
	return err
}

// ignoreNotFound is nil for a NotFound error.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
