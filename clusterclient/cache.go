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

// Package clusterclient hands out client configurations for member clusters: the endpoint
// of each Cluster and the credentials in the host Secret it names. Every part of fed that
// reaches members (the cluster controller, the proxy subresource, execution) goes through one Cache.
package clusterclient

import (
	"fmt"
	"sync"

	"golang.org/x/oauth2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/transport"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
)

// Cache builds member client configurations and keeps them until the Cluster or its Secret
// changes (told by their resourceVersions), so a rotated credential takes effect at once.
// A configuration with the Secret's token reads the token from the Secret at each request,
// so that clients built before fed renewed it (the controllers' informers, which run for
// as long as the member is joined) carry the new one too.
type Cache struct {
	clusters clusterlisters.ClusterLister
	secrets  corelisters.SecretLister

	// static is the one member of an agent's Cache, whose configuration is its own.
	static map[string]*rest.Config
	// tunnels reach pull clusters, through their agents.
	tunnels Tunnels

	mu      sync.Mutex
	entries map[string]entry
}

type entry struct {
	clusterVersion, secretVersion string
	config                        *rest.Config
}

// New returns a Cache reading from informers of the fed and host APIs.
func New(clusters clusterlisters.ClusterLister, secrets corelisters.SecretLister) *Cache {
	return &Cache{clusters: clusters, secrets: secrets, entries: map[string]entry{}}
}

// Tunnels reaches pull clusters through the tunnels their agents hold open to
// fed-apiserver (apiserver/tunnel).
type Tunnels interface {
	// Config is the client configuration of a pull cluster's API server through its
	// agent's tunnel, without credentials (the agent adds its own); an error when the agent
	// holds no tunnel open.
	Config(cluster string) (*rest.Config, error)
}

// SetTunnels has the Cache reach pull clusters through tunnels; without it, it cannot.
func (c *Cache) SetTunnels(t Tunnels) { c.tunnels = t }

// NewStatic returns a Cache of one member whose configuration is cfg: a pull cluster's
// agent reaches its own cluster with its own credentials. Any other name is not found.
func NewStatic(name string, cfg *rest.Config) *Cache {
	return &Cache{static: map[string]*rest.Config{name: cfg}}
}

// Config returns a copy of the client configuration of the named member, for callers to
// adjust (impersonation, timeouts) freely.
func (c *Cache) Config(name string) (*rest.Config, error) {
	if c.static != nil {
		cfg, ok := c.static[name]
		if !ok {
			return nil, apierrors.NewNotFound(clusterv1alpha1.Resource("clusters"), name)
		}
		return rest.CopyConfig(cfg), nil
	}
	cluster, err := c.clusters.Get(name)
	if err != nil {
		return nil, err
	}
	if cluster.Spec.SyncMode == clusterv1alpha1.Pull {
		if c.tunnels == nil {
			return nil, fmt.Errorf("cluster %s is in pull mode: fed reaches it only through its agent's tunnel", name)
		}
		return c.tunnels.Config(name)
	}
	ref := cluster.Spec.SecretRef
	if ref == nil {
		return nil, fmt.Errorf("cluster %s has no spec.secretRef: fed has no credentials for it; join it with kubectl fed join", name)
	}
	secret, err := c.secrets.Secrets(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("cluster %s: its credentials Secret %s/%s does not exist", name, ref.Namespace, ref.Name)
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[name]
	if !ok || e.clusterVersion != cluster.ResourceVersion || e.secretVersion != secret.ResourceVersion {
		cfg, err := BuildConfig(cluster, secret)
		if err != nil {
			return nil, err
		}
		if cfg.BearerToken != "" && len(secret.Data[clusterv1alpha1.SecretKubeconfigKey]) == 0 {
			ts := &secretToken{secrets: c.secrets, namespace: ref.Namespace, name: ref.Name, last: cfg.BearerToken}
			cfg.BearerToken = ""
			cfg.WrapTransport = transport.TokenSourceWrapTransport(ts)
		}
		e = entry{clusterVersion: cluster.ResourceVersion, secretVersion: secret.ResourceVersion, config: cfg}
		c.entries[name] = e
	}
	return rest.CopyConfig(e.config), nil
}

// ByAgent says whether a member is reached by its agent rather than by this process: a
// pull cluster, seen from the host. Its Works are the agent's to apply.
func (c *Cache) ByAgent(name string) bool {
	if c.static != nil {
		return false
	}
	cluster, err := c.clusters.Get(name)
	return err == nil && cluster.Spec.SyncMode == clusterv1alpha1.Pull
}

// Leaving returns a cluster's Cluster while it is being deleted (fed cleans the member up
// before it goes), nil otherwise; nil for an agent's own cluster, which has no Cluster here.
func (c *Cache) Leaving(name string) *clusterv1alpha1.Cluster {
	if c.static != nil {
		return nil
	}
	cluster, err := c.clusters.Get(name)
	if err != nil || cluster.DeletionTimestamp == nil {
		return nil
	}
	return cluster
}

// secretToken is the token of a member's Secret as the informer has it now, or the last
// one it had while the Secret has none (deleted, or holding a kubeconfig now: the
// configuration is built again at the next Config).
type secretToken struct {
	secrets         corelisters.SecretLister
	namespace, name string

	mu   sync.Mutex
	last string
}

func (s *secretToken) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if secret, err := s.secrets.Secrets(s.namespace).Get(s.name); err == nil {
		if t := secret.Data[clusterv1alpha1.SecretTokenKey]; len(t) > 0 {
			s.last = string(t)
		}
	}
	return &oauth2.Token{AccessToken: s.last, TokenType: "Bearer"}, nil
}

// Forget drops a member's configuration (the Cluster was deleted).
func (c *Cache) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, name)
}

// BuildConfig makes the client configuration of a member from its Cluster and credentials
// Secret: a kubeconfig key wins; otherwise spec.apiEndpoint with the token and CA bundle.
func BuildConfig(cluster *clusterv1alpha1.Cluster, secret *corev1.Secret) (*rest.Config, error) {
	if kc := secret.Data[clusterv1alpha1.SecretKubeconfigKey]; len(kc) > 0 {
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: kubeconfig in Secret %s/%s: %w", cluster.Name, secret.Namespace, secret.Name, err)
		}
		return cfg, nil
	}
	if cluster.Spec.APIEndpoint == "" {
		return nil, fmt.Errorf("cluster %s has no spec.apiEndpoint", cluster.Name)
	}
	token := secret.Data[clusterv1alpha1.SecretTokenKey]
	if len(token) == 0 {
		return nil, fmt.Errorf("cluster %s: Secret %s/%s has neither %q nor %q", cluster.Name, secret.Namespace, secret.Name,
			clusterv1alpha1.SecretTokenKey, clusterv1alpha1.SecretKubeconfigKey)
	}
	cfg := &rest.Config{Host: cluster.Spec.APIEndpoint, BearerToken: string(token)}
	if cluster.Spec.InsecureSkipTLSVerification {
		cfg.Insecure = true
	} else {
		cfg.CAData = secret.Data[clusterv1alpha1.SecretCABundleKey]
	}
	return cfg, nil
}
