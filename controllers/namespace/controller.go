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

// Package namespace owns the namespaces fed makes: each member's execution namespace in
// the fleet (fed-es-<cluster>, which holds its Works), made as soon as the Cluster is in
// the fleet; and a fleet namespace's copy in a member, made before the first object fed
// applies there (Ensure, which execution calls) and deleted once the fleet's namespace is
// gone. The fleet's own namespace lifecycle (admission, emptying a deleted namespace) is
// the fleet API's, in apiserver/fleet, as it is kube-apiserver's in a cluster.
package namespace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/manifest"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
)

// terminatingRecheck is how often a member's namespace that is still terminating is
// looked at again by whoever waits to apply in it: the member deletes it at its own pace
// (its namespace controller empties it first), and fed makes it again once it is gone.
const terminatingRecheck = time.Second

// key is what the controller keeps: a cluster's execution namespace (Cluster set) or the
// members' copies of a fleet namespace (Namespace set).
type key struct{ Cluster, Namespace string }

// Controller keeps the namespaces fed makes.
type Controller struct {
	templates *templates.Templates
	clusters  clusterlisters.ClusterLister
	synced    cache.InformerSynced
	members   *members.Members
	queue     workqueue.TypedRateLimitingInterface[key]
	// get reads the fleet's namespaces: from templates in fed-apiserver, by a request in
	// an agent (ForAgent).
	get FleetGetter
}

// NewController watches Clusters and the fleet's namespaces.
func NewController(tmpls *templates.Templates, clusters clusterinformers.ClusterInformer, mbs *members.Members) (*Controller, error) {
	c := &Controller{
		templates: tmpls,
		clusters:  clusters.Lister(),
		synced:    clusters.Informer().HasSynced,
		members:   mbs,
		queue:     reconciler.NewQueue[key]("namespace"),
		get: func(_ context.Context, name string) (*unstructured.Unstructured, error) {
			return tmpls.Get(members.NamespacesResource, "", name)
		},
	}
	enqueueCluster := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if o, ok := obj.(metav1.Object); ok {
			c.queue.Add(key{Cluster: o.GetName()})
		}
	}
	// A Cluster made gets its execution namespace; one deleted loses it.
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueueCluster, DeleteFunc: enqueueCluster}); err != nil {
		return nil, err
	}
	tmpls.AddHandler(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
		if gvr != members.NamespacesResource {
			return
		}
		if cluster, ok := strings.CutPrefix(obj.GetName(), federationv1alpha1.ExecutionNamespacePrefix); ok {
			c.queue.Add(key{Cluster: cluster})
			return
		}
		c.queue.Add(key{Namespace: obj.GetName()})
	})
	return c, nil
}

// Run keeps namespaces with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	// The fleet's namespaces and their deletions are heard through the templates.
	c.templates.Watch(members.NamespacesResource)
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), c.synced) {
			c.enqueueMemberNamespaces(ctx)
		}
	}()
	reconciler.Run(ctx, c.queue, workers, []cache.InformerSynced{c.synced}, "Keeping a namespace", c.reconcile)
}

// enqueueMemberNamespaces looks once at every namespace fed made in a member: the fleet
// may have lost some while fed was down.
func (c *Controller) enqueueMemberNamespaces(ctx context.Context) {
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return
	}
	for _, cluster := range clusters {
		mb, err := c.members.Get(cluster.Name)
		if err != nil {
			continue
		}
		list, err := mb.Client.Resource(members.NamespacesResource).List(ctx,
			metav1.ListOptions{LabelSelector: federationv1alpha1.LabelManaged + "=true"})
		if err != nil {
			continue
		}
		for _, ns := range list.Items {
			c.queue.Add(key{Namespace: ns.GetName()})
		}
	}
}

func (c *Controller) reconcile(ctx context.Context, k key) error {
	if k.Cluster != "" {
		return c.executionNamespace(ctx, k.Cluster)
	}
	return c.clean(ctx, k.Namespace)
}

// FleetGetter reads a namespace of the fleet by name: NotFound when the fleet has none.
type FleetGetter func(ctx context.Context, name string) (*unstructured.Unstructured, error)

// ForAgent is the namespace keeping of a pull cluster's agent, which applies its Works in
// its own cluster: Ensure alone, making a namespace from the fleet's Namespace template,
// which the agent reads by name with get (it may read nothing else of the fleet), or a bare
// one when the fleet has none. It is not run: the host's controller deletes a pull
// member's namespaces once the fleet's are gone, through the agent's tunnel.
func ForAgent(get FleetGetter) *Controller { return &Controller{get: get} }

// fleetNamespace returns the fleet's namespace of a name; NotFound when there is none.
func (c *Controller) fleetNamespace(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	ns, err := c.get(ctx, name)
	switch {
	case apierrors.IsForbidden(err):
		// An agent of a host whose fed predates agents reading the fleet's namespaces: a
		// bare one, as such a host's agents made.
		klog.FromContext(ctx).Info("The fleet does not let this agent read its namespaces; making a bare one", "namespace", name, "err", err)
		return nil, apierrors.NewNotFound(members.NamespacesResource.GroupResource(), name)
	case err != nil && !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading the fleet's namespace %s: %w", name, err)
	}
	return ns, err
}

// executionNamespace makes the execution namespace of a cluster in the fleet, once the
// cluster is in the fleet and as long as it is, and deletes it once the cluster left (its
// Works go with it). One being deleted is made again when it is gone (its deletion brings
// the key back).
func (c *Controller) executionNamespace(ctx context.Context, cluster string) error {
	name := federationv1alpha1.ExecutionNamespace(cluster)
	if _, err := c.clusters.Get(cluster); apierrors.IsNotFound(err) {
		err := c.templates.Client.Resource(members.NamespacesResource).Delete(ctx, name, metav1.DeleteOptions{})
		return ignoreNotFound(err)
	} else if err != nil {
		return err
	}
	_, err := c.fleetNamespace(ctx, name)
	if !apierrors.IsNotFound(err) {
		return err
	}
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	_, err = c.templates.Client.Resource(members.NamespacesResource).Create(ctx, ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the execution namespace %s: %w", name, err)
	}
	return nil
}

// Ensure makes sure a member has a namespace before fed applies something in it: from the
// fleet's Namespace template when there is one, else a bare one, both labelled as fed's.
// A namespace still terminating in the member (the fleet's was deleted and made again
// meanwhile) is waited for: the error asks to be tried again after terminatingRecheck.
func (c *Controller) Ensure(ctx context.Context, mb *members.Member, name string) error {
	client := mb.Client.Resource(members.NamespacesResource)
	known := mb.Namespaces()
	ns := known.Get(name)
	if !known.Synced() {
		// Not listed yet (fed just started, or just met the member): the member's watch
		// cache answers instead, at no cost to its etcd.
		got, err := client.Get(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading namespace %s in cluster %s: %w", name, mb.Name(), err)
		}
		if err == nil {
			ns = got
		}
	}
	if ns != nil {
		return terminating(ns, mb.Name())
	}
	want, err := c.memberNamespace(ctx, name)
	if err != nil {
		return err
	}
	created, err := client.Create(ctx, want, metav1.CreateOptions{FieldManager: federationv1alpha1.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		// Made by another worker a moment ago, or still terminating: the member says which.
		if ns, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("reading namespace %s in cluster %s: %w", name, mb.Name(), err)
		}
		return terminating(ns, mb.Name())
	}
	if err != nil {
		return fmt.Errorf("creating namespace %s in cluster %s: %w", name, mb.Name(), err)
	}
	known.Wrote(created)
	return nil
}

// terminating is nil for a namespace of a member that is there to apply in, and asks to be
// tried again after terminatingRecheck for one still terminating.
func terminating(ns *unstructured.Unstructured, cluster string) error {
	if ns.GetDeletionTimestamp() == nil {
		return nil
	}
	return reconciler.RequeueAfter(terminatingRecheck,
		fmt.Errorf("namespace %s is still terminating in cluster %s; fed creates it again once it is gone", ns.GetName(), cluster))
}

// memberNamespace is what fed creates in a member for a namespace of the fleet: the
// fleet's Namespace template as fed applies any (its finalizers are the member's), or a
// bare namespace labelled as fed's.
func (c *Controller) memberNamespace(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	tmpl, err := c.fleetNamespace(ctx, name)
	if apierrors.IsNotFound(err) {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		ns.SetName(name)
		ns.SetLabels(map[string]string{federationv1alpha1.LabelManaged: "true"})
		return ns, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := manifest.For(nil, tmpl, &federationv1alpha1.ResourceBindingSpec{}, federationv1alpha1.TargetCluster{})
	if err != nil {
		return nil, err
	}
	manifest.Stamp(m, tmpl, &federationv1alpha1.ResourceBindingSpec{}, nil)
	delete(m.Object, "spec")
	return m, nil
}

// clean deletes a namespace the fleet no longer has from every member where fed made it:
// deleting a namespace of the fleet deletes its templates, whose copies go, and then the
// members' namespaces that held them.
func (c *Controller) clean(ctx context.Context, name string) error {
	if name == metav1.NamespaceDefault || strings.HasPrefix(name, "kube-") {
		return nil
	}
	if _, err := c.fleetNamespace(ctx, name); !apierrors.IsNotFound(err) {
		return err
	}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	var errs []error
	for _, cluster := range clusters {
		mb, err := c.members.Get(cluster.Name)
		if err != nil {
			if c.members.ByAgent(cluster.Name) {
				// A pull member is reached through its agent's tunnel, which may not be
				// open to this process yet (fed-apiserver just started, or the agent is
				// reconnecting): try again.
				errs = append(errs, err)
			}
			continue // an unreachable push member keeps it; nothing fed runs there needs it
		}
		client := mb.Client.Resource(members.NamespacesResource)
		ns, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ns.GetLabels()[federationv1alpha1.LabelManaged] != "true" || ns.GetDeletionTimestamp() != nil {
			continue
		}
		uid := ns.GetUID()
		err = client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
