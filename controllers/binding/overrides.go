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

package binding

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/override"
)

// Overrides customises manifests with the fleet's OverridePolicies and
// ClusterOverridePolicies, and has every binding looked at again when one changes.
func (c *Controller) Overrides(ops fedinformers.OverridePolicyInformer, cops fedinformers.ClusterOverridePolicyInformer,
	clusters clusterlisters.ClusterLister) error {
	// An OverridePolicy concerns the bindings of its namespace; a ClusterOverridePolicy all.
	changed := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if p, ok := obj.(*federationv1alpha1.OverridePolicy); ok {
			c.enqueueNamespace(p.Namespace)
			return
		}
		c.EnqueueAll()
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: changed,
	}
	for _, inf := range []cache.SharedIndexInformer{ops.Informer(), cops.Informer()} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return err
		}
	}
	c.synced = append(c.synced, ops.Informer().HasSynced, cops.Informer().HasSynced)
	opLister, copLister := ops.Lister(), cops.Lister()
	c.Override = func(manifest *unstructured.Unstructured, name string) (*unstructured.Unstructured, []string, error) {
		cluster, err := clusters.Get(name)
		if err != nil {
			return nil, nil, err
		}
		var policies []override.Policy
		cps, err := copLister.List(labels.Everything())
		if err != nil {
			return nil, nil, err
		}
		for _, p := range cps {
			policies = append(policies, override.Policy{Name: p.Name, Spec: &p.Spec})
		}
		if ns := manifest.GetNamespace(); ns != "" {
			nps, err := opLister.OverridePolicies(ns).List(labels.Everything())
			if err != nil {
				return nil, nil, err
			}
			for _, p := range nps {
				policies = append(policies, override.Policy{Namespace: p.Namespace, Name: p.Name, Spec: &p.Spec})
			}
		}
		if len(policies) == 0 {
			return manifest, nil, nil
		}
		return override.Apply(manifest, cluster, policies)
	}
	return nil
}

// enqueueNamespace looks again at the ResourceBindings of a namespace.
func (c *Controller) enqueueNamespace(namespace string) {
	for _, k := range c.bindings.Keys(namespace) {
		c.queue.Add(k)
	}
}
