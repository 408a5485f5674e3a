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
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/override"
)

// watchOverrides customises manifests with the fleet's OverridePolicies and
// ClusterOverridePolicies, and has the bindings of the templates a policy selects looked
// at again when it changes, and every binding when a cluster's labels or location change
// (override rules choose clusters by them).
func (c *Controller) watchOverrides(ops fedinformers.OverridePolicyInformer, cops fedinformers.ClusterOverridePolicyInformer,
	clusterInformer clusterinformers.ClusterInformer) error {
	if _, err := clusterInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(old, obj any) {
		o, ok1 := old.(*clusterv1alpha1.Cluster)
		n, ok2 := obj.(*clusterv1alpha1.Cluster)
		if ok1 && ok2 && (!apiequality.Semantic.DeepEqual(o.Labels, n.Labels) || o.Spec.Provider != n.Spec.Provider ||
			o.Spec.Region != n.Spec.Region || o.Spec.Zone != n.Spec.Zone) {
			for _, k := range c.bindings.Keys(metav1.NamespaceAll) {
				c.queue.Add(k)
			}
		}
	}}); err != nil {
		return err
	}
	clusters := clusterInformer.Lister()
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
	c.override = func(manifest *unstructured.Unstructured, name string) (*unstructured.Unstructured, []metav1.Object, error) {
		cluster, err := clusters.Get(name)
		if err != nil {
			return nil, nil, err
		}
		var policies []override.Policy
		objects := map[string]metav1.Object{}
		cps, err := copLister.List(labels.Everything())
		if err != nil {
			return nil, nil, err
		}
		for _, p := range cps {
			policies = append(policies, override.Policy{Name: p.Name, Spec: &p.Spec})
			objects[policyName(p)] = p
		}
		if ns := manifest.GetNamespace(); ns != "" {
			nps, err := opLister.OverridePolicies(ns).List(labels.Everything())
			if err != nil {
				return nil, nil, err
			}
			for _, p := range nps {
				policies = append(policies, override.Policy{Namespace: p.Namespace, Name: p.Name, Spec: &p.Spec})
				objects[policyName(p)] = p
			}
		}
		if len(policies) == 0 {
			return manifest, nil, nil
		}
		out, names, err := override.Apply(manifest, cluster, policies)
		applied := make([]metav1.Object, len(names))
		for i, n := range names {
			applied[i] = objects[n]
		}
		return out, applied, err
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
