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
	"errors"
	"fmt"
	"slices"
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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	mcscrd "sigs.k8s.io/mcs-api/config/crd"
	mcsv1alpha1 "sigs.k8s.io/mcs-api/pkg/apis/v1alpha1"
	"sigs.k8s.io/yaml"

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

// NewController imports the services that MultiClusterServices (mcss), or ServiceExport
// and ServiceImport templates bound by rbs, export and import, with the providers'
// EndpointSlices from mbs, and writes the MultiClusterIngresses (mcis) into the clusters
// that import their services, as Works in wa.
func NewController(fed versioned.Interface, tmpls *templates.Templates, rbs fedinformers.ResourceBindingInformer, wa *works.Access,
	mbs *members.Members, clusters clusterinformers.ClusterInformer, mcss fedinformers.MultiClusterServiceInformer,
	mcis fedinformers.MultiClusterIngressInformer) (*Controller, error) {
	c := &Controller{
		fed:       fed,
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
	// A cluster joined or left: MultiClusterServices without consumerClusters import into
	// every cluster.
	allServices := func(any) {
		list, _ := c.services.List(labels.Everything())
		for _, m := range list {
			c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: m.Namespace, Name: m.Name}})
		}
	}
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: allServices, DeleteFunc: allServices}); err != nil {
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
			c.queue.Add(key{NamespacedName: ref})
		}
	})
	return c, nil
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

// crdResource is the resource of CustomResourceDefinitions, in the fleet.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

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
			_, err := c.templates.Client.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{FieldManager: federationv1alpha1.FieldManager})
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
	// report records the providers whose endpoints are imported.
	report func(ctx context.Context, providers []string) error
}

// reconcileService makes the Works that import one service what its MultiClusterService,
// or else its ServiceExport and ServiceImport, say.
func (c *Controller) reconcileService(ctx context.Context, k types.NamespacedName) error {
	imp, err := c.importOf(k)
	if err != nil {
		return err
	}
	want := map[types.NamespacedName]federationv1alpha1.WorkSpec{}
	var exporting []string
	if len(imp.consumers) > 0 {
		endpoints := map[string][]*unstructured.Unstructured{}
		for _, p := range imp.providers {
			slices, err := c.providerSlices(p, k, imp.ports)
			if err != nil {
				return err
			}
			if slices != nil {
				endpoints[p] = slices
				exporting = append(exporting, p)
			}
		}
		service, err := workSpec(imp.service)
		if err != nil {
			return err
		}
		for _, consumer := range imp.consumers {
			ns := federationv1alpha1.ExecutionNamespace(consumer)
			want[types.NamespacedName{Namespace: ns, Name: workName(k, "derived")}] = service
			for p, slices := range endpoints {
				spec, err := workSpec(slices...)
				if err != nil {
					return err
				}
				want[types.NamespacedName{Namespace: ns, Name: workName(k, "from-"+p)}] = spec
			}
		}
	}
	if err := c.syncWorks(ctx, federationv1alpha1.AnnotationMultiClusterService, k.String(), want); err != nil {
		return err
	}
	c.ingressesOf(k) // their consumers may have changed
	if imp.report != nil {
		return imp.report(ctx, exporting)
	}
	return nil
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
	imp.report = func(ctx context.Context, providers []string) error { return c.writeStatus(ctx, tmpl, providers) }
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
	slices.Sort(out)
	return out
}

// serviceImport reads the fleet's ServiceImport template of a service; nil when there is
// none.
func (c *Controller) serviceImport(k types.NamespacedName) (*unstructured.Unstructured, *mcsv1alpha1.ServiceImport, error) {
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

// providerSlices are the EndpointSlices that carry a provider's endpoints of a service
// into a consumer: one per address type, with the endpoints of every slice the
// provider's endpointslice controller made for the Service, and their ports (or ports,
// when not nil). Nil when the provider has
// no slice of it (no such Service there, or the member cannot be reached).
func (c *Controller) providerSlices(provider string, k types.NamespacedName, ports []discoveryv1.EndpointPort) ([]*unstructured.Unstructured, error) {
	mb, err := c.members.Get(provider)
	if err != nil {
		return nil, nil
	}
	known := mb.ServiceSlices()
	if !known.Synced() {
		return nil, reconciler.ErrRetrySoon
	}
	selector := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: k.Name})
	byType := map[discoveryv1.AddressType]*discoveryv1.EndpointSlice{}
	for _, u := range known.List(k.Namespace, selector) {
		var s discoveryv1.EndpointSlice
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &s); err != nil {
			continue
		}
		merged, ok := byType[s.AddressType]
		if !ok {
			merged = &discoveryv1.EndpointSlice{
				TypeMeta: metav1.TypeMeta{APIVersion: discoveryv1.SchemeGroupVersion.String(), Kind: "EndpointSlice"},
				ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: sliceName(k.Name, provider, s.AddressType), Labels: map[string]string{
					discoveryv1.LabelServiceName:    federationv1alpha1.DerivedServiceName(k.Name),
					discoveryv1.LabelManagedBy:      federationv1alpha1.EndpointSliceManagedBy,
					mcsv1alpha1.LabelSourceCluster:  provider,
					mcsv1alpha1.LabelServiceName:    k.Name,
					federationv1alpha1.LabelManaged: "true",
				}},
				AddressType: s.AddressType,
				Endpoints:   []discoveryv1.Endpoint{},
				Ports:       s.Ports,
			}
			if ports != nil {
				merged.Ports = ports
			}
			byType[s.AddressType] = merged
		}
		for _, e := range s.Endpoints {
			// The pod and node are the provider's: a consumer knows neither.
			merged.Endpoints = append(merged.Endpoints, discoveryv1.Endpoint{Addresses: e.Addresses, Conditions: e.Conditions, Hostname: e.Hostname, Zone: e.Zone})
		}
	}
	if len(byType) == 0 {
		return nil, nil
	}
	var out []*unstructured.Unstructured
	for _, t := range []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN} {
		s, ok := byType[t]
		if !ok {
			continue
		}
		slices.SortFunc(s.Endpoints, func(a, b discoveryv1.Endpoint) int {
			return strings.Compare(strings.Join(a.Addresses, ","), strings.Join(b.Addresses, ","))
		})
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
		if err != nil {
			return nil, err
		}
		delete(obj["metadata"].(map[string]any), "creationTimestamp")
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out, nil
}

// sliceName names a provider's EndpointSlice of a service in a consumer.
func sliceName(service, provider string, t discoveryv1.AddressType) string {
	name := federationv1alpha1.DerivedServiceName(service) + "-" + provider
	if t != discoveryv1.AddressTypeIPv4 {
		name += "-" + strings.ToLower(string(t))
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

func workSpec(manifests ...*unstructured.Unstructured) (federationv1alpha1.WorkSpec, error) {
	spec := federationv1alpha1.WorkSpec{}
	for _, m := range manifests {
		raw, err := m.MarshalJSON()
		if err != nil {
			return spec, err
		}
		spec.Workload.Manifests = append(spec.Workload.Manifests, runtime.RawExtension{Raw: raw})
	}
	return spec, nil
}

// syncWorks creates, updates and deletes the Works whose annotation says owner to match
// want.
func (c *Controller) syncWorks(ctx context.Context, annotation, owner string, want map[types.NamespacedName]federationv1alpha1.WorkSpec) error {
	have := map[types.NamespacedName]*federationv1alpha1.Work{}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, cl := range clusters {
		for _, w := range c.works.List(federationv1alpha1.ExecutionNamespace(cl.Name)) {
			if w.Annotations[annotation] == owner {
				have[types.NamespacedName{Namespace: w.Namespace, Name: w.Name}] = w
			}
		}
	}
	var errs []error
	for key, spec := range want {
		works := c.fed.FederationV1alpha1().Works(key.Namespace)
		current, ok := have[key]
		switch {
		case !ok:
			w := &federationv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
				Annotations: map[string]string{annotation: owner},
				Finalizers:  []string{federationv1alpha1.FinalizerExecution}}, Spec: spec}
			written, err := works.Create(ctx, w, metav1.CreateOptions{})
			switch {
			case err == nil:
				c.works.Wrote(written)
			case apierrors.IsAlreadyExists(err):
				errs = append(errs, reconciler.ErrRetrySoon) // the view has not got it yet
			default:
				errs = append(errs, err)
			}
		case current.DeletionTimestamp != nil:
			errs = append(errs, reconciler.ErrRetrySoon) // made again once it is gone
		case !equalSpecs(&current.Spec, &spec):
			u := current.DeepCopy()
			u.Spec = spec
			written, err := works.Update(ctx, u, metav1.UpdateOptions{})
			switch {
			case err == nil:
				c.works.Wrote(written)
			case apierrors.IsConflict(err):
				// Execution or workstatus wrote the Work meanwhile; the controller does not
				// watch Works, so it tries again at once with the newer one.
				errs = append(errs, reconciler.ErrRetrySoon)
			default:
				errs = append(errs, err)
			}
		}
	}
	for key, w := range have {
		if _, ok := want[key]; ok || w.DeletionTimestamp != nil {
			continue
		}
		uid := w.UID
		err := c.fed.FederationV1alpha1().Works(key.Namespace).Delete(ctx, key.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// equalSpecs compares Work specs by their manifests' JSON.
func equalSpecs(a, b *federationv1alpha1.WorkSpec) bool {
	if len(a.Workload.Manifests) != len(b.Workload.Manifests) {
		return false
	}
	for i := range a.Workload.Manifests {
		var x, y unstructured.Unstructured
		if x.UnmarshalJSON(a.Workload.Manifests[i].Raw) != nil || y.UnmarshalJSON(b.Workload.Manifests[i].Raw) != nil ||
			!apiequality.Semantic.DeepEqual(x.Object, y.Object) {
			return false
		}
	}
	return true
}

// ConditionReady, on a ServiceImport template, says whether some cluster provides the
// service; its reason says when a provider went away.
const ConditionReady = "Ready"

// writeStatus records on the fleet's ServiceImport the clusters that provide it.
func (c *Controller) writeStatus(ctx context.Context, tmpl *unstructured.Unstructured, providers []string) error {
	imp := &mcsv1alpha1.ServiceImport{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl.Object, imp); err != nil {
		return err
	}
	status := imp.Status.DeepCopy()
	var gone []string
	for _, cs := range imp.Status.Clusters {
		if !slices.Contains(providers, cs.Cluster) {
			gone = append(gone, cs.Cluster)
		}
	}
	status.Clusters = nil
	for _, p := range providers {
		status.Clusters = append(status.Clusters, mcsv1alpha1.ClusterStatus{Cluster: p})
	}
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Provided",
		Message: "provided by " + strings.Join(providers, ", "), ObservedGeneration: tmpl.GetGeneration()}
	switch {
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
