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

// Package membernamespaces makes a fleet namespace's copy in a member before fed applies
// anything there: from the fleet's Namespace template when there is one, else a bare one,
// both labelled as fed's. Execution calls it in fed-apiserver and in a pull cluster's
// agent; the namespace controller reads the fleet's namespaces through it and deletes the
// copies once the fleet's namespace is gone.
package membernamespaces

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/manifest"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// terminatingRecheck is how often a member's namespace that is still terminating is
// looked at again by whoever waits to apply in it: the member deletes it at its own pace
// (its namespace controller empties it first), and fed makes it again once it is gone.
const terminatingRecheck = time.Second

// FleetGetter reads a namespace of the fleet by name: NotFound when the fleet has none.
type FleetGetter func(ctx context.Context, name string) (*unstructured.Unstructured, error)

// Maker makes members' namespaces from the fleet's.
type Maker struct {
	// get reads the fleet's namespaces: from the templates informer in fed-apiserver, by
	// a request in an agent (which may read nothing else of the fleet).
	get FleetGetter
}

// New returns a Maker reading the fleet's namespaces with get.
func New(get FleetGetter) *Maker { return &Maker{get: get} }

// FleetNamespace returns the fleet's namespace of a name; NotFound when there is none.
func (c *Maker) FleetNamespace(ctx context.Context, name string) (*unstructured.Unstructured, error) {
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

// Ensure makes sure a member has a namespace before fed applies something in it: from the
// fleet's Namespace template when there is one, else a bare one, both labelled as fed's.
// A namespace still terminating in the member (the fleet's was deleted and made again
// meanwhile) is waited for: the error asks to be tried again after terminatingRecheck.
func (c *Maker) Ensure(ctx context.Context, mb *members.Member, name string) error {
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
func (c *Maker) memberNamespace(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	tmpl, err := c.FleetNamespace(ctx, name)
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
