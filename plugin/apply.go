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

package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	diskcached "k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
	"k8s.io/kubectl/pkg/cmd/apply"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// NewCmdApply is `kubectl fed apply`: kubectl's own apply, against the fleet API.
func NewCmdApply(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	f := cmdutil.NewFactory(newFleetClientGetter(configFlags))
	cmd := apply.NewCmdApply("kubectl fed", f, streams)
	cmd.Short = "Apply a configuration to templates of the fleet by file name or stdin"
	cmd.Long = fmt.Sprintf(`Apply a configuration to templates of the fleet by file name or stdin.

This is kubectl apply, with every flag of it (-f, -k, -R, --server-side, --dry-run, --prune,
…), against the fleet API: the host cluster's URL followed by

  %s

The objects become templates stored by fed; nothing is created in the host cluster. A
PropagationPolicy then says which member clusters they go to.`, federationv1alpha1.FleetPath)
	cmd.Example = `  # Apply the templates of a file, and a policy placing them
  kubectl fed apply -f nginx.yaml -f nginx-policy.yaml

  # Every manifest of a directory tree, with server-side apply
  kubectl fed apply -R -f manifests/ --server-side

  # What would change, checked by fed-apiserver
  kubectl fed apply -f nginx.yaml --dry-run=server`
	return cmd
}

// fleetClientGetter is a RESTClientGetter for the fleet API: the host's config of the
// kubeconfig flags, pointed at the fleet path. The kubeconfig loader (namespace, context)
// stays the host's.
type fleetClientGetter struct {
	flags *genericclioptions.ConfigFlags
	// path turns the host's config into the one to use.
	path func(*rest.Config) (*rest.Config, error)

	once      sync.Once
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	err       error
}

var _ genericclioptions.RESTClientGetter = &fleetClientGetter{}

func newFleetClientGetter(flags *genericclioptions.ConfigFlags) *fleetClientGetter {
	return &fleetClientGetter{flags: flags, path: fleetConfig}
}

// newMemberClientGetter is the same for a member cluster, through the host's cluster proxy.
func newMemberClientGetter(flags *genericclioptions.ConfigFlags, cluster string) *fleetClientGetter {
	return &fleetClientGetter{flags: flags, path: func(host *rest.Config) (*rest.Config, error) { return memberConfig(host, cluster) }}
}

// ToRESTConfig is the host's config with the path appended.
func (g *fleetClientGetter) ToRESTConfig() (*rest.Config, error) {
	host, err := g.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return g.path(host)
}

// ToRawKubeConfigLoader is the host's: namespace and context come from its flags.
func (g *fleetClientGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.flags.ToRawKubeConfigLoader()
}

// ToDiscoveryClient caches discovery on disk as kubectl does, under the server URL with
// its path, so kubectl with a fleet kubeconfig shares the cache.
func (g *fleetClientGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	g.init()
	return g.discovery, g.err
}

// ToRESTMapper maps kinds and resources, with their short names, by discovery.
func (g *fleetClientGetter) ToRESTMapper() (meta.RESTMapper, error) {
	g.init()
	return g.mapper, g.err
}

func (g *fleetClientGetter) init() {
	g.once.Do(func() {
		cfg, err := g.ToRESTConfig()
		if err != nil {
			g.err = err
			return
		}
		cfg.QPS, cfg.Burst = 50, 300 // discovery only, as kubectl
		cacheDir := defaultCacheDir()
		if g.flags.CacheDir != nil && *g.flags.CacheDir != "" {
			cacheDir = *g.flags.CacheDir
		}
		dc, err := diskcached.NewCachedDiscoveryClientForConfig(cfg, discoveryCacheDir(filepath.Join(cacheDir, "discovery"), cfg.Host),
			filepath.Join(cacheDir, "http"), 6*time.Hour)
		if err != nil {
			g.err = err
			return
		}
		g.discovery = dc
		g.mapper = restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(dc), dc, nil)
	})
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
