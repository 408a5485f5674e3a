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

// Package searchcache decides what the search cache holds: from the ResourceRegistries
// and the Clusters, which kinds of which members (search/ingest's reflectors) feed it
// (search/store), and what each registry's status says of them. A source no registry
// wants any more, or of a cluster that left the fleet, is dropped with its objects; a
// member that cannot be reached keeps its objects, marked stale.
package searchcache

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	searchinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/search/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	searchlisters "github.com/fedhq/fed/apis/generated/listers/search/v1alpha1"
	"github.com/fedhq/fed/apis/native"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/search/ingest"
	"github.com/fedhq/fed/search/store"
)

// refresh is how often a registry's status is read again for its object counts, which
// change with every event and so are not reported as they change.
const refresh = 10 * time.Second

// sourcesKey is the queue's key for deciding the sources; every other key is a registry.
const sourcesKey = ""

// Controller keeps the search cache's sources and the registries' status.
type Controller struct {
	fed        versioned.Interface
	registries searchlisters.ResourceRegistryLister
	clusters   clusterlisters.ClusterLister
	synced     []cache.InformerSynced
	members    *members.Members
	configs    *clusterclient.Cache
	store      *store.Store
	queue      workqueue.TypedRateLimitingInterface[string]

	mu      sync.Mutex
	ctx     context.Context
	running map[store.Source]*running
	// collected: sources the store held from before the start that no registry wants
	// have been dropped (all but those whose want has not succeeded yet).
	collected bool
}

// running is a reflector at work.
type running struct {
	reflector *ingest.Reflector
	member    *members.Member
	cancel    context.CancelFunc
}

// Deps are what the search cache's controller works with.
type Deps struct {
	// Fed writes the registries' status.
	Fed        versioned.Interface
	Registries searchinformers.ResourceRegistryInformer
	Clusters   clusterinformers.ClusterInformer
	// Members and Configs reach the members whose objects the registries name.
	Members *members.Members
	Configs *clusterclient.Cache
	// Store is the search cache it fills.
	Store *store.Store
}

// NewController watches the registries and the clusters.
func NewController(d Deps) (*Controller, error) {
	registries, clusters := d.Registries, d.Clusters
	c := &Controller{
		fed:        d.Fed,
		registries: registries.Lister(),
		clusters:   clusters.Lister(),
		synced:     []cache.InformerSynced{registries.Informer().HasSynced, clusters.Informer().HasSynced},
		members:    d.Members,
		configs:    d.Configs,
		store:      d.Store,
		queue:      reconciler.NewQueue[string]("search-cache"),
		running:    map[store.Source]*running{},
	}
	onRegistry := func(obj any) {
		c.queue.Add(sourcesKey)
		if o, err := meta.Accessor(obj); err == nil {
			c.queue.Add(o.GetName())
		} else if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			c.queue.Add(tomb.Key)
		}
	}
	if _, err := registries.Informer().AddEventHandler(reconciler.SpecChanges(onRegistry)); err != nil {
		return nil, err
	}
	onCluster := func(any) { c.queue.Add(sourcesKey) }
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onCluster,
		UpdateFunc: func(old, cur any) {
			o, n := old.(*clusterv1alpha1.Cluster), cur.(*clusterv1alpha1.Cluster)
			if !apiequality.Semantic.DeepEqual(o.Labels, n.Labels) || !apiequality.Semantic.DeepEqual(o.Spec, n.Spec) || ready(o) != ready(n) {
				onCluster(cur)
			}
		},
		DeleteFunc: onCluster,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run keeps the cache's sources until ctx ends; the reflectors stop with it.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
	c.queue.Add(sourcesKey)
	reconciler.Run(ctx, c.queue, workers, c.synced, "Keeping the search cache", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, key string) error {
	if key == sourcesKey {
		return c.reconcileSources(ctx)
	}
	return c.reconcileStatus(ctx, key)
}

// ready tells whether a cluster's Ready condition is True.
func ready(cl *clusterv1alpha1.Cluster) bool {
	return meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
}

// want is one cache a registry asks for: a selector of one cluster, and the source that
// fills it (none, with why, when the cluster does not serve the kind).
type want struct {
	cluster  string
	selector searchv1alpha1.ResourceSelector
	source   store.Source
	err      error
	// gvk and metadataOnly: how the source reads the member.
	gvk          schema.GroupVersionKind
	namespaced   bool
	metadataOnly bool
}

// wants are the caches registry r asks for, one per cluster it selects and selector.
func (c *Controller) wants(r *searchv1alpha1.ResourceRegistry, clusters []*clusterv1alpha1.Cluster) []want {
	matcher, err := policy.NewAffinityMatcher(&r.Spec.TargetCluster)
	if err != nil {
		return nil
	}
	var out []want
	for _, cl := range clusters {
		if ok, err := matcher.Matches(cl); err != nil || !ok {
			continue
		}
		mb, mbErr := c.members.Get(cl.Name)
		for _, sel := range r.Spec.ResourceSelectors {
			out = append(out, wantOf(cl.Name, mb, mbErr, sel))
		}
	}
	return out
}

// wantOf is the cache a selector asks for in one cluster, reached through mb (or the error
// that keeps fed from reaching it).
func wantOf(cluster string, mb *members.Member, mbErr error, sel searchv1alpha1.ResourceSelector) want {
	w := want{cluster: cluster, selector: sel}
	gv, err := schema.ParseGroupVersion(sel.APIVersion)
	if err != nil {
		w.err = err
		return w
	}
	w.gvk = gv.WithKind(sel.Kind)
	if mbErr != nil {
		w.err = mbErr
		return w
	}
	mapping, err := mb.Mapping(w.gvk)
	if err != nil {
		w.err = fmt.Errorf("cluster %s does not serve %s: %w", cluster, w.gvk, err)
		return w
	}
	ns := sel.Namespace
	w.namespaced = mapping.Scope.Name() == meta.RESTScopeNameNamespace
	if !w.namespaced {
		ns = ""
	}
	w.source = store.Source{Cluster: cluster, Resource: mapping.Resource.GroupResource(), Namespace: ns}
	w.metadataOnly = searchv1alpha1.MetadataOnly(w.source.Resource.Group, w.source.Resource.Resource)
	return w
}

// desired merges the wants into sources: per cluster and kind, one source for all
// namespaces when any want asks for all of them, else one per namespace.
func desired(wants []want) map[store.Source]want {
	all := map[store.Source]bool{} // cluster and kind, Namespace ""
	for _, w := range wants {
		if w.err == nil && w.source.Namespace == "" {
			all[w.source] = true
		}
	}
	out := map[store.Source]want{}
	for _, w := range wants {
		if w.err != nil {
			continue
		}
		src := w.source
		if all[store.Source{Cluster: src.Cluster, Resource: src.Resource}] {
			src.Namespace = ""
		}
		if _, ok := out[src]; !ok {
			w.source = src
			out[src] = w
		}
	}
	return out
}

// covering is the source of des that holds src's objects, if one does.
func covering(des map[store.Source]want, src store.Source) (store.Source, bool) {
	if _, ok := des[src]; ok {
		return src, true
	}
	all := store.Source{Cluster: src.Cluster, Resource: src.Resource}
	_, ok := des[all]
	return all, ok
}

// reconcileSources starts the reflectors the registries want and stops (and drops) the
// others, then has every registry's status written again.
func (c *Controller) reconcileSources(ctx context.Context) error {
	registries, err := c.registries.List(labels.Everything())
	if err != nil {
		return err
	}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	var wants []want
	for _, r := range registries {
		wants = append(wants, c.wants(r, clusters)...)
	}
	// A want that failed (a member not reached, its discovery not read, a kind it does
	// not serve yet) is tried again: nothing else may change to bring it back (after a
	// restart, a member slow to answer its first discovery left its kinds uncached).
	failed := slices.ContainsFunc(wants, func(w want) bool { return w.err != nil })
	des := desired(wants)
	kinds := map[schema.GroupResource]store.Kind{}
	for src, w := range des {
		if _, ok := kinds[src.Resource]; !ok {
			kinds[src.Resource] = store.Kind{Version: w.gvk.Version, Kind: w.gvk.Kind, Namespaced: w.namespaced}
		}
	}
	c.store.SetKinds(kinds)
	for _, cl := range clusters {
		if ready(cl) {
			c.store.Annotate(cl.Name, nil)
		} else {
			c.store.Annotate(cl.Name, map[string]string{searchv1alpha1.AnnotationStale: "true"})
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	for src, run := range c.running {
		if _, ok := des[src]; ok {
			if mb, err := c.members.Get(src.Cluster); err == nil && mb == run.member {
				continue
			}
			// The member's credentials changed: read it with the new client.
			run.cancel()
			delete(c.running, src)
			continue
		}
		run.cancel()
		delete(c.running, src)
		if err := c.forget(ctx, des, src); err != nil {
			return err
		}
	}
	if !c.collected {
		held, err := c.store.Sources()
		if err != nil {
			return err
		}
		kept := false
		for _, src := range held {
			if _, ok := des[src]; ok {
				continue
			}
			if undecided(wants, src) {
				// Its want failed (after a restart, the member's discovery not read
				// yet): keep its objects and checkpoint, to resume rather than list.
				kept = true
				continue
			}
			if err := c.forget(ctx, des, src); err != nil {
				return err
			}
		}
		c.collected = !kept
	}
	for src, w := range des {
		if _, ok := c.running[src]; ok {
			continue
		}
		if err := c.start(ctx, src, w); err != nil {
			klog.FromContext(ctx).Error(err, "Starting a source of the search cache", "source", src.String())
		}
	}
	for _, r := range registries {
		c.queue.Add(r.Name)
	}
	if failed {
		return reconciler.RequeueAfter(sourcesRetry, nil)
	}
	return nil
}

// undecided tells whether a held source may still be wanted: a want of its cluster and
// group failed, so which source that want asks for is not known yet.
func undecided(wants []want, src store.Source) bool {
	return slices.ContainsFunc(wants, func(w want) bool {
		return w.err != nil && w.cluster == src.Cluster && w.gvk.Group == src.Resource.Group
	})
}

// sourcesRetry is how soon the sources are reconciled again after a want failed.
const sourcesRetry = 15 * time.Second

// forget removes a source that is no longer wanted: its objects too, unless another
// source holds them now.
func (c *Controller) forget(ctx context.Context, des map[store.Source]want, src store.Source) error {
	if holder, ok := covering(des, src); ok && holder != src {
		return c.store.Release(ctx, src)
	}
	return c.store.Drop(ctx, src)
}

// start runs the reflector of src.
func (c *Controller) start(ctx context.Context, src store.Source, w want) error {
	mb, err := c.members.Get(src.Cluster)
	if err != nil {
		return err
	}
	var client ingest.Client
	if w.metadataOnly {
		cfg, err := c.configs.Config(src.Cluster)
		if err != nil {
			return err
		}
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			return err
		}
		gvr := src.Resource.WithVersion(w.gvk.Version)
		client = ingest.MetadataClient(mc.Resource(gvr).Namespace(src.Namespace), w.gvk.GroupVersion().String(), w.gvk.Kind)
	} else {
		client = mb.Client.Resource(src.Resource.WithVersion(w.gvk.Version)).Namespace(src.Namespace)
	}
	if err := c.store.Start(ctx, src); err != nil {
		return err
	}
	converter := &ingest.Converter{
		Cluster: src.Cluster, Resource: src.Resource,
		APIVersion: w.gvk.GroupVersion().String(), Kind: w.gvk.Kind,
		Fields:       native.FieldLabels(src.Resource),
		MetadataOnly: w.metadataOnly,
	}
	rctx, cancel := context.WithCancel(c.ctx)
	r := ingest.NewReflector(c.store, src, client, converter, c.enqueueRegistries)
	c.running[src] = &running{reflector: r, member: mb, cancel: cancel}
	go r.Run(rctx)
	return nil
}

// enqueueRegistries has every registry's status written again: a source's state changed.
func (c *Controller) enqueueRegistries() {
	registries, err := c.registries.List(labels.Everything())
	if err != nil {
		return
	}
	for _, r := range registries {
		c.queue.Add(r.Name)
	}
}

// reconcileStatus writes a registry's status: per cluster and selector, whether its cache
// is synced, how many objects it holds, whether they are stale; and its Ready condition.
func (c *Controller) reconcileStatus(ctx context.Context, name string) error {
	r, err := c.registries.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	byName := map[string]*clusterv1alpha1.Cluster{}
	for _, cl := range clusters {
		byName[cl.Name] = cl
	}
	wants := c.wants(r, clusters)
	des := desired(wants)
	status := searchv1alpha1.ResourceRegistryStatus{Conditions: slices.Clone(r.Status.Conditions)}
	var notSynced, stale []string
	c.mu.Lock()
	for _, w := range wants {
		cs := searchv1alpha1.CacheStatus{Cluster: w.cluster, APIVersion: w.selector.APIVersion, Kind: w.selector.Kind, Namespace: w.selector.Namespace}
		switch {
		case w.err != nil:
			cs.Message = w.err.Error()
		default:
			holder, _ := covering(des, w.source)
			run, ok := c.running[holder]
			if !ok {
				cs.Message = "starting"
				break
			}
			st := run.reflector.Status()
			cs.Synced = st.Synced
			if !st.LastSync.IsZero() {
				cs.LastSyncTime = &metav1.Time{Time: st.LastSync.Truncate(time.Second)}
			}
			if holder == w.source {
				cs.Objects = max(c.store.Count(holder), 0)
			} else {
				cs.Objects = c.store.CountScan(w.source)
			}
			if st.Err != nil {
				cs.Message = st.Err.Error()
			}
		}
		if cl := byName[w.cluster]; cl != nil && !ready(cl) {
			cs.Stale = true
			cs.Message = strings.TrimSpace(fmt.Sprintf("cluster %s is not Ready: its objects are as the cache last saw them. %s", w.cluster, cs.Message))
		}
		if !cs.Synced {
			notSynced = append(notSynced, cacheName(cs))
		}
		if cs.Stale {
			stale = append(stale, cacheName(cs))
		}
		status.Caches = append(status.Caches, cs)
	}
	c.mu.Unlock()
	sort.Slice(status.Caches, func(i, j int) bool { return cacheName(status.Caches[i]) < cacheName(status.Caches[j]) })
	cond := metav1.Condition{Type: searchv1alpha1.ResourceRegistryConditionReady, Status: metav1.ConditionTrue, Reason: "Synced",
		Message: fmt.Sprintf("%d caches synced", len(status.Caches)), ObservedGeneration: r.Generation}
	switch {
	case len(status.Caches) == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoClusters", "no cluster of the fleet matches targetCluster"
	case len(stale) > 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "ClusterNotReady", "stale: "+strings.Join(stale, ", ")
	case len(notSynced) > 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NotSynced", "not synced: "+strings.Join(notSynced, ", ")
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	if !apiequality.Semantic.DeepEqual(status, r.Status) {
		r = r.DeepCopy()
		r.Status = status
		if _, err := c.fed.SearchV1alpha1().ResourceRegistries().UpdateStatus(ctx, r, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return reconciler.RequeueAfter(refresh, nil)
}

func cacheName(cs searchv1alpha1.CacheStatus) string {
	n := cs.Cluster + "/" + cs.Kind + "." + cs.APIVersion
	if cs.Namespace != "" {
		n += "/" + cs.Namespace
	}
	return n
}
