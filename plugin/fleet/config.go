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

// Package fleet reaches a fed fleet from the kubeconfig flags of the host cluster: the
// fleet API where templates live, and each member cluster through the host's cluster proxy.
// It holds the REST configs and client getters of both, the -C/--clusters flags and their
// resolution to joined members, and the fan-out of a query across members.
package fleet

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// AnnotationCluster names, on an object kubectl fed prints as JSON or YAML, the member
// cluster it comes from.
const AnnotationCluster = "cluster.fedhq.io/cluster"

// SetCluster sets AnnotationCluster on an object of member cluster; a template (cluster
// "") gets none.
func SetCluster(u *unstructured.Unstructured, cluster string) {
	if cluster == "" {
		return
	}
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[AnnotationCluster] = cluster
	u.SetAnnotations(a)
}

// The config of a member is the host's, pointed at the member's proxy subresource: the host
// authorizes `clusters/proxy`, fed-apiserver reaches the member acting as the user.

// withPath returns a copy of cfg whose server has path appended.
func withPath(cfg *rest.Config, path string) (*rest.Config, error) {
	c := rest.CopyConfig(cfg)
	u, err := url.Parse(c.Host)
	if err != nil {
		return nil, fmt.Errorf("the server %q of the kubeconfig: %w", c.Host, err)
	}
	if u.Scheme == "" { // host:port, as kubeconfigs may say
		if u, err = url.Parse("https://" + c.Host); err != nil {
			return nil, err
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	c.Host = u.String()
	c.APIPath = ""
	return c, nil
}

// MemberConfig reaches member cluster name through the host's cluster proxy.
func MemberConfig(host *rest.Config, name string) (*rest.Config, error) {
	return withPath(host, "/apis/"+clusterv1alpha1.GroupName+"/v1alpha1/clusters/"+name+"/proxy")
}

// FleetConfig reaches the fleet API, where templates live.
func FleetConfig(host *rest.Config) (*rest.Config, error) {
	return withPath(host, federationv1alpha1.FleetPath)
}

// CacheConfig is the REST config of the search cache on the host: Kubernetes list and
// watch paths below it answer from the cache across the members.
func CacheConfig(host *rest.Config) (*rest.Config, error) {
	return withPath(host, searchv1alpha1.CachePath)
}

// ProxyConfig reaches the fleet proxy: one Kubernetes API made of every member, whose
// discovery is the first Ready member's (the search roles are enough for it).
func ProxyConfig(host *rest.Config) (*rest.Config, error) {
	return withPath(host, searchv1alpha1.ProxyPath)
}
