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
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

const fleetPath = federationv1alpha1.FleetPath

func TestFleetClientGetter(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(false)
	server, ns, cache := "https://host.example:6443", "shop", t.TempDir()
	flags.APIServer, flags.Namespace, flags.CacheDir = ptr.To(server), ptr.To(ns), ptr.To(cache)

	cfg, err := NewFleetGetter(flags).ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if want := server + fleetPath; cfg.Host != want {
		t.Errorf("fleet host %q, want %q", cfg.Host, want)
	}
	cfg, err = NewMemberGetter(flags, func() string { return "member1" }).ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if want := server + "/apis/cluster.fedhq.io/v1alpha1/clusters/member1/proxy"; cfg.Host != want {
		t.Errorf("member host %q, want %q", cfg.Host, want)
	}
	if got, _, err := NewFleetGetter(flags).ToRawKubeConfigLoader().Namespace(); err != nil || got != ns {
		t.Errorf("namespace %q, %v; want %q", got, err, ns)
	}
	if _, err := NewFleetGetter(flags).ToRESTMapper(); err != nil {
		t.Errorf("ToRESTMapper: %v", err)
	}
	// The cache's requests go to the host's cache path, its discovery is the member's.
	member := NewMemberGetter(flags, func() string { return "member1" })
	cached := NewCacheGetter(flags, member)
	if cfg, err = cached.ToRESTConfig(); err != nil {
		t.Fatal(err)
	}
	if want := server + "/apis/search.fedhq.io/v1alpha1/search/cache"; cfg.Host != want {
		t.Errorf("cache host %q, want %q", cfg.Host, want)
	}
	dc, err := cached.ToDiscoveryClient()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := member.ToDiscoveryClient(); dc != want {
		t.Errorf("the cache getter's discovery is not the member's")
	}
}

func TestDiscoveryCacheDir(t *testing.T) {
	got := discoveryCacheDir("/c", "https://127.0.0.1:6443"+fleetPath)
	if want := filepath.Join("/c", "127.0.0.1_6443"+fleetPath); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
