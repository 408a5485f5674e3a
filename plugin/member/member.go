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
// a ClusterRole (cluster-admin unless the user names another) and allowed to renew its own
// token, a token with an expiry from the member's TokenRequest API, and the host Secret that
// holds that token. For pull mode, register and unregister install and remove the agent
// there (agent.go).
package member

import (
	"context"
	"fmt"
	"maps"
	"os"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
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
	// legacyTokenSecret is the kubernetes.io/service-account-token Secret in the member's
	// fed namespace that older joins made for a non-expiring token of fed's service
	// account. join no longer makes it (fed's token comes from the TokenRequest API and fed
	// renews it); join and unjoin delete one that is left, which revokes its token.
	legacyTokenSecret = "fed-token"
	// ClusterRoleBinding binds fed's service account to the ClusterRole join is given
	// (DefaultClusterRole unless --cluster-role names another): what fed may do in the
	// member (apply what it propagates, read status, impersonate users for the proxy).
	ClusterRoleBinding = "fed"
	// DefaultClusterRole is the ClusterRole join binds by default.
	DefaultClusterRole = "cluster-admin"
	// TokenRenewalRole is the Role (and RoleBinding) in the member's fed namespace that lets
	// fed's service account request new tokens of itself, and of no other account, which is
	// how fed renews its credentials whatever ClusterRole it is bound to.
	TokenRenewalRole = "fed:token-renewal"
	// MinTokenTTL is the shortest token the TokenRequest API gives.
	MinTokenTTL = 10 * time.Minute

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

// fedSubjects is fed's service account, the subject of its bindings.
func fedSubjects() []rbacv1.Subject {
	return []rbacv1.Subject{{
		Kind:      rbacv1.ServiceAccountKind,
		Name:      clusterv1alpha1.MemberServiceAccount,
		Namespace: clusterv1alpha1.FedNamespace,
	}}
}

// newMemberClusterRoleBinding binds fed's service account to the ClusterRole role.
func newMemberClusterRoleBinding(role string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: managedMeta(ClusterRoleBinding, ""),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   fedSubjects(),
	}
}

// newTokenRenewalRole lets fed's service account request tokens of itself only.
func newTokenRenewalRole() *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: managedMeta(TokenRenewalRole, clusterv1alpha1.FedNamespace),
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{""},
			Resources:     []string{"serviceaccounts/token"},
			ResourceNames: []string{clusterv1alpha1.MemberServiceAccount},
			Verbs:         []string{"create"},
		}},
	}
}

func newTokenRenewalRoleBinding() *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: managedMeta(TokenRenewalRole, clusterv1alpha1.FedNamespace),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: TokenRenewalRole},
		Subjects:   fedSubjects(),
	}
}

// Token is a token of fed's service account and when it expires.
type Token struct {
	Value      []byte
	Expiration time.Time
}

// NewHostSecret holds what fed needs to reach the member: the token, when it expires
// (which tells fed to renew it) and the member's CA.
func NewHostSecret(name string, token Token, caBundle []byte) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: managedMeta(name, clusterv1alpha1.FedNamespace), Type: corev1.SecretTypeOpaque}
	s.Annotations = map[string]string{clusterv1alpha1.AnnotationTokenExpiration: token.Expiration.UTC().Format(time.RFC3339)}
	s.Data = map[string][]byte{clusterv1alpha1.SecretTokenKey: token.Value, clusterv1alpha1.SecretCABundleKey: caBundle}
	return s
}

// Install creates fed's namespace and service account in the member (keeping those already
// there), binds the service account to the ClusterRole clusterRole, which must exist, lets
// it renew its own token, and returns a new token of it from the TokenRequest API, asked to
// last ttl (the member may cap it: the token's expiry is the member's answer).
func (m *Cluster) Install(ctx context.Context, clusterRole string, ttl time.Duration) (Token, error) {
	if _, err := m.Client.RbacV1().ClusterRoles().Get(ctx, clusterRole, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return Token{}, fmt.Errorf("the member has no ClusterRole %s; apply it there first (artifacts/examples/member-clusterrole.yaml is one with what fed needs) or choose another with --cluster-role", clusterRole)
	} else if err != nil {
		return Token{}, fmt.Errorf("in the member: %w", err)
	}
	if err := ensureNamespace(ctx, m.Client); err != nil {
		return Token{}, fmt.Errorf("in the member: %w", err)
	}
	sa := newMemberServiceAccount()
	if _, err := m.Client.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return Token{}, fmt.Errorf("in the member: %w", err)
	}
	if err := m.ensureClusterRoleBinding(ctx, clusterRole); err != nil {
		return Token{}, fmt.Errorf("in the member: %w", err)
	}
	if err := m.ensureTokenRenewal(ctx); err != nil {
		return Token{}, fmt.Errorf("in the member: %w", err)
	}
	seconds := int64(ttl / time.Second)
	tr, err := m.Client.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return Token{}, fmt.Errorf("in the member: requesting a token of serviceaccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return Token{Value: []byte(tr.Status.Token), Expiration: tr.Status.ExpirationTimestamp.Time}, nil
}

// RemoveLegacyToken deletes the non-expiring token Secret an older join made, which
// revokes its token. join calls it once the host holds the new token.
func (m *Cluster) RemoveLegacyToken(ctx context.Context) error {
	err := m.Client.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Delete(ctx, legacyTokenSecret, metav1.DeleteOptions{})
	if err := ignoreNotFound(err); err != nil {
		return fmt.Errorf("in the member: deleting the Secret %s/%s of an older join: %w", clusterv1alpha1.FedNamespace, legacyTokenSecret, err)
	}
	return nil
}

// ensureClusterRoleBinding creates fed's binding or puts back its role and subject.
func (m *Cluster) ensureClusterRoleBinding(ctx context.Context, role string) error {
	want := newMemberClusterRoleBinding(role)
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

// ensureTokenRenewal creates the Role that lets fed renew its token, and its binding, or
// puts back their rules and subject.
func (m *Cluster) ensureTokenRenewal(ctx context.Context) error {
	roles := m.Client.RbacV1().Roles(clusterv1alpha1.FedNamespace)
	role := newTokenRenewalRole()
	if got, err := roles.Get(ctx, role.Name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := roles.Create(ctx, role, metav1.CreateOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	} else {
		got.Rules = role.Rules
		if _, err := roles.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	bindings := m.Client.RbacV1().RoleBindings(clusterv1alpha1.FedNamespace)
	binding := newTokenRenewalRoleBinding()
	got, err := bindings.Get(ctx, binding.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = bindings.Create(ctx, binding, metav1.CreateOptions{})
	case err == nil:
		got.Subjects = binding.Subjects
		_, err = bindings.Update(ctx, got, metav1.UpdateOptions{})
	}
	return err
}

// Uninstall removes what Install created, and the token Secret of an older join; objects
// already gone are fine. The namespace is left terminating: the member's namespace
// controller finishes deleting it (and the token renewal Role and binding in it).
func (m *Cluster) Uninstall(ctx context.Context) error {
	ns := clusterv1alpha1.FedNamespace
	steps := []func() error{
		func() error {
			return m.Client.RbacV1().ClusterRoleBindings().Delete(ctx, ClusterRoleBinding, metav1.DeleteOptions{})
		},
		func() error {
			return m.Client.CoreV1().Secrets(ns).Delete(ctx, legacyTokenSecret, metav1.DeleteOptions{})
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
	if got.Annotations == nil {
		got.Annotations = map[string]string{}
	}
	maps.Copy(got.Annotations, want.Annotations)
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
