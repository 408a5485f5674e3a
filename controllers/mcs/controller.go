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

// Package mcs imports multi-cluster services: for a Service exported from some clusters
// (its ServiceExport's, or its MultiClusterService's providers) and imported into others
// (its ServiceImport's, or its MultiClusterService's consumers), it writes into each
// consumer a derived-<name> Service and, for each provider, an EndpointSlice with that
// provider's endpoints; and for a MultiClusterIngress, an Ingress into each cluster that
// imports a service it names, whose backends are the derived Services there. All as Works
// that execution applies. It also installs the MCS API's CRDs in the fleet.
package mcs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	mcscrd "sigs.k8s.io/mcs-api/config/crd"
	mcsv1alpha1 "sigs.k8s.io/mcs-api/pkg/apis/v1alpha1"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/controllers/internal/works"
)

// The kinds of the MCS API fed reads.
var (
	serviceExportKind = mcsv1alpha1.SchemeGroupVersion.WithKind("ServiceExport")
	serviceImportKind = mcsv1alpha1.SchemeGroupVersion.WithKind("ServiceImport")
	serviceImports    = mcsv1alpha1.SchemeGroupVersion.WithResource("serviceimports")
)

// sliceDelay gathers the changes of a provider's slices before the consumers' are written.
const sliceDelay = 50 * time.Millisecond

// Controller keeps the imports of every exported service.
type Controller struct {
	fed       versioned.Interface
	templates *templates.Templates
	bindings  fedlisters.ResourceBindingLister
	works     *works.Access
	members   *members.Members
	clusters  clusterlisters.ClusterLister
	services  fedlisters.MultiClusterServiceLister
	ingresses fedlisters.MultiClusterIngressLister
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[key]
}

// Deps are what the multi-cluster services controller works with.
type Deps struct {
	// Fed writes the status of MultiClusterServices and MultiClusterIngresses.
	Fed       versioned.Interface
	Templates *templates.Templates
	// Bindings tell where ServiceExport and ServiceImport templates (and the Services of a
	// MultiClusterService) are placed.
	Bindings fedinformers.ResourceBindingInformer
	// Works are where it writes what it imports into members.
	Works *works.Access
	// Members are read for the providers' EndpointSlices.
	Members  *members.Members
	Clusters clusterinformers.ClusterInformer
	// The MultiClusterServices and MultiClusterIngresses to act on.
	Services  fedinformers.MultiClusterServiceInformer
	Ingresses fedinformers.MultiClusterIngressInformer
}

// NewController imports the services that MultiClusterServices, or ServiceExport and
// ServiceImport templates, export and import, with the providers' EndpointSlices, and
// writes the MultiClusterIngresses into the clusters that import their services, as Works.
func NewController(d Deps) (*Controller, error) {
	tmpls, rbs, wa, mbs, clusters, mcss, mcis := d.Templates, d.Bindings, d.Works, d.Members, d.Clusters, d.Services, d.Ingresses
	c := &Controller{
		fed:       d.Fed,
		templates: tmpls,
		bindings:  rbs.Lister(),
		works:     wa,
		members:   mbs,
		clusters:  clusters.Lister(),
		services:  mcss.Lister(),
		ingresses: mcis.Lister(),
		synced: []cache.InformerSynced{rbs.Informer().HasSynced, wa.Informer().HasSynced, clusters.Informer().HasSynced,
			mcss.Informer().HasSynced, mcis.Informer().HasSynced},
		queue: reconciler.NewQueue[key]("mcs"),
	}
	bindingChanged := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		b, ok := obj.(*federationv1alpha1.ResourceBinding)
		if !ok {
			return
		}
		ref := types.NamespacedName{Namespace: b.Spec.Resource.Namespace, Name: b.Spec.Resource.Name}
		// A ServiceExport or ServiceImport placed; or a Service placed whose
		// MultiClusterService takes its providers from where it runs.
		if isMCS(b.Spec.Resource.APIVersion, b.Spec.Resource.Kind) || b.Spec.Resource.APIVersion == "v1" && b.Spec.Resource.Kind == "Service" && c.hasService(ref) {
			c.queue.Add(key{NamespacedName: ref})
		}
	}
	if _, err := rbs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    bindingChanged,
		UpdateFunc: func(_, obj any) { bindingChanged(obj) },
		DeleteFunc: bindingChanged,
	}); err != nil {
		return nil, err
	}
	tmpls.AddHandler(func(_ schema.GroupVersionResource, obj *unstructured.Unstructured) {
		if obj.GroupVersionKind() == serviceImportKind {
			c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}})
		}
	})
	changed := func(ingress bool) cache.ResourceEventHandlerFuncs {
		add := func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if o, err := meta.Accessor(obj); err == nil {
				c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}, Ingress: ingress})
			}
		}
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }, DeleteFunc: add}
	}
	if _, err := mcss.Informer().AddEventHandler(changed(false)); err != nil {
		return nil, err
	}
	if _, err := mcis.Informer().AddEventHandler(changed(true)); err != nil {
		return nil, err
	}
	// A cluster joined, left, was joined again with other credentials (its member's
	// informers start afresh), or its remedy actions changed: every imported service is
	// looked at again.
	allServices := func(any) {
		for _, obj := range wa.Informer().GetStore().List() {
			if w, ok := obj.(*federationv1alpha1.Work); ok {
				c.owner(w)
			}
		}
		list, _ := c.services.List(labels.Everything())
		for _, m := range list {
			c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: m.Namespace, Name: m.Name}})
		}
	}
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: allServices,
		UpdateFunc: func(old, obj any) {
			o, ok1 := old.(*clusterv1alpha1.Cluster)
			n, ok2 := obj.(*clusterv1alpha1.Cluster)
			if ok1 && ok2 && (o.Generation != n.Generation || o.ResourceVersion != n.ResourceVersion &&
				(!equalReady(o, n) || !slices.Equal(o.Status.RemedyActions, n.Status.RemedyActions))) {
				allServices(obj)
			}
		},
		DeleteFunc: allServices,
	}); err != nil {
		return nil, err
	}
	// A Work of fed's imports changed or deleted by someone else is put back.
	workChanged := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if w, ok := obj.(*federationv1alpha1.Work); ok {
			c.owner(w)
		}
	}
	if _, err := wa.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(old, obj any) {
			if o, ok := old.(*federationv1alpha1.Work); ok && obj.(*federationv1alpha1.Work).Generation != o.Generation {
				workChanged(obj)
			}
		},
		DeleteFunc: workChanged,
	}); err != nil {
		return nil, err
	}
	// A provider's endpoints changed: only an exported service is looked at again.
	mbs.AddSliceHandler(func(_ string, _ schema.GroupVersionResource, obj metav1.Object, _ bool) {
		name := obj.GetLabels()[discoveryv1.LabelServiceName]
		if name == "" {
			return
		}
		ref := types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}
		if _, err := c.bindings.ResourceBindings(ref.Namespace).Get(federationv1alpha1.BindingName(serviceExportKind.Kind, name)); err == nil || c.hasService(ref) {
			// A rollout changes a slice many times: the changes of a moment are one write.
			c.queue.AddAfter(key{NamespacedName: ref}, sliceDelay)
		}
	})
	return c, nil
}

// owner queues what a Work of fed's imports belongs to.
func (c *Controller) owner(w *federationv1alpha1.Work) {
	for annotation, ingress := range map[string]bool{federationv1alpha1.AnnotationMultiClusterService: false, federationv1alpha1.AnnotationMultiClusterIngress: true} {
		if ns, name, ok := strings.Cut(w.Annotations[annotation], "/"); ok {
			c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}, Ingress: ingress})
		}
	}
}

// equalReady says whether two versions of a Cluster are equally Ready.
func equalReady(a, b *clusterv1alpha1.Cluster) bool {
	ra, rb := meta.FindStatusCondition(a.Status.Conditions, clusterv1alpha1.ClusterConditionReady), meta.FindStatusCondition(b.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	return (ra == nil) == (rb == nil) && (ra == nil || ra.Status == rb.Status)
}

func isMCS(apiVersion, kind string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && gv.Group == mcsv1alpha1.GroupName && (kind == serviceExportKind.Kind || kind == serviceImportKind.Kind)
}

// Run installs the MCS API's CRDs in the fleet, and imports services with workers until
// ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	go c.installCRDs(ctx)
	reconciler.Run(ctx, c.queue, workers, c.synced, "Importing a multi-cluster service", c.reconcile)
}

// installCRDs makes the ServiceExport and ServiceImport CRDs of sigs.k8s.io/mcs-api in
// the fleet when it has none (a user's own stays as it is), trying again until the fleet
// answers.
func (c *Controller) installCRDs(ctx context.Context) {
	for _, data := range [][]byte{mcscrd.ServiceExportCRD, mcscrd.ServiceImportCRD} {
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &crd.Object); err != nil {
			klog.FromContext(ctx).Error(err, "The MCS API's CRD cannot be read")
			continue
		}
		_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := c.templates.Client.Resource(members.CRDsResource).Create(ctx, crd, metav1.CreateOptions{FieldManager: federationv1alpha1.FieldManager})
			if err == nil || apierrors.IsAlreadyExists(err) {
				return true, nil
			}
			klog.FromContext(ctx).V(2).Info("Installing the MCS API's CRDs in the fleet", "crd", crd.GetName(), "err", err)
			return false, nil
		})
	}
}

// key names what the controller keeps: an exported service (Ingress false) or a
// MultiClusterIngress.
type key struct {
	types.NamespacedName
	Ingress bool
}

func (c *Controller) reconcile(ctx context.Context, k key) error {
	if k.Ingress {
		return c.reconcileIngress(ctx, k.NamespacedName)
	}
	return c.reconcileService(ctx, k.NamespacedName)
}

// imported is how a service is imported: from which clusters into which, with which
// Service, and where the outcome is told.
type imported struct {
	providers, consumers []string
	// service is the derived Service of the consumers.
	service *unstructured.Unstructured
	// ports are the ports of the consumers' EndpointSlices; nil: the providers' own.
	ports []discoveryv1.EndpointPort
	// report records the providers whose endpoints are imported and those withheld
	// under TrafficControl, or why the service cannot be imported (invalid).
	report func(ctx context.Context, providers, withheld []string, invalid string) error
	// invalid says why the service cannot be imported; nothing is written then.
	invalid string
}

// reconcileService makes the Works that import one service what its MultiClusterService,
// or else its ServiceExport and ServiceImport, say. A provider whose endpoints fed cannot
// read yet (its member not reached, its informer not synced) keeps the Works it had, and
// the service is looked at again later.
func (c *Controller) reconcileService(ctx context.Context, k types.NamespacedName) error {
	imp, err := c.importOf(k)
	if err != nil {
		return err
	}
	if imp.invalid != "" {
		if imp.report != nil {
			return imp.report(ctx, nil, nil, imp.invalid)
		}
		return nil
	}
	have := c.works.Owned(federationv1alpha1.AnnotationMultiClusterService, k.String())
	want := map[types.NamespacedName]federationv1alpha1.WorkSpec{}
	var exporting []string
	unread := map[string]bool{}
	var withheld []string
	if len(imp.consumers) > 0 {
		endpoints := map[string][]*unstructured.Unstructured{}
		for _, p := range imp.providers {
			slices, known, err := c.providerSlices(p, k, imp.ports)
			if err != nil {
				return err
			}
			switch {
			case !known:
				unread[p] = true
			case len(slices) > 0:
				endpoints[p] = slices
			}
		}
		// A provider under TrafficControl is left out, its endpoints taken from the
		// consumers, while another provider has endpoints (or cannot be read: as far as fed
		// knows).
		serves := func(p string) bool { return unread[p] || len(endpoints[p]) > 0 }
		var providers []string
		providers, withheld = c.trafficControlled(imp.providers, serves)
		for _, p := range providers {
			if serves(p) {
				exporting = append(exporting, p)
			}
		}
		service, err := works.Spec(imp.service)
		if err != nil {
			return err
		}
		for _, consumer := range imp.consumers {
			ns := federationv1alpha1.ExecutionNamespace(consumer)
			want[types.NamespacedName{Namespace: ns, Name: workName(k, "derived")}] = service
			for _, p := range providers {
				if unread[p] {
					// Not read: what the consumer has of it stays.
					for key, w := range have {
						if key.Namespace == ns && isSliceWork(key.Name, k, p) {
							want[key] = w.Spec
						}
					}
					continue
				}
				for i, slice := range endpoints[p] {
					spec, err := works.Spec(slice)
					if err != nil {
						return err
					}
					want[types.NamespacedName{Namespace: ns, Name: workName(k, sliceWork(p, i))}] = spec
				}
			}
		}
	}
	if err := c.works.Sync(ctx, federationv1alpha1.AnnotationMultiClusterService, k.String(), have, want); err != nil {
		return err
	}
	c.ingressesOf(k) // their consumers may have changed
	if imp.report != nil {
		if err := imp.report(ctx, exporting, withheld, ""); err != nil {
			return err
		}
	}
	if len(unread) > 0 {
		return reconciler.RequeueAfter(10*time.Second, nil)
	}
	return nil
}

// isSliceWork says whether a Work's name is one sliceWork gives a provider's slices of
// the service k.
func isSliceWork(name string, k types.NamespacedName, provider string) bool {
	rest, ok := strings.CutPrefix(name, workName(k, "from-"+provider))
	if !ok || rest == "" {
		return ok
	}
	n, ok := strings.CutPrefix(rest, "-")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// sliceWork names the Work of a provider's i-th EndpointSlice.
func sliceWork(provider string, i int) string {
	if i == 0 {
		return "from-" + provider
	}
	return fmt.Sprintf("from-%s-%d", provider, i)
}

// importOf is how a service is imported: a MultiClusterService of its name says, or else
// the placements of its ServiceExport (providers) and ServiceImport (consumers).
func (c *Controller) importOf(k types.NamespacedName) (*imported, error) {
	if mcs, err := c.services.MultiClusterServices(k.Namespace).Get(k.Name); err == nil && mcs.DeletionTimestamp == nil {
		return c.multiClusterService(mcs)
	} else if err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	imp := &imported{providers: c.placed(k, serviceExportKind.Kind), consumers: c.placed(k, serviceImportKind.Kind)}
	if len(imp.consumers) == 0 {
		return imp, nil
	}
	tmpl, si, err := c.serviceImport(k)
	if err != nil || si == nil {
		imp.consumers = nil
		return imp, err
	}
	imp.service = derivedService(k, si)
	imp.report = func(ctx context.Context, providers, withheld []string, invalid string) error {
		return c.writeStatus(ctx, tmpl, providers, withheld, invalid)
	}
	if errs := validation.IsDNS1035Label(federationv1alpha1.DerivedServiceName(k.Name)); len(errs) > 0 {
		imp.invalid = fmt.Sprintf("the Service %s cannot be derived from it: %s", federationv1alpha1.DerivedServiceName(k.Name), strings.Join(errs, "; "))
	}
	return imp, nil
}

// placed are the clusters the binding of the service's ServiceExport or ServiceImport
// template places it in.
func (c *Controller) placed(k types.NamespacedName, kind string) []string {
	b, err := c.bindings.ResourceBindings(k.Namespace).Get(federationv1alpha1.BindingName(kind, k.Name))
	if err != nil || b.DeletionTimestamp != nil {
		return nil
	}
	var out []string
	for _, t := range b.Spec.Clusters {
		out = append(out, t.Name)
	}
	return c.existing(out)
}

// trafficControlled splits clusters into those fed sends traffic to and those it keeps
// traffic from: a cluster whose status holds the remedy action TrafficControl is kept
// from while one of clusters that is not under it serves (traffic to a degraded cluster is
// better than none).
func (c *Controller) trafficControlled(clusters []string, serves func(string) bool) (kept, withheld []string) {
	for _, name := range clusters {
		if cl, err := c.clusters.Get(name); err == nil && slices.Contains(cl.Status.RemedyActions, string(clusterv1alpha1.TrafficControl)) {
			withheld = append(withheld, name)
		} else {
			kept = append(kept, name)
		}
	}
	if !slices.ContainsFunc(kept, serves) {
		return clusters, nil
	}
	return kept, withheld
}

// existing are the clusters of names that are in the fleet, sorted: a cluster that left
// neither provides nor consumes.
func (c *Controller) existing(names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := c.clusters.Get(n); err == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// serviceImport reads the fleet's ServiceImport template of a service; nil when there is
// none.
func (c *Controller) serviceImport(k types.NamespacedName) (*unstructured.Unstructured, *mcsv1alpha1.ServiceImport, error) {
	// fed reads the MCS API's v1alpha1, the seeds' version; a template of another version
	// is not imported (watching v1alpha1 beside it would show the detector each template
	// twice).
	if b, err := c.bindings.ResourceBindings(k.Namespace).Get(federationv1alpha1.BindingName(serviceImportKind.Kind, k.Name)); err != nil ||
		b.Spec.Resource.APIVersion != serviceImportKind.GroupVersion().String() {
		return nil, nil, nil
	}
	gvr, _, err := c.templates.Resource(serviceImportKind.GroupVersion().String(), serviceImportKind.Kind)
	if meta.IsNoMatchError(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	c.templates.Watch(gvr)
	tmpl, err := c.templates.Get(gvr, k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	imp := &mcsv1alpha1.ServiceImport{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl.Object, imp); err != nil {
		return nil, nil, fmt.Errorf("ServiceImport %s: %w", k, err)
	}
	return tmpl, imp, nil
}

// maxEndpoints is how many endpoints one EndpointSlice may hold.
const maxEndpoints = 1000

// providerSlices are the EndpointSlices that carry a provider's endpoints of a service
// into a consumer: the endpoints of every slice the provider's endpointslice controller
// made for the Service (pod and node references dropped), grouped as it groups them, by
// address type and ports (ports, when not nil, replace the providers' own), at most
// maxEndpoints a slice, in a stable order. known is false when fed cannot read the
// provider's slices yet (its member not reached, its informer not synced); none when the
// provider has no slice of the Service.
func (c *Controller) providerSlices(provider string, k types.NamespacedName, ports []discoveryv1.EndpointPort) (_ []*unstructured.Unstructured, known bool, _ error) {
	mb, err := c.members.Get(provider)
	if err != nil {
		return nil, false, nil
	}
	watched := mb.ServiceSlices()
	if !watched.Synced() {
		return nil, false, nil
	}
	type group struct {
		addressType discoveryv1.AddressType
		ports       []discoveryv1.EndpointPort
		endpoints   []discoveryv1.Endpoint
	}
	groups := map[string]*group{}
	selector := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: k.Name})
	for _, u := range watched.List(k.Namespace, selector) {
		var s discoveryv1.EndpointSlice
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &s); err != nil {
			continue
		}
		p := s.Ports
		if ports != nil {
			p = ports
		}
		raw, _ := json.Marshal(p)
		id := string(s.AddressType) + string(raw)
		g, ok := groups[id]
		if !ok {
			g = &group{addressType: s.AddressType, ports: p}
			groups[id] = g
		}
		for _, e := range s.Endpoints {
			g.endpoints = append(g.endpoints, discoveryv1.Endpoint{Addresses: e.Addresses, Conditions: e.Conditions, Hostname: e.Hostname, Zone: e.Zone})
		}
	}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []*unstructured.Unstructured
	for _, id := range ids {
		g := groups[id]
		slices.SortFunc(g.endpoints, func(a, b discoveryv1.Endpoint) int {
			return strings.Compare(strings.Join(a.Addresses, ","), strings.Join(b.Addresses, ","))
		})
		for start := 0; start == 0 || start < len(g.endpoints); start += maxEndpoints {
			end := min(start+maxEndpoints, len(g.endpoints))
			s := &discoveryv1.EndpointSlice{
				TypeMeta: metav1.TypeMeta{APIVersion: discoveryv1.SchemeGroupVersion.String(), Kind: "EndpointSlice"},
				ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: sliceName(k.Name, provider, len(out)), Labels: map[string]string{
					discoveryv1.LabelServiceName:    federationv1alpha1.DerivedServiceName(k.Name),
					discoveryv1.LabelManagedBy:      federationv1alpha1.EndpointSliceManagedBy,
					mcsv1alpha1.LabelSourceCluster:  provider,
					mcsv1alpha1.LabelServiceName:    k.Name,
					federationv1alpha1.LabelManaged: "true",
				}},
				AddressType: g.addressType,
				Endpoints:   append([]discoveryv1.Endpoint{}, g.endpoints[start:end]...),
				Ports:       g.ports,
			}
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
			if err != nil {
				return nil, true, err
			}
			delete(obj["metadata"].(map[string]any), "creationTimestamp")
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
	return out, true, nil
}

// sliceName names a provider's i-th EndpointSlice of a service in a consumer.
func sliceName(service, provider string, i int) string {
	name := federationv1alpha1.DerivedServiceName(service) + "-" + provider
	if i > 0 {
		name += fmt.Sprintf("-%d", i)
	}
	return name
}

// derivedService is the Service of an imported service in a consumer: no selector (its
// endpoints are the providers' slices), the ServiceImport's ports.
func derivedService(k types.NamespacedName, imp *mcsv1alpha1.ServiceImport) *unstructured.Unstructured {
	svc := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: federationv1alpha1.DerivedServiceName(k.Name), Labels: map[string]string{
			mcsv1alpha1.LabelServiceName:    k.Name,
			federationv1alpha1.LabelManaged: "true",
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, SessionAffinity: imp.Spec.SessionAffinity,
			SessionAffinityConfig: imp.Spec.SessionAffinityConfig},
	}
	if imp.Spec.Type == mcsv1alpha1.Headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	for _, p := range imp.Spec.Ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, AppProtocol: p.AppProtocol, Port: p.Port})
	}
	obj, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	delete(obj["metadata"].(map[string]any), "creationTimestamp")
	delete(obj, "status")
	return &unstructured.Unstructured{Object: obj}
}

// workName names a Work of an imported service: "<namespace>.<name>.<part>", which no
// binding's Work ("<namespace>.<name>-<kind>") can be.
func workName(k types.NamespacedName, part string) string {
	return k.Namespace + "." + k.Name + "." + part
}

// withheldNote tells of the providers whose endpoints are withheld under TrafficControl.
func withheldNote(withheld []string) string {
	if len(withheld) == 0 {
		return ""
	}
	return fmt.Sprintf("; endpoints of %s withheld: remedy action %s", strings.Join(withheld, ", "), clusterv1alpha1.TrafficControl)
}

// ConditionReady, on a ServiceImport template, says whether some cluster provides the
// service; its reason says when a provider went away.
const ConditionReady = "Ready"

// writeStatus records on the fleet's ServiceImport the clusters that provide it.
func (c *Controller) writeStatus(ctx context.Context, tmpl *unstructured.Unstructured, providers, withheld []string, invalid string) error {
	imp := &mcsv1alpha1.ServiceImport{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl.Object, imp); err != nil {
		return err
	}
	status := imp.Status.DeepCopy()
	var gone []string
	for _, cs := range imp.Status.Clusters {
		if !slices.Contains(providers, cs.Cluster) && !slices.Contains(withheld, cs.Cluster) {
			gone = append(gone, cs.Cluster)
		}
	}
	status.Clusters = nil
	for _, p := range providers {
		status.Clusters = append(status.Clusters, mcsv1alpha1.ClusterStatus{Cluster: p})
	}
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Provided",
		Message: "provided by " + strings.Join(providers, ", ") + withheldNote(withheld), ObservedGeneration: tmpl.GetGeneration()}
	switch {
	case invalid != "":
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "Invalid", invalid
	case len(providers) == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoProvider", "no cluster exports the service (a ServiceExport placed with the Service's endpoints)"
	case len(gone) > 0:
		cond.Reason, cond.Message = "ProviderRemoved", fmt.Sprintf("%s; %s no longer provides it", cond.Message, strings.Join(gone, ", "))
	}
	if current := meta.FindStatusCondition(status.Conditions, ConditionReady); current != nil && current.Reason == "ProviderRemoved" &&
		len(providers) > 0 && apiequality.Semantic.DeepEqual(status.Clusters, imp.Status.Clusters) {
		// Who went is told until the providers change again.
		cond.Reason, cond.Message = current.Reason, current.Message
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	if apiequality.Semantic.DeepEqual(status, &imp.Status) {
		return nil
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return err
	}
	u := tmpl.DeepCopy()
	u.Object["status"] = obj
	gvr, _, err := c.templates.Resource(serviceImportKind.GroupVersion().String(), serviceImportKind.Kind)
	if err != nil {
		return err
	}
	_, err = c.templates.Client.Resource(gvr).Namespace(tmpl.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
