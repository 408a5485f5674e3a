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

// Package scaletargets reaches the scale subresource of the fleet's templates, for the
// controllers that scale them (FederatedHPA, CronFederatedHPA), and resolves the kind a
// scaleTargetRef names to the fleet's resource.
package scaletargets

import (
	"fmt"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
)

// Mapper resolves scale targets with the fleet's discovery. When a kind is not found it
// reads discovery again (a CRD applied to the fleet since), at most every half minute, so
// that a target of a kind that does not exist does not make every sync read the fleet's
// whole discovery again.
type Mapper struct {
	*restmapper.DeferredDiscoveryRESTMapper
	mu        sync.Mutex
	lastReset time.Time
}

// New returns the scale client of the fleet that cfg reaches, and the mapper of its kinds.
func New(cfg *rest.Config) (scale.ScalesGetter, *Mapper, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("fleet discovery: %w", err)
	}
	m := &Mapper{DeferredDiscoveryRESTMapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
	scales, err := scale.NewForConfig(cfg, m, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
	if err != nil {
		return nil, nil, fmt.Errorf("fleet scale client: %w", err)
	}
	return scales, m, nil
}

// RESTMapping is the deferred mapper's, reading discovery again on a miss (see Mapper).
func (m *Mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mapping, err := m.DeferredDiscoveryRESTMapper.RESTMapping(gk, versions...)
	if !meta.IsNoMatchError(err) {
		return mapping, err
	}
	m.mu.Lock()
	reset := time.Since(m.lastReset) > 30*time.Second
	if reset {
		m.lastReset = time.Now()
	}
	m.mu.Unlock()
	if !reset {
		return mapping, err
	}
	m.Reset()
	return m.DeferredDiscoveryRESTMapper.RESTMapping(gk, versions...)
}

// Resource is the fleet's resource of the kind ref names.
func (m *Mapper) Resource(ref autoscalingv2.CrossVersionObjectReference) (schema.GroupResource, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return schema.GroupResource{}, fmt.Errorf("scaleTargetRef.apiVersion %q: %w", ref.APIVersion, err)
	}
	mapping, err := m.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return schema.GroupResource{}, fmt.Errorf("the fleet serves no kind %s in %s: %w", ref.Kind, ref.APIVersion, err)
	}
	return mapping.Resource.GroupResource(), nil
}
