// Package apiserver assembles fed-apiserver: the generic API server of k8s.io/apiserver with
// fed's API groups installed on the storage the options chose.
package apiserver

import (
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/fedhq/fed/apiserver/registry"
)

// Config is fed-apiserver's configuration.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
}

type completedConfig struct {
	GenericConfig genericapiserver.CompletedConfig
}

// CompletedConfig is a Config on which Complete has run; only it can build a server.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in the fields not set by the options.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{&completedConfig{GenericConfig: c.GenericConfig.Complete()}}
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
	clusterGroup, err := registry.NewClusterGroupInfo(optsGetter)
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
	return &Server{GenericAPIServer: s}, nil
}
