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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	diskcached "k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
)

// ProxiedGetter is kubectl's RESTClientGetter for an API reached through the host: the
// host's config of the kubeconfig flags, pointed at the fleet API or at a member's proxy.
// The kubeconfig loader (namespace, context) stays the host's. Discovery is cached on disk
// as kubectl caches it, under the server URL with its path, so kubectl with a fleet
// kubeconfig shares the fleet's cache.
type ProxiedGetter struct {
	flags *genericclioptions.ConfigFlags
	// config turns the host's config into the one to use.
	config func(host *rest.Config) (*rest.Config, error)

	mu        sync.Mutex
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
}

var _ genericclioptions.RESTClientGetter = &ProxiedGetter{}

// NewFleetGetter reaches the fleet API.
func NewFleetGetter(flags *genericclioptions.ConfigFlags) *ProxiedGetter {
	return &ProxiedGetter{flags: flags, config: FleetConfig}
}

// NewMemberGetter reaches the member cluster() names when a client is first made (so a
// command can build it before its -C flag is parsed).
func NewMemberGetter(flags *genericclioptions.ConfigFlags, cluster func() string) *ProxiedGetter {
	return &ProxiedGetter{flags: flags, config: func(host *rest.Config) (*rest.Config, error) {
		name := cluster()
		if name == "" {
			return nil, fmt.Errorf("no member cluster chosen: specify one with -C NAME")
		}
		return MemberConfig(host, name)
	}}
}

// NewConfigGetter uses cfg, made from the host's config already.
func NewConfigGetter(flags *genericclioptions.ConfigFlags, cfg *rest.Config) *ProxiedGetter {
	return &ProxiedGetter{flags: flags, config: func(*rest.Config) (*rest.Config, error) { return rest.CopyConfig(cfg), nil }}
}

// CacheGetter is a RESTClientGetter whose requests go to the search cache of the host
// (CacheConfig), while discovery and the RESTMapper are those of another getter, a
// member's: the cache answers lists and watches, not discovery.
type CacheGetter struct {
	resource.RESTClientGetter
	flags *genericclioptions.ConfigFlags
}

var _ genericclioptions.RESTClientGetter = &CacheGetter{}

// NewCacheGetter reaches the search cache, resolving types with discovery's.
func NewCacheGetter(flags *genericclioptions.ConfigFlags, discovery resource.RESTClientGetter) *CacheGetter {
	return &CacheGetter{RESTClientGetter: discovery, flags: flags}
}

// ToRESTConfig is the host's config pointed at the search cache.
func (g *CacheGetter) ToRESTConfig() (*rest.Config, error) {
	host, err := g.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return CacheConfig(host)
}

// ToRawKubeConfigLoader is the host's kubeconfig loader.
func (g *CacheGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.flags.ToRawKubeConfigLoader()
}

// ToRESTConfig is the host's config pointed where the getter goes.
func (g *ProxiedGetter) ToRESTConfig() (*rest.Config, error) {
	host, err := g.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return g.config(host)
}

// ToRawKubeConfigLoader is the host's: namespace and context come from its flags.
func (g *ProxiedGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.flags.ToRawKubeConfigLoader()
}

// ToDiscoveryClient is the API's discovery, cached on disk.
func (g *ProxiedGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.discoveryLocked()
}

// ToRESTMapper maps kinds and resources, with kubectl's short names, by discovery.
func (g *ProxiedGetter) ToRESTMapper() (meta.RESTMapper, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	dc, err := g.discoveryLocked()
	if err != nil {
		return nil, err
	}
	if g.mapper == nil {
		g.mapper = restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(dc), dc, nil)
	}
	return g.mapper, nil
}

// discoveryLocked makes the discovery client once it succeeds (an error, such as no member
// chosen yet, is not kept).
func (g *ProxiedGetter) discoveryLocked() (discovery.CachedDiscoveryInterface, error) {
	if g.discovery != nil {
		return g.discovery, nil
	}
	cfg, err := g.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 300 // discovery asks for many group versions at once, as kubectl's
	cacheDir := defaultCacheDir()
	if g.flags.CacheDir != nil && *g.flags.CacheDir != "" {
		cacheDir = *g.flags.CacheDir
	}
	dc, err := diskcached.NewCachedDiscoveryClientForConfig(cfg, discoveryCacheDir(filepath.Join(cacheDir, "discovery"), cfg.Host),
		filepath.Join(cacheDir, "http"), 6*time.Hour)
	if err != nil {
		return nil, err
	}
	g.discovery = dc
	return dc, nil
}

// defaultCacheDir is kubectl's: $KUBECACHEDIR or ~/.kube/cache.
func defaultCacheDir() string {
	if d := os.Getenv("KUBECACHEDIR"); d != "" {
		return d
	}
	return filepath.Join(homedir.HomeDir(), ".kube", "cache")
}

var unsafeCacheChars = regexp.MustCompile(`[^(\w/.)]`)

// discoveryCacheDir names the cache of a server as kubectl does.
func discoveryCacheDir(parent, host string) string {
	host = strings.TrimPrefix(strings.TrimPrefix(host, "https://"), "http://")
	return filepath.Join(parent, unsafeCacheChars.ReplaceAllString(host, "_"))
}
