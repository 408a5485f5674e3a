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

package fleet

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Kubeconfig turns the host's kubeconfig, its current context selecting the host
// cluster, into a self-contained kubeconfig of the fleet API whose cluster, user and
// context are all called name.
func Kubeconfig(host *clientcmdapi.Config, name, path string) (*clientcmdapi.Config, error) {
	hostContext := host.Contexts[host.CurrentContext]
	if hostContext == nil {
		return nil, fmt.Errorf("context %q does not exist", host.CurrentContext)
	}
	hostCluster := host.Clusters[hostContext.Cluster]
	if hostCluster == nil || hostCluster.Server == "" {
		return nil, fmt.Errorf("no server found for the host cluster (context %q); select it with --kubeconfig, --context or --server", host.CurrentContext)
	}
	cluster := hostCluster.DeepCopy()
	server, err := ServerAt(cluster, path)
	if err != nil {
		return nil, err
	}
	cluster.Server = server
	user := clientcmdapi.NewAuthInfo()
	if hostUser := host.AuthInfos[hostContext.AuthInfo]; hostUser != nil {
		user = hostUser.DeepCopy()
	}

	fleet := clientcmdapi.NewConfig()
	fleet.Clusters[name] = cluster
	fleet.AuthInfos[name] = user
	fleet.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: hostContext.Namespace}
	fleet.CurrentContext = name
	if err := clientcmdapi.FlattenConfig(fleet); err != nil {
		return nil, err
	}
	if err := clientcmdapi.MinifyConfig(fleet); err != nil {
		return nil, err
	}
	return fleet, nil
}

// Server is the URL of the fleet API behind the host cluster c: its server URL, with
// any path prefix it has (a proxy's, say), followed by FleetPath. A server given as
// host:port gets the scheme client-go would use for it. A server that is already the
// fleet's stays as it is.
func Server(c *clientcmdapi.Cluster) (string, error) {
	return ServerAt(c, federationv1alpha1.FleetPath)
}

// ServerAt is Server for another path of fed-apiserver behind the host (the fleet
// proxy's, say).
func ServerAt(c *clientcmdapi.Cluster, path string) (string, error) {
	tls := c.InsecureSkipTLSVerify || c.CertificateAuthority != "" || len(c.CertificateAuthorityData) > 0
	u, _, err := rest.DefaultServerURL(c.Server, "", schema.GroupVersion{}, tls)
	if err != nil {
		return "", fmt.Errorf("invalid server URL %q of the host cluster: %w", c.Server, err)
	}
	prefix := strings.TrimRight(u.Path, "/")
	suffix := path
	if strings.HasSuffix(prefix, suffix) {
		suffix = ""
	}
	u.Path = prefix + suffix
	if u.RawPath != "" {
		u.RawPath = strings.TrimRight(u.RawPath, "/") + suffix
	}
	return u.String(), nil
}
