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

// Package members is fed's access to its member clusters, shared by the controllers that
// reach them: per cluster a client, a mapper of its kinds, informers on the objects fed
// manages there (label LabelManaged=true) and one on its namespaces. A member is built on
// first use and built again when its credentials change; it is dropped when its Cluster
// leaves the fleet.
package members

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/internal/mutation"
	"github.com/fedhq/fed/controllers/internal/trim"
)

// NamespacesResource is the resource of namespaces, in the fleet and in members.
var NamespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// CRDsResource is the resource of CustomResourceDefinitions, in the fleet and in members.
var CRDsResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// EndpointSlicesResource is the resource of EndpointSlices in members.
var EndpointSlicesResource = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}

// serviceSlices selects the EndpointSlices a member's own endpointslice controller makes
// for its Services (not those fed or others write).
const serviceSlices = "endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io"

// Handler is told of every change of a managed object in a member: its cluster, its
// resource, the object, and whether it was deleted.
type Handler func(cluster string, gvr schema.GroupVersionResource, obj metav1.Object, deleted bool)

// Members hands out a Member for each cluster.
type Members struct {
	ctx     context.Context
	configs *clusterclient.Cache
	// clustersSynced says the Clusters are listed: until then ByAgent cannot tell.
	clustersSynced cache.InformerSynced

	mu      sync.Mutex
	members map[string]*Member

	// handlersMu guards the handlers apart from mu: a member is stopped under mu, and
	// stopping waits for its informers' handlers, which read these.
	handlersMu    sync.RWMutex
	handlers      []Handler
	sliceHandlers []Handler
}

// New returns the access to the members whose configurations configs builds, for as long
// as ctx lasts. A Cluster deleted from clusters is forgotten: its informers stop.
func New(ctx context.Context, configs *clusterclient.Cache, clusters clusterinformers.ClusterInformer) (*Members, error) {
	m := &Members{ctx: ctx, configs: configs, clustersSynced: clusters.Informer().HasSynced, members: map[string]*Member{}}
	_, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if c, ok := obj.(*clusterv1alpha1.Cluster); ok {
			m.forget(c.Name)
		}
	}})
	return m, err
}

// ByAgent says whether a member is reached by its agent rather than by this process (a
// pull cluster, seen from the host): its Works are applied and reported by the agent.
// Callers wait for HasSynced first.
func (m *Members) ByAgent(cluster string) bool { return m.configs.ByAgent(cluster) }

// Leaving returns a cluster's Cluster while it is being deleted, else nil.
func (m *Members) Leaving(cluster string) *clusterv1alpha1.Cluster { return m.configs.Leaving(cluster) }

// HasSynced says the Clusters are listed, so that ByAgent knows every cluster.
func (m *Members) HasSynced() bool { return m.clustersSynced() }

// AddHandler registers a handler of the managed objects' changes in every member. Handlers
// are added by constructors, before any member is built.
func (m *Members) AddHandler(h Handler) {
	m.handlersMu.Lock()
	defer m.handlersMu.Unlock()
	m.handlers = append(m.handlers, h)
}

// AddSliceHandler registers a handler of the changes of the EndpointSlices of the
// members' Services (ServiceSlices), added like AddHandler's.
func (m *Members) AddSliceHandler(h Handler) {
	m.handlersMu.Lock()
	defer m.handlersMu.Unlock()
	m.sliceHandlers = append(m.sliceHandlers, h)
}

func (m *Members) notifySlice(cluster string, gvr schema.GroupVersionResource, obj metav1.Object, deleted bool) {
	m.handlersMu.RLock()
	handlers := m.sliceHandlers
	m.handlersMu.RUnlock()
	for _, h := range handlers {
		h(cluster, gvr, obj, deleted)
	}
}

func (m *Members) notify(cluster string, gvr schema.GroupVersionResource, obj metav1.Object, deleted bool) {
	m.handlersMu.RLock()
	handlers := m.handlers
	m.handlersMu.RUnlock()
	for _, h := range handlers {
		h(cluster, gvr, obj, deleted)
	}
}

// Member is fed's access to one member cluster.
type Member struct {
	// Client reaches the member.
	Client dynamic.Interface

	id          string // what the client configuration was built from
	name        string
	mapper      meta.ResettableRESTMapper
	managed     dynamicinformer.DynamicSharedInformerFactory // objects labelled LabelManaged
	all         dynamicinformer.DynamicSharedInformerFactory // namespaces
	slices      dynamicinformer.DynamicSharedInformerFactory // the Services' EndpointSlices
	notifySlice Handler
	cancel      context.CancelFunc
	ctx         context.Context
	notify      Handler

	mu            sync.Mutex
	informers     map[schema.GroupVersionResource]*Watched
	namespaces    *Watched
	serviceSlices *Watched
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

// Get returns the member of a cluster, or the error that keeps fed from reaching it (a
// NotFound error when the Cluster is not in the fleet).
func (m *Members) Get(cluster string) (*Member, error) {
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
		mb.stop()
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
	mb := &Member{
		Client: client,
		id:     id,
		name:   cluster,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
		managed: dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
			o.LabelSelector = federationv1alpha1.LabelManaged + "=true"
		}),
		all: dynamicinformer.NewDynamicSharedInformerFactory(client, 0),
		slices: dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
			o.LabelSelector = serviceSlices
		}),
		notifySlice: m.notifySlice,
		ctx:         ctx,
		cancel:      cancel,
		notify:      m.notify,
		informers:   map[schema.GroupVersionResource]*Watched{},
	}
	m.members[cluster] = mb
	go wait.UntilWithContext(ctx, mb.recheck, settle/2)
	return mb, nil
}

// recheck asks the member for the objects fed wrote there that its informers have not
// shown in settle (Watched.recheck).
func (mb *Member) recheck(ctx context.Context) {
	mb.mu.Lock()
	watched := make([]*Watched, 0, len(mb.informers)+1)
	for _, w := range mb.informers {
		watched = append(watched, w)
	}
	if mb.namespaces != nil {
		watched = append(watched, mb.namespaces)
	}
	mb.mu.Unlock()
	now := time.Now()
	for _, w := range watched {
		w.recheck(ctx, now)
	}
}

// forget stops watching a cluster that left.
func (m *Members) forget(cluster string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mb, ok := m.members[cluster]; ok {
		mb.stop()
		delete(m.members, cluster)
	}
}

func (mb *Member) stop() {
	mb.cancel()
	mb.managed.Shutdown()
	mb.all.Shutdown()
	mb.slices.Shutdown()
}

// Name is the member's cluster.
func (mb *Member) Name() string { return mb.name }

// Namespaces is what fed knows of every namespace of the member, fed's or not, from an
// informer started on first use.
func (mb *Member) Namespaces() *Watched {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if mb.namespaces == nil {
		mb.namespaces = watch(mb.all.ForResource(NamespacesResource).Informer(), nil)
		mb.namespaces.resource, mb.namespaces.gvr = mb.Client.Resource(NamespacesResource), NamespacesResource
		mb.all.Start(mb.ctx.Done())
	}
	return mb.namespaces
}

// ServiceSlices is what fed knows of the EndpointSlices the member's endpointslice
// controller made for its Services, from an informer started on first use; its events go
// to the slice handlers.
func (mb *Member) ServiceSlices() *Watched {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if mb.serviceSlices == nil {
		mb.serviceSlices = watch(mb.slices.ForResource(EndpointSlicesResource).Informer(), func(o metav1.Object, deleted bool) {
			mb.notifySlice(mb.name, EndpointSlicesResource, o, deleted)
		})
		mb.slices.Start(mb.ctx.Done())
	}
	return mb.serviceSlices
}

// Mapping maps a kind to its resource in the member; a kind it does not know makes it
// read discovery again once (a CRD may just have been applied).
func (mb *Member) Mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	mapping, err := mb.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		mb.mapper.Reset()
		mapping, err = mb.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return mapping, err
}

// Rediscover makes the member's mapper read discovery again on its next use: the member
// answered that it does not serve a resource its discovery listed.
func (mb *Member) Rediscover() { mb.mapper.Reset() }

var apiServicesResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// MayHold says whether the member may hold objects of a kind its discovery does not list:
// a kube-apiserver lists its CRDs' and aggregated APIs' kinds only once it has loaded
// them after a start, and a CRD's version may be unserved for a while, its objects kept.
// It may when an APIService registers the kind's group version or a CRD defines the kind.
// Where fed may read neither (join bound it to a narrower ClusterRole), it says no.
func (mb *Member) MayHold(ctx context.Context, gvk schema.GroupVersionKind) (bool, error) {
	_, err := mb.Client.Resource(apiServicesResource).Get(ctx, gvk.Version+"."+gvk.Group, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsForbidden(err):
		return false, nil
	case !apierrors.IsNotFound(err):
		return false, err
	}
	crds, err := mb.Client.Resource(CRDsResource).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if apierrors.IsForbidden(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, crd := range crds.Items {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		if group == gvk.Group && kind == gvk.Kind {
			return true, nil
		}
	}
	return false, nil
}

// Watched is what fed knows of the managed objects of one resource in a member: an
// informer's, and the objects fed wrote there itself until the informer has them too (so
// that fed neither applies an object twice nor thinks it missing in between).
//
// The copies of objects the informer has are client-go's mutation cache's; those of
// objects it does not have yet are kept here (unseen), not in that cache with IncludeAdds:
// the cache serves such a copy once, then drops it (its first read compares the copy with
// itself and takes it for caught up), and cannot tell a copy the informer never shows from
// one it is about to.
type Watched struct {
	informer cache.SharedIndexInformer
	written  *mutation.Cache
	resource dynamic.NamespaceableResourceInterface // reads a copy the informer never showed
	gvr      schema.GroupVersionResource
	notify   func(obj metav1.Object, deleted bool)

	mu sync.Mutex
	// unseen are the copies fed wrote of objects the informer did not have then, by key,
	// until it shows them: a copy it never shows is asked of the member after settle.
	unseen map[string]unseenCopy
}

// unseenCopy is an object fed wrote that its informer has not shown yet, and since when.
type unseenCopy struct {
	obj   *unstructured.Unstructured
	since time.Time
}

// settle is how long a copy fed wrote may go unseen by its informer before fed asks the
// member whether the object is still there. The informer shows a write within a second
// as a rule; it never shows one that went before a relist (a CRD deleted and made again
// right after the write, while the informer's watch was down), and the copy would stand
// in for a gone object for the mutation cache's five minutes, with nothing to apply it
// again after them.
const settle = 10 * time.Second

// Get returns the object of a key (decoded from what the informer keeps, a copy of its own,
// or the copy fed wrote, which is shared), nil when fed knows of none (or its informer has
// not listed yet).
func (w *Watched) Get(key string) *unstructured.Unstructured {
	if o := w.lookup(key); o != nil {
		return trim.Whole(o)
	}
	return nil
}

// Peek returns an object's metadata as Get would find it, without decoding the object (the
// informer keeps it compact); nil when there is none. trim.Unstructured decodes it.
func (w *Watched) Peek(key string) metav1.Object {
	if m, err := meta.Accessor(w.lookup(key)); err == nil {
		return m
	}
	return nil
}

// lookup returns what fed keeps of a key's object, nil when it keeps none (or its informer
// has not listed yet).
func (w *Watched) lookup(key string) any {
	if !w.informer.HasSynced() {
		return nil
	}
	if o, exists, err := w.written.GetByKey(key); err == nil && exists {
		return o
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if u, ok := w.unseen[key]; ok {
		return u.obj
	}
	return nil
}

// List returns the objects of a namespace the informer has whose labels selector
// matches.
func (w *Watched) List(namespace string, selector labels.Selector) []*unstructured.Unstructured {
	objs, _ := w.informer.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if m, err := meta.Accessor(o); err == nil && selector.Matches(labels.Set(m.GetLabels())) {
			if u := trim.Whole(o); u != nil {
				out = append(out, u)
			}
		}
	}
	return out
}

// Synced says whether the informer has listed.
func (w *Watched) Synced() bool { return w.informer.HasSynced() }

// Wrote tells w of an object fed just wrote, which Get serves until the informer has it.
func (w *Watched) Wrote(obj *unstructured.Unstructured) {
	w.written.Wrote(obj)
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	if _, exists, _ := w.informer.GetStore().GetByKey(key); exists {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unseen[key] = unseenCopy{obj: obj, since: time.Now()}
}

// Released tells w that fed deleted an object, or let it go from what it manages: a copy
// of it the informer has not shown is no longer served.
func (w *Watched) Released(namespace, name string) {
	w.seen(cache.NewObjectName(namespace, name).String())
}

// seen forgets an unseen copy: the informer showed its key.
func (w *Watched) seen(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.unseen, key)
}

// recheck asks the member for each object fed wrote that the informer has not shown in
// settle. One the member no longer has is gone from what w serves, and its handlers are
// told of its deletion (execution applies its Work again); one the member has is asked
// for again at the next recheck (the informer is behind).
func (w *Watched) recheck(ctx context.Context, now time.Time) {
	if w.resource == nil || !w.informer.HasSynced() {
		return
	}
	w.mu.Lock()
	var stale []unseenCopy
	for _, u := range w.unseen {
		if now.Sub(u.since) >= settle {
			stale = append(stale, u)
		}
	}
	w.mu.Unlock()
	for _, u := range stale {
		key, _ := cache.MetaNamespaceKeyFunc(u.obj)
		if _, exists, _ := w.informer.GetStore().GetByKey(key); exists {
			w.seen(key)
			continue
		}
		_, err := w.resource.Namespace(u.obj.GetNamespace()).Get(ctx, u.obj.GetName(), metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			continue
		}
		w.mu.Lock()
		current, ok := w.unseen[key]
		if ok && current.obj == u.obj {
			delete(w.unseen, key)
		}
		w.mu.Unlock()
		if !ok || current.obj != u.obj {
			continue // written again meanwhile
		}
		klog.FromContext(ctx).Info("An object fed wrote in a member is gone without its informer showing it; applying it again",
			"resource", w.gvr, "object", key)
		if w.notify != nil {
			w.notify(u.obj, true)
		}
	}
}

// Managed returns what fed knows of the managed objects of a resource, starting its
// informer once; its events go to the handlers.
func (mb *Member) Managed(gvr schema.GroupVersionResource) *Watched {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if w, ok := mb.informers[gvr]; ok {
		return w
	}
	w := watch(mb.managed.ForResource(gvr).Informer(), func(o metav1.Object, deleted bool) { mb.notify(mb.name, gvr, o, deleted) })
	w.resource, w.gvr = mb.Client.Resource(gvr), gvr
	mb.managed.Start(mb.ctx.Done())
	mb.informers[gvr] = w
	return w
}

// watch is what an informer knows, with the objects fed wrote; notify, if not nil, is
// told of every change.
func watch(inf cache.SharedIndexInformer, notify func(obj metav1.Object, deleted bool)) *Watched {
	_ = inf.SetTransform(trim.Compact) // an informer not started yet: never fails
	w := &Watched{informer: inf, written: mutation.New(inf), notify: notify, unseen: map[string]unseenCopy{}}
	event := func(obj any, deleted bool) {
		w.written.Observe(obj, deleted)
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			w.seen(key)
		}
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if o, err := meta.Accessor(obj); err == nil && notify != nil {
			notify(o, deleted)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { event(obj, false) },
		UpdateFunc: func(_, obj any) { event(obj, false) },
		DeleteFunc: func(obj any) { event(obj, true) },
	})
	return w
}
