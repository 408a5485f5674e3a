// Package apiserver assembles fed-apiserver: the generic API server of k8s.io/apiserver with
// fed's API groups installed on the storage the options chose.
package apiserver

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fedhq/fed/apiserver/registry"
	"github.com/fedhq/fed/controllers"
)

// Config is fed-apiserver's configuration.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
	// HostClientConfig reaches the host cluster (--kubeconfig, or in-cluster). Without it
	// the embedded controllers do not run.
	HostClientConfig *rest.Config
}

type completedConfig struct {
	GenericConfig    genericapiserver.CompletedConfig
	HostClientConfig *rest.Config
}

// CompletedConfig is a Config on which Complete has run; only it can build a server.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in the fields not set by the options.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{&completedConfig{GenericConfig: c.GenericConfig.Complete(), HostClientConfig: c.HostClientConfig}}
}

// Server is fed-apiserver.
type Server struct {
	GenericAPIServer *genericapiserver.GenericAPIServer
}

// New builds the server and installs every fed API group.
func (c CompletedConfig) New() (*Server, error) {
	s, err := c.GenericConfig.New("fed-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	optsGetter := c.GenericConfig.RESTOptionsGetter
	hostSecrets := func(context.Context, string, string) (*corev1.Secret, error) {
		return nil, errors.New("fed-apiserver runs without a host cluster (--kubeconfig)")
	}
	if c.HostClientConfig != nil {
		host, err := kubernetes.NewForConfig(c.HostClientConfig)
		if err != nil {
			return nil, err
		}
		hostSecrets = func(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
			return host.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		}
	}
	clusterGroup, err := registry.NewClusterGroupInfo(optsGetter, hostSecrets)
	if err != nil {
		return nil, err
	}
	federationGroup, err := registry.NewFederationGroupInfo(optsGetter)
	if err != nil {
		return nil, err
	}
	if err := s.InstallAPIGroups(clusterGroup, federationGroup); err != nil {
		return nil, err
	}
	if host := c.HostClientConfig; host != nil {
		// The controllers read and write fed's objects through the server's own loopback
		// client, so they need it serving: a post-start hook, stopped with the server.
		s.AddPostStartHookOrDie("start-fed-controllers", func(hookContext genericapiserver.PostStartHookContext) error {
			return controllers.Start(hookContext, controllers.Config{Fed: hookContext.LoopbackClientConfig, Host: host})
		})
	}
	return &Server{GenericAPIServer: s}, nil
}
