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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/override"
)

// Overrides customises manifests with the fleet's OverridePolicies and
// ClusterOverridePolicies, and has the bindings of the templates a policy selects looked
// at again when it changes.
func (c *Controller) Overrides(ops fedinformers.OverridePolicyInformer, cops fedinformers.ClusterOverridePolicyInformer,
	clusters clusterlisters.ClusterLister) error {
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueSelected(policyOf(obj)) },
		// The templates the policy selected before the change and those it selects now.
		UpdateFunc: func(old, obj any) { c.enqueueSelected(policyOf(old), policyOf(obj)) },
		DeleteFunc: func(obj any) { c.enqueueSelected(policyOf(obj)) },
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

// policyOf is an override policy of the informers, as the override engine takes it.
func policyOf(obj any) override.Policy {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	switch p := obj.(type) {
	case *federationv1alpha1.OverridePolicy:
		return override.Policy{Namespace: p.Namespace, Name: p.Name, Spec: &p.Spec}
	case *federationv1alpha1.ClusterOverridePolicy:
		return override.Policy{Name: p.Name, Spec: &p.Spec}
	}
	return override.Policy{}
}

// enqueueSelected looks again at the bindings whose templates one of policies (one
// policy, before and after a change) selects: ResourceBindings of its namespace for an
// OverridePolicy, every binding for a ClusterOverridePolicy. A binding whose template
// cannot be read is looked at anyway: its reconcile says why.
func (c *Controller) enqueueSelected(policies ...override.Policy) {
	for _, k := range c.bindings.Keys(policies[0].Namespace) {
		if c.selected(k, policies) {
			c.queue.Add(k)
		}
	}
}

func (c *Controller) selected(k key, policies []override.Policy) bool {
	b, err := c.bindings.Get(k)
	if err != nil {
		return !apierrors.IsNotFound(err)
	}
	tmpl, _, err := c.templates.Ref(b.Spec.Resource)
	if err != nil {
		return true
	}
	for _, p := range policies {
		if p.Selects(tmpl) {
			return true
		}
	}
	return false
}
