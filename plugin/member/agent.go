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

package member

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// What register installs in a member for its pull-mode agent, all named fed-agent: the
// service account (in fed-system) and its ClusterRoleBinding, the Secret holding the
// agent's kubeconfig for the host, and the Deployment that runs the agent.
const (
	// AgentName names the agent's ClusterRoleBinding and Deployment, like its service
	// account and Secret.
	AgentName = clusterv1alpha1.AgentServiceAccount

	labelName = "app.kubernetes.io/name"
	// fieldManager is the plugin's server-side apply field manager.
	fieldManager = "kubectl-fed"
)

// AgentSpec is what register installs for the agent of cluster Cluster.
type AgentSpec struct {
	Cluster string
	// Kubeconfig is the agent's kubeconfig for the host (its client certificate).
	Kubeconfig []byte
	// ClusterRole is what the agent's service account is bound to in the member.
	ClusterRole string
	// Image runs the agent in a Deployment; empty installs no Deployment (the agent runs
	// elsewhere) and deletes the one a former register made.
	Image string
}

// Registered is what the member's agent Secret says of its registration.
type Registered struct {
	// Cluster is the cluster the Secret names.
	Cluster string
	// Registration is the registration its certificate is of, and Key the certificate's
	// private key: registering the same name again asks with both, which is how fed knows
	// the member is the one that registered it. Both empty when the Secret holds no
	// certificate of a registration.
	Registration string
	Key          crypto.Signer
}

// RegisteredAs reads what the member's agent Secret says of its registration; a zero
// Registered without one.
func (m *Cluster) RegisteredAs(ctx context.Context) (Registered, error) {
	s, err := m.Client.CoreV1().Secrets(clusterv1alpha1.FedNamespace).Get(ctx, clusterv1alpha1.AgentSecret, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Registered{}, nil
	}
	if err != nil {
		return Registered{}, fmt.Errorf("reading the member's Secret %s/%s: %w", clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentSecret, err)
	}
	r := Registered{Cluster: string(s.Data[clusterv1alpha1.AgentSecretClusterKey])}
	cfg, err := clientcmd.Load(s.Data[clusterv1alpha1.SecretKubeconfigKey])
	if err != nil || cfg.Contexts[cfg.CurrentContext] == nil {
		return r, nil
	}
	auth := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if auth == nil || len(auth.ClientCertificateData) == 0 {
		return r, nil
	}
	pair, err := tls.X509KeyPair(auth.ClientCertificateData, auth.ClientKeyData)
	if err != nil {
		return r, nil
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if err != nil || !ok {
		return r, nil
	}
	for _, o := range cert.Subject.Organization {
		if id, found := strings.CutPrefix(o, clusterv1alpha1.RegistrationGroupPrefix); found {
			r.Registration, r.Key = id, signer
		}
	}
	return r, nil
}

// InstallAgent applies the agent's objects in the member (server-side, as kubectl-fed, so
// that a second register converges) and returns what it did, one line each.
func (m *Cluster) InstallAgent(ctx context.Context, a AgentSpec) ([]string, error) {
	ns := clusterv1alpha1.FedNamespace
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	labels := map[string]string{labelManagedBy: managedBy, labelName: AgentName}
	var done []string
	if err := ensureNamespace(ctx, m.Client); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	done = append(done, "namespace "+ns)

	sa := corev1ac.ServiceAccount(clusterv1alpha1.AgentServiceAccount, ns).WithLabels(labels)
	if _, err := m.Client.CoreV1().ServiceAccounts(ns).Apply(ctx, sa, opts); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	done = append(done, "serviceaccount "+clusterv1alpha1.AgentServiceAccount)

	crb := rbacv1ac.ClusterRoleBinding(AgentName).WithLabels(labels).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(a.ClusterRole)).
		WithSubjects(rbacv1ac.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(clusterv1alpha1.AgentServiceAccount).WithNamespace(ns))
	crbs := m.Client.RbacV1().ClusterRoleBindings()
	_, err := crbs.Apply(ctx, crb, opts)
	if apierrors.IsInvalid(err) {
		// Another --cluster-role: roleRef cannot change, so the binding is made again.
		if err := crbs.Delete(ctx, AgentName, metav1.DeleteOptions{}); ignoreNotFound(err) != nil {
			return nil, fmt.Errorf("in the member: %w", err)
		}
		_, err = crbs.Apply(ctx, crb, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	done = append(done, fmt.Sprintf("clusterrolebinding %s: serviceaccount %s is %s", AgentName, clusterv1alpha1.AgentServiceAccount, a.ClusterRole))

	secret := corev1ac.Secret(clusterv1alpha1.AgentSecret, ns).WithLabels(labels).WithType(corev1.SecretTypeOpaque).
		WithData(map[string][]byte{
			clusterv1alpha1.SecretKubeconfigKey:   a.Kubeconfig,
			clusterv1alpha1.AgentSecretClusterKey: []byte(a.Cluster),
		})
	if _, err := m.Client.CoreV1().Secrets(ns).Apply(ctx, secret, opts); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	done = append(done, fmt.Sprintf("secret %s: the agent's kubeconfig for the host (user %s)", clusterv1alpha1.AgentSecret, clusterv1alpha1.AgentUser(a.Cluster)))

	deployments := m.Client.AppsV1().Deployments(ns)
	if a.Image == "" {
		d, err := deployments.Get(ctx, AgentName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("in the member: %w", err)
		case d.Labels[labelManagedBy] == managedBy:
			if err := deployments.Delete(ctx, AgentName, metav1.DeleteOptions{}); ignoreNotFound(err) != nil {
				return nil, fmt.Errorf("in the member: %w", err)
			}
			done = append(done, "deployment "+AgentName+" deleted: the agent runs elsewhere")
		}
		return done, nil
	}
	if _, err := deployments.Apply(ctx, agentDeployment(a, labels), opts); err != nil {
		return nil, fmt.Errorf("in the member: %w", err)
	}
	return append(done, fmt.Sprintf("deployment %s: %s", AgentName, a.Image)), nil
}

// agentDeployment runs one agent (Recreate: never two at once) as the agent's service
// account, reading its kubeconfig from the agent's Secret through the member's API.
func agentDeployment(a AgentSpec, labels map[string]string) *appsv1ac.DeploymentApplyConfiguration {
	ns := clusterv1alpha1.FedNamespace
	container := corev1ac.Container().WithName(AgentName).WithImage(a.Image).
		WithCommand("fed-agent").
		WithArgs("--cluster-name", a.Cluster, "--host-secret", ns+"/"+clusterv1alpha1.AgentSecret).
		WithSecurityContext(corev1ac.SecurityContext().WithAllowPrivilegeEscalation(false).WithReadOnlyRootFilesystem(true).
			WithCapabilities(corev1ac.Capabilities().WithDrop("ALL")))
	pod := corev1ac.PodSpec().WithServiceAccountName(clusterv1alpha1.AgentServiceAccount).WithContainers(container).
		WithSecurityContext(corev1ac.PodSecurityContext().WithRunAsNonRoot(true).
			WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault)))
	return appsv1ac.Deployment(AgentName, ns).WithLabels(labels).WithSpec(appsv1ac.DeploymentSpec().
		WithReplicas(1).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{labelName: AgentName})).
		WithStrategy(appsv1ac.DeploymentStrategy().WithType(appsv1.RecreateDeploymentStrategyType)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).WithSpec(pod)))
}

// UninstallAgent deletes what InstallAgent made; objects already gone are fine. fed's
// namespace goes too when nothing else is in it (a push-mode join's service account, say):
// kept says what keeps it, "" when it was deleted.
func (m *Cluster) UninstallAgent(ctx context.Context) (kept string, err error) {
	ns := clusterv1alpha1.FedNamespace
	steps := []func() error{
		func() error { return m.Client.AppsV1().Deployments(ns).Delete(ctx, AgentName, metav1.DeleteOptions{}) },
		func() error {
			return m.Client.CoreV1().Secrets(ns).Delete(ctx, clusterv1alpha1.AgentSecret, metav1.DeleteOptions{})
		},
		func() error {
			return m.Client.RbacV1().ClusterRoleBindings().Delete(ctx, AgentName, metav1.DeleteOptions{})
		},
		func() error {
			return m.Client.CoreV1().ServiceAccounts(ns).Delete(ctx, clusterv1alpha1.AgentServiceAccount, metav1.DeleteOptions{})
		},
	}
	for _, step := range steps {
		if err := ignoreNotFound(step()); err != nil {
			return "", fmt.Errorf("in the member: %w", err)
		}
	}
	left, err := m.namespaceContents(ctx)
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("in the member: %w", err)
	}
	if len(left) > 0 {
		return strings.Join(left, ", "), nil
	}
	if err := ignoreNotFound(m.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})); err != nil {
		return "", fmt.Errorf("in the member: %w", err)
	}
	return "", nil
}

// namespaceContents names what is in fed's namespace beside what Kubernetes puts in every
// namespace (the default service account, kube-root-ca.crt): service accounts, Secrets,
// ConfigMaps and Deployments.
func (m *Cluster) namespaceContents(ctx context.Context) ([]string, error) {
	ns := clusterv1alpha1.FedNamespace
	if _, err := m.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
		return nil, err
	}
	var left []string
	sas, err := m.Client.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, sa := range sas.Items {
		if sa.Name != "default" {
			left = append(left, "serviceaccount "+sa.Name)
		}
	}
	secrets, err := m.Client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, s := range secrets.Items {
		left = append(left, "secret "+s.Name)
	}
	cms, err := m.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, cm := range cms.Items {
		if cm.Name != "kube-root-ca.crt" {
			left = append(left, "configmap "+cm.Name)
		}
	}
	deployments, err := m.Client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, d := range deployments.Items {
		left = append(left, "deployment "+d.Name)
	}
	return left, nil
}
