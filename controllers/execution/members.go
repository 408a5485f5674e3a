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

package execution

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/internal/mutation"
)

// member is fed's access to one member cluster: a client, a mapper of its kinds, and
// informers on the objects fed manages there (label LabelManaged=true), one per resource,
// started as Works name them. Their events bring the objects' status back to the Works.
type member struct {
	id      string // what the client configuration was built from
	client  dynamic.Interface
	mapper  meta.ResettableRESTMapper
	factory dynamicinformer.DynamicSharedInformerFactory
	cancel  context.CancelFunc
	ctx     context.Context

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]*watched
	// namespaces known to exist in the member
	namespaces sync.Map
}

// members hands out a member for each cluster, rebuilt when its credentials change.
type members struct {
	configs *clusterclient.Cache
	// onEvent is told of every change of a managed object in a member.
	onEvent func(cluster string, obj metav1.Object)

	mu      sync.Mutex
	members map[string]*member
	ctx     context.Context
}

// configID identifies a client configuration by where it goes and how it authenticates.
func configID(cfg *rest.Config) string {
	h := sha256.New()
	for _, s := range []string{cfg.Host, cfg.BearerToken, cfg.BearerTokenFile, cfg.Username, cfg.Password} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, b := range [][]byte{cfg.CAData, cfg.CertData, cfg.KeyData} {
		h.Write(b)
		h.Write([]byte{0})
	}
	h.Write([]byte(cfg.CAFile + "\x00" + cfg.CertFile + "\x00" + cfg.KeyFile + "\x00" + cfg.ServerName))
	return hex.EncodeToString(h.Sum(nil))
}

// get returns the member of a cluster.
func (m *members) get(cluster string) (*member, error) {
	cfg, err := m.configs.Config(cluster)
	if err != nil {
		return nil, err
	}
	id := configID(cfg)
	m.mu.Lock()
	defer m.mu.Unlock()
	if mb, ok := m.members[cluster]; ok && mb.id == id {
		return mb, nil
	} else if ok {
		mb.cancel()
		mb.factory.Shutdown()
	}
	// Applying many objects at once must not wait on client-side throttling; the
	// members' own priority and fairness protect them.
	cfg.QPS, cfg.Burst = 200, 400
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(m.ctx)
	mb := &member{
		id:     id,
		client: client,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
		factory: dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
			o.LabelSelector = federationv1alpha1.LabelManaged + "=true"
		}),
		ctx:       ctx,
		cancel:    cancel,
		informers: map[schema.GroupVersionResource]*watched{},
	}
	m.members[cluster] = mb
	return mb, nil
}

// forget stops watching a cluster that left.
func (m *members) forget(cluster string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mb, ok := m.members[cluster]; ok {
		mb.cancel()
		mb.factory.Shutdown()
		delete(m.members, cluster)
	}
}

// mapping maps a kind to its resource in the member; a kind it does not know makes it
// read discovery again once (a CRD may just have been applied).
func (mb *member) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	mapping, err := mb.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		mb.mapper.Reset()
		mapping, err = mb.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return mapping, err
}

// watched is what fed knows of the managed objects of one resource in a member: an
// informer's, and the objects fed wrote there itself until the informer has them too (so
// that fed neither applies an object twice nor thinks it missing in between).
type watched struct {
	informer cache.SharedIndexInformer
	written  *mutation.Cache
}

// get returns the object of a key, nil when fed knows of none (or its informer has not
// listed yet).
func (w *watched) get(key string) *unstructured.Unstructured {
	if !w.informer.HasSynced() {
		return nil
	}
	if o, exists, err := w.written.GetByKey(key); err == nil && exists {
		return o.(*unstructured.Unstructured)
	}
	return nil
}

// informer returns what fed knows of the managed objects of a resource, starting its
// informer once.
func (mb *member) informer(gvr schema.GroupVersionResource, cluster string, onEvent func(string, metav1.Object)) *watched {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if w, ok := mb.informers[gvr]; ok {
		return w
	}
	inf := mb.factory.ForResource(gvr).Informer()
	w := &watched{informer: inf, written: mutation.New(inf, true)}
	notify := func(obj any, deleted bool) {
		w.written.Observe(obj, deleted)
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if o, err := meta.Accessor(obj); err == nil {
			onEvent(cluster, o)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { notify(obj, false) },
		UpdateFunc: func(_, obj any) { notify(obj, false) },
		DeleteFunc: func(obj any) { notify(obj, true) },
	})
	mb.factory.Start(mb.ctx.Done())
	mb.informers[gvr] = w
	return w
}
