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
// the fleet, and the Cluster's cleanup finalizer, which keeps it until that namespace is
// gone; and a fleet namespace's copies in the members, deleted once the fleet's
// namespace is gone (execution makes them before the first object it applies there, with
// internal/membernamespaces). The fleet's own namespace lifecycle (admission, emptying a deleted namespace) is
// the fleet API's, in apiserver/fleet, as it is kube-apiserver's in a cluster.
package namespace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/membernamespaces"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
)

// key is what the controller keeps: a cluster's execution namespace (Cluster set) or the
// members' copies of a fleet namespace (Namespace set).
type key struct{ Cluster, Namespace string }

// Controller keeps the namespaces fed makes.
type Controller struct {
	// fed writes the Clusters' cleanup finalizer.
	fed       versioned.Interface
	templates *templates.Templates
	clusters  clusterlisters.ClusterLister
	synced    cache.InformerSynced
	members   *members.Members
	queue     workqueue.TypedRateLimitingInterface[key]
	// names reads the fleet's namespaces.
	names *membernamespaces.Maker
}

// NewController watches Clusters and the fleet's namespaces (read through names).
func NewController(fed versioned.Interface, tmpls *templates.Templates, clusters clusterinformers.ClusterInformer, mbs *members.Members, names *membernamespaces.Maker) (*Controller, error) {
	c := &Controller{
		fed:       fed,
		templates: tmpls,
		clusters:  clusters.Lister(),
		synced:    clusters.Informer().HasSynced,
		members:   mbs,
		queue:     reconciler.NewQueue[key]("namespace"),
		names:     names,
	}
	enqueueCluster := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if o, ok := obj.(metav1.Object); ok {
			c.queue.Add(key{Cluster: o.GetName()})
		}
	}
	// A Cluster made gets its execution namespace; one being deleted loses it.
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueueCluster,
		UpdateFunc: func(old, obj any) {
			if o, ok := obj.(*clusterv1alpha1.Cluster); ok && (o.DeletionTimestamp != nil || lacksFinalizer(o)) {
				enqueueCluster(obj)
			}
		},
		DeleteFunc: enqueueCluster,
	}); err != nil {
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

// executionNamespace makes the execution namespace of a cluster in the fleet, once the
// cluster is in the fleet and as long as it is, and deletes it once the cluster leaves (its
// Works go with it). One being deleted is made again when it is gone (its deletion brings
// the key back).
//
// A push cluster carries the finalizer FinalizerCleanup, which this controller alone
// writes: deleted (unjoined), it stays until its execution namespace is gone, so that
// execution first removes from the member, through the cluster's credentials still there,
// what fed propagated (Karmada's unjoin does the same). A pull cluster's agent is not
// waited for.
func (c *Controller) executionNamespace(ctx context.Context, cluster string) error {
	name := federationv1alpha1.ExecutionNamespace(cluster)
	cl, err := c.clusters.Get(cluster)
	if apierrors.IsNotFound(err) {
		return c.deleteExecutionNamespace(ctx, name)
	} else if err != nil {
		return err
	}
	if cl.DeletionTimestamp != nil {
		if err := c.deleteExecutionNamespace(ctx, name); err != nil || !slices.Contains(cl.Finalizers, clusterv1alpha1.FinalizerCleanup) {
			return err
		}
		if _, err := c.names.FleetNamespace(ctx, name); !apierrors.IsNotFound(err) {
			return err // still there: its deletion brings the key back
		}
		return c.setFinalizer(ctx, cl, false)
	}
	if lacksFinalizer(cl) {
		if err := c.setFinalizer(ctx, cl, true); err != nil {
			return err
		}
	}
	_, err = c.names.FleetNamespace(ctx, name)
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

// lacksFinalizer says whether a Cluster should carry the cleanup finalizer and does not: a
// push cluster's (a pull cluster's agent is not waited for).
func lacksFinalizer(cl *clusterv1alpha1.Cluster) bool {
	return cl.Spec.SyncMode != clusterv1alpha1.Pull && !slices.Contains(cl.Finalizers, clusterv1alpha1.FinalizerCleanup)
}

func (c *Controller) deleteExecutionNamespace(ctx context.Context, name string) error {
	return ignoreNotFound(c.templates.Client.Resource(members.NamespacesResource).Delete(ctx, name, metav1.DeleteOptions{}))
}

// setFinalizer adds the cleanup finalizer to a Cluster, or removes it, by a JSON patch.
// Added, the patch is tested against the resourceVersion read: a Cluster changed meanwhile
// fails the test, an error, and the key is reconciled again. Removed, it is tested against
// the finalizer's place in the list only: a leaving member's Cluster has its status written
// at every probe, which must not hold its removal back.
func (c *Controller) setFinalizer(ctx context.Context, cl *clusterv1alpha1.Cluster, add bool) error {
	var ops []map[string]any
	if add {
		finalizers := append(slices.Clone(cl.Finalizers), clusterv1alpha1.FinalizerCleanup)
		ops = []map[string]any{
			{"op": "test", "path": "/metadata/resourceVersion", "value": cl.ResourceVersion},
			{"op": "replace", "path": "/metadata/finalizers", "value": finalizers},
		}
	} else {
		i := slices.Index(cl.Finalizers, clusterv1alpha1.FinalizerCleanup)
		if i < 0 {
			return nil
		}
		path := "/metadata/finalizers/" + strconv.Itoa(i)
		ops = []map[string]any{
			{"op": "test", "path": path, "value": clusterv1alpha1.FinalizerCleanup},
			{"op": "remove", "path": path},
		}
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	_, err = c.fed.ClusterV1alpha1().Clusters().Patch(ctx, cl.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	return ignoreNotFound(err)
}

// clean deletes a namespace the fleet no longer has from every member where fed made it:
// deleting a namespace of the fleet deletes its templates, whose copies go, and then the
// members' namespaces that held them.
func (c *Controller) clean(ctx context.Context, name string) error {
	if name == metav1.NamespaceDefault || strings.HasPrefix(name, "kube-") {
		return nil
	}
	if _, err := c.names.FleetNamespace(ctx, name); !apierrors.IsNotFound(err) {
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
