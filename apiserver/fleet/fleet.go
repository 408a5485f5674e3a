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

// Package fleet serves the fleet API: under FleetPath of federation.fedhq.io, a whole
// Kubernetes API whose objects are templates. Every kind the host cluster serves, every
// CustomResourceDefinition applied to the fleet and fed's own groups are there; templates
// are stored by fed-apiserver (as unstructured objects, in its storage under "fleet/") and
// never created in the host. Native templates are validated by the host with a server-side
// dry run, so kubectl users get the host's own errors.
package fleet

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	registryrest "k8s.io/apiserver/pkg/registry/rest"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apiserver/scheme"
	badgeroptions "github.com/fedhq/fed/apiserver/storage/badger/options"
)

// Path is where the fleet API is served.
const Path = federationv1alpha1.FleetPath

// storagePrefix keeps templates apart from fed's own objects in storage.
const storagePrefix = "fleet/"

// HostValidator checks a native template with the host's rules.
type HostValidator interface {
	// Validate dry-runs obj's creation in the host; dryRun is what the host answered (nil
	// when it did not accept or was not asked).
	Validate(ctx context.Context, gvr schema.GroupVersionResource, namespaced bool, obj *unstructured.Unstructured, fieldValidation string) (warnings []string, dryRun *unstructured.Unstructured, err error)
}

// Config is what the fleet needs from fed-apiserver.
type Config struct {
	// RESTOptionsGetter is fed-apiserver's storage; the fleet stores templates in it under
	// their own prefix, as unstructured JSON.
	RESTOptionsGetter generic.RESTOptionsGetter
	// Host reaches the host cluster as fed-apiserver: its discovery says which kinds the
	// fleet serves, its OpenAPI gives their schemas.
	Host *rest.Config
	// HostValidator validates native templates; nil skips it.
	HostValidator HostValidator
	// Admission is more admission of the fleet's requests, after its own namespace
	// lifecycle (the host's quotas, what agents may record); nil adds none.
	Admission admission.ValidationInterface
	// Fed is fed-apiserver's own API handler (no filters), serving fed's groups.
	Fed http.Handler
	// FedGroups are the groups Fed serves.
	FedGroups []string

	Authorizer          authorizer.Authorizer
	MaxRequestBodyBytes int64
	MinRequestTimeout   time.Duration
	// RefreshInterval is how often the fleet asks the host which kinds it serves.
	RefreshInterval time.Duration
	// Members are the member clusters, whose nodes the fleet shows; nil shows none.
	Members Members
	// EventTTL is how long the fleet keeps an event after its last change, as
	// kube-apiserver's --event-ttl; 0 keeps events until they are deleted.
	EventTTL time.Duration
}

// Fleet is the handler of the fleet API.
type Fleet struct {
	cfg       Config
	fedGroups map[string]bool
	admit     admission.Interface

	// hostDiscovery asks the host for its kinds and OpenAPI documents.
	hostDiscovery *discovery.DiscoveryClient

	mu       sync.Mutex // serialises rebuilds of the served set
	storages map[string]*restStorage
	host     atomic.Pointer[hostState]
	set      atomic.Pointer[servedSet]
	ready    chan struct{}
	once     sync.Once
	// emptied are the deleted namespaces the finalizer's last round found empty (its
	// goroutine's alone).
	emptied map[types.UID]bool
}

// New returns the fleet; it serves once Start has read the host's kinds.
func New(cfg Config) (*Fleet, error) {
	if cfg.RefreshInterval == 0 {
		cfg.RefreshInterval = time.Minute
	}
	f := &Fleet{cfg: cfg, fedGroups: map[string]bool{}, storages: map[string]*restStorage{}, ready: make(chan struct{})}
	for _, g := range cfg.FedGroups {
		f.fedGroups[g] = true
	}
	f.admit = admission.NewChainHandler(&namespaceLifecycle{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete), fleet: f})
	if cfg.Admission != nil {
		f.admit = admission.NewChainHandler(f.admit, cfg.Admission)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("the host's discovery: %w", err)
	}
	f.hostDiscovery = dc
	return f, nil
}

// Start reads the host's kinds, creates the fleet's system namespaces and keeps the
// served set and the namespace finalizer running until ctx ends.
func (f *Fleet) Start(ctx context.Context) error {
	if err := f.refresh(ctx); err != nil {
		return err
	}
	if err := f.ensureSystemNamespaces(ctx); err != nil {
		return err
	}
	go f.refreshLoop(ctx)
	go f.runNamespaceFinalizer(ctx)
	return nil
}

func (f *Fleet) refreshLoop(ctx context.Context) {
	t := time.NewTicker(f.cfg.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.refresh(ctx); err != nil {
				klog.ErrorS(err, "Refreshing the fleet's kinds from the host")
			}
		}
	}
}

// refresh rebuilds the served set from the host's kinds and the fleet's CRDs. Stores of
// resources that did not change are kept, with their watch caches.
func (f *Fleet) refresh(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	host, err := f.readHost(ctx)
	if err != nil {
		if f.host.Load() == nil {
			return err
		}
		klog.ErrorS(err, "Reading the host's kinds; serving the kinds read before")
		host = f.host.Load()
	}
	f.host.Store(host)
	// The CRDs are read from the store the first install makes; only the second, complete
	// one lets go of what is no longer served. The first keeps serving the CRDs' kinds
	// served now, so that no request finds one missing between the two.
	if err := f.install(append(append([]*resource{}, host.resources...), f.servedCRDKinds()...), false); err != nil {
		return err
	}
	return f.install(append(append([]*resource{}, host.resources...), f.crdResources(ctx)...), true)
}

// servedCRDKinds are the kinds of the fleet's CRDs the served set has now.
func (f *Fleet) servedCRDKinds() []*resource {
	set := f.set.Load()
	if set == nil {
		return nil
	}
	var out []*resource
	for _, s := range set.order {
		if s.r.fromCRD {
			out = append(out, s.r)
		}
	}
	return out
}

// install builds the served set of resources. With prune, the stores of resources no
// longer served are closed, and the objects of kinds whose CRD is gone deleted.
func (f *Fleet) install(resources []*resource, prune bool) error {
	set := &servedSet{resources: map[schema.GroupVersionResource]*served{}, fedGroups: f.fedGroups}
	keep := map[string]bool{}
	for _, r := range resources {
		if _, dup := set.resources[r.gvr]; dup {
			continue
		}
		if r.memberView {
			s := &served{r: r}
			set.resources[r.gvr] = s
			set.order = append(set.order, s)
			continue
		}
		st, ok := f.storages[r.key()]
		if !ok {
			var err error
			if isEvents(r.gvr.GroupResource()) {
				r.ttl = f.cfg.EventTTL
			}
			st, err = newStorage(r, optsGetter{f.cfg.RESTOptionsGetter})
			if err != nil {
				return fmt.Errorf("storage of %s: %w", r.gvr, err)
			}
			f.storages[r.key()] = st
		} else {
			r = st.main.r // the same definition
		}
		keep[r.key()] = true
		tc := f.host.Load().typeConverter
		if r.typeConverter != nil {
			tc = r.typeConverter
		}
		s, err := newServed(r, st, tc, scopeConfig{authorizer: f.cfg.Authorizer, maxRequestBodyBytes: f.cfg.MaxRequestBodyBytes})
		if err != nil {
			return err
		}
		set.resources[r.gvr] = s
		set.order = append(set.order, s)
	}
	served := map[schema.GroupResource]bool{}
	for gvr := range set.resources {
		served[gvr.GroupResource()] = true
	}
	for key, st := range f.storages {
		if keep[key] || !prune {
			continue
		}
		if r := st.main.r; r.fromCRD && !served[r.gvr.GroupResource()] {
			// Its CRD is gone: so are its objects, as in a cluster.
			if err := deleteAll(st.main); err != nil {
				klog.ErrorS(err, "Deleting the objects of a deleted CustomResourceDefinition", "resource", r.gvr.GroupResource())
			}
		}
		st.destroy()
		delete(f.storages, key)
	}
	set.fedDiscovery, set.fedAggregated = f.fedDiscovery()
	set.buildDiscovery()
	f.set.Store(set)
	f.once.Do(func() { close(f.ready) })
	return nil
}

// deleteAll deletes every object of a store, namespace by namespace.
func deleteAll(t *templateREST) error {
	list, err := t.Store.List(request.WithNamespace(systemContext, ""), &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	namespaces := map[string]bool{}
	for _, item := range list.(*unstructured.UnstructuredList).Items {
		namespaces[item.GetNamespace()] = true
	}
	for ns := range namespaces {
		if _, err := t.Store.DeleteCollection(request.WithNamespace(systemContext, ns), registryrest.ValidateAllObjectFunc,
			&metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// optsGetter stores templates as unstructured JSON under the fleet's prefix, served
// straight from storage (withoutWatchCache).
type optsGetter struct{ delegate generic.RESTOptionsGetter }

func (g optsGetter) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	o, err := withoutWatchCache(g.delegate).GetRESTOptions(gr, example)
	if err != nil {
		return o, err
	}
	cfg := *o.StorageConfig
	cfg.Codec = unstructured.UnstructuredJSONScheme
	o.StorageConfig = &cfg
	o.ResourcePrefix = storagePrefix + gr.String()
	// No garbage collector runs over templates: a foreground or orphan deletion must not
	// wait for one.
	o.EnableGarbageCollection = false
	return o, nil
}

// ServeHTTP serves a request whose path has had Path removed; its RequestInfo describes
// that inner path (see RequestInfoResolver).
func (f *Fleet) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok {
		responsewriters.InternalError(w, req, fmt.Errorf("no request info"))
		return
	}
	select {
	case <-f.ready:
	case <-req.Context().Done():
		return
	}
	set := f.set.Load()
	if !info.IsResourceRequest {
		f.serveNonResource(w, req, set)
		return
	}
	if f.fedGroups[info.APIGroup] {
		f.cfg.Fed.ServeHTTP(w, req)
		return
	}
	gvr := schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
	if f.serveReview(w, req, info, gvr) {
		return
	}
	if s := set.resources[gvr]; s != nil {
		if s.r.memberView {
			f.serveMemberNodes(w, req, info)
			return
		}
		s.serveResource(w, req, info, f.admit, f.cfg.MinRequestTimeout)
		return
	}
	err := apierrors.NewNotFound(gvr.GroupResource(), info.Name)
	err.ErrStatus.Message = fmt.Sprintf("the fleet serves no resource %q in %s (the host cluster does not serve it and no CustomResourceDefinition applied to the fleet defines it; `kubectl api-resources` lists what the fleet serves)",
		info.Resource, gvr.GroupVersion())
	if err.ErrStatus.Details != nil {
		err.ErrStatus.Details.Name = info.Name
	}
	responsewriters.ErrorNegotiated(err, scheme.Codecs, schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}, w, req)
}

func (f *Fleet) serveNonResource(w http.ResponseWriter, req *http.Request, set *servedSet) {
	p := strings.TrimSuffix(req.URL.Path, "/")
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	switch {
	case p == "/api":
		set.legacyRoot.ServeHTTP(w, req)
		return
	case p == "/api/v1":
		if h := set.versions[schema.GroupVersion{Version: "v1"}]; h != nil {
			h.ServeHTTP(w, req)
			return
		}
	case p == "/apis":
		set.root.ServeHTTP(w, req)
		return
	case parts[0] == "apis" && len(parts) <= 3:
		if f.fedGroups[parts[1]] {
			f.cfg.Fed.ServeHTTP(w, req)
			return
		}
		if len(parts) == 2 {
			if h := set.groups[parts[1]]; h != nil {
				h.ServeHTTP(w, req)
				return
			}
		} else if h := set.versions[schema.GroupVersion{Group: parts[1], Version: parts[2]}]; h != nil {
			h.ServeHTTP(w, req)
			return
		}
	case p == "/version":
		// The host's version, as the fleet serves the host's API (kubectl version, Helm's
		// .Capabilities.KubeVersion, charts' kubeVersion); fed-apiserver's own with
		// ?server=fed-apiserver (kubectl fed version).
		if req.URL.Query().Get("server") == federationv1alpha1.FleetVersionOfFed {
			f.cfg.Fed.ServeHTTP(w, req)
			return
		}
		if h := f.host.Load(); h != nil && h.version != nil {
			responsewriters.WriteRawJSON(http.StatusOK, h.version, w)
			return
		}
	case p == "/healthz" || p == "/livez" || p == "/readyz":
		// The fleet serves once it has read the host's kinds (ServeHTTP waits for that);
		// fed-apiserver's own checks are at its root.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte("ok"))
		return
	case p == "/openapi/v2" || parts[0] == "openapi" && len(parts) > 1 && parts[1] == "v3":
		f.serveOpenAPI(w, req, set)
		return
	}
	responsewriters.ErrorNegotiated(apierrors.NewNotFound(schema.GroupResource{}, ""), scheme.Codecs, schema.GroupVersion{}, w, req)
}

// newUnstructured returns an empty object of a kind.
func newUnstructured(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// withoutWatchCache returns fed-apiserver's storage options with no watch cache. Templates
// have one watcher each, fed's own informer of their kind, so a watch cache would decode
// them once as the storage's watch does, and keep every template as unstructured maps
// besides, with its versions of the last 75 seconds. With 10,000 Deployments propagated,
// the watch caches of templates, Works and bindings held 470 of fed-apiserver's 877 MiB of
// live heap. A getter of another kind is returned as it is.
func withoutWatchCache(g generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	switch g := g.(type) {
	case *badgeroptions.RESTOptionsGetter:
		uncached := *g
		uncached.EnableWatchCache = false
		return &uncached
	case *genericoptions.StorageFactoryRestOptionsFactory:
		uncached := *g
		uncached.Options.EnableWatchCache = false
		return &uncached
	}
	return g
}
