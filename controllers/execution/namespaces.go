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
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// NamespaceExists says whether the fleet has a namespace: true, false, or an error (not
// known yet).
type NamespaceExists func(name string) (bool, error)

// namespaceCleaner deletes from the members the namespaces fed created there once the
// fleet's namespace of that name is gone: deleting a namespace of the fleet deletes its
// templates, whose copies go, and then the members' namespaces that held them.
type namespaceCleaner struct {
	exists   NamespaceExists
	clusters clusterlisters.ClusterLister
	synced   cache.InformerSynced
	members  *members
	queue    workqueue.TypedRateLimitingInterface[string]
}

// NamespaceChanged tells execution that a namespace of the fleet changed or went.
func (c *Controller) NamespaceChanged(name string) {
	if c.cleaner != nil {
		c.cleaner.queue.Add(name)
	}
}

// CleanNamespaces makes execution delete the members' copies of namespaces the fleet no
// longer has. Call it before Run.
func (c *Controller) CleanNamespaces(exists NamespaceExists, clusters clusterlisters.ClusterLister, synced cache.InformerSynced) {
	c.cleaner = &namespaceCleaner{exists: exists, clusters: clusters, synced: synced, members: c.members,
		queue: reconciler.NewQueue[string]("execution-namespaces")}
}

func (n *namespaceCleaner) run(ctx context.Context) {
	if !cache.WaitForCacheSync(ctx.Done(), n.synced) {
		n.queue.ShutDown()
		return
	}
	// The namespaces deleted from the fleet while fed was down: look at every namespace fed
	// made in a member once.
	if clusters, err := n.clusters.List(labels.Everything()); err == nil {
		for _, cluster := range clusters {
			mb, err := n.members.get(cluster.Name)
			if err != nil {
				continue
			}
			list, err := mb.client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).List(ctx,
				metav1.ListOptions{LabelSelector: federationv1alpha1.LabelManaged + "=true"})
			if err != nil {
				continue
			}
			for _, ns := range list.Items {
				n.queue.Add(ns.GetName())
			}
		}
	}
	reconciler.Run(ctx, n.queue, 1, nil, "Deleting a namespace from the members", n.clean)
}

// clean deletes a namespace the fleet no longer has from every member where fed made it.
func (n *namespaceCleaner) clean(ctx context.Context, name string) error {
	if name == metav1.NamespaceDefault || strings.HasPrefix(name, "kube-") {
		return nil
	}
	exists, err := n.exists(name)
	if err != nil || exists {
		return err
	}
	clusters, err := n.clusters.List(labels.Everything())
	if err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	var errs []error
	for _, cluster := range clusters {
		mb, err := n.members.get(cluster.Name)
		if err != nil {
			continue // an unreachable member keeps it; nothing fed runs there needs it
		}
		mb.namespaces.Delete(name)
		ns, err := mb.client.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
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
		err = mb.client.Resource(gvr).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
