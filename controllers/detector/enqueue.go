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

package detector

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// What else makes the detector look at templates again: a customization deleted, a kind a
// policy names, the policies waiting for an override policy.

// customizationDeleted tells each template of the kind a deleted customization counted
// the replicas of, in an event, that fed now counts them with its built-in knowledge: for a
// kind it does not know, none, so that a workload divided among clusters by its replicas
// goes to each whole.
func (c *Controller) customizationDeleted(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	ric, ok := obj.(*federationv1alpha1.ResourceInterpreterCustomization)
	if !ok || ric.Spec.Customizations.ReplicaResource == nil {
		return
	}
	gvr, _, err := c.templates.Resource(ric.Spec.Target.APIVersion, ric.Spec.Target.Kind)
	if err != nil {
		return
	}
	for _, t := range c.templates.List(gvr) {
		c.recorder.Eventf(t, corev1.EventTypeWarning, "InterpreterChanged",
			"ResourceInterpreterCustomization %s, which counted this kind's replicas, was deleted: fed counts them with its built-in knowledge now (none for a kind it does not know: a Divided placement then sends the whole template to each cluster)", ric.Name)
	}
}

// webhooksChanged looks again at the templates of the kinds an interpreter webhook
// configuration's rules name (a rule of "*" names none: its templates are looked at when
// they change, or at the next resync).
func (c *Controller) webhooksChanged(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	cfg, ok := obj.(*federationv1alpha1.ResourceInterpreterWebhookConfiguration)
	if !ok {
		return
	}
	for _, h := range cfg.Webhooks {
		for _, r := range h.Rules {
			for _, g := range r.APIGroups {
				for _, v := range r.APIVersions {
					for _, k := range r.Kinds {
						if g != "*" && v != "*" && k != "*" {
							c.kindChanged(schema.GroupVersion{Group: g, Version: v}.String(), k)
						}
					}
				}
			}
		}
	}
}

// kindChanged looks again at the templates of a kind the detector watches.
func (c *Controller) kindChanged(apiVersion, kind string) {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	gvr, _, err := c.templates.Resource(apiVersion, kind)
	if err != nil || !started {
		return
	}
	for _, obj := range c.templates.ListMeta(gvr) {
		c.queue.Add(key{GVR: gvr, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	}
}

// dependentsOf looks again at the templates of the policies with dependentOverrides in a
// namespace ("": the ClusterPropagationPolicies).
func (c *Controller) dependentsOf(namespace string) {
	if namespace == "" {
		cpps, _ := c.cluster.List(labels.Everything())
		for _, p := range cpps {
			if len(p.Spec.DependentOverrides) > 0 {
				c.policyChanged(&p.Spec)
			}
		}
		return
	}
	pps, _ := c.policies.PropagationPolicies(namespace).List(labels.Everything())
	for _, p := range pps {
		if len(p.Spec.DependentOverrides) > 0 {
			c.policyChanged(&p.Spec)
		}
	}
}

// policyChanged starts watching the kinds a policy names and looks again at their
// templates.
func (c *Controller) policyChanged(spec *federationv1alpha1.PropagationSpec) {
	for _, sel := range spec.ResourceSelectors {
		gvr, _, err := c.templates.Resource(sel.APIVersion, sel.Kind)
		if err != nil {
			klog.V(2).InfoS("A policy names a kind the fleet does not serve", "apiVersion", sel.APIVersion, "kind", sel.Kind, "err", err)
			continue
		}
		c.mu.Lock()
		started := c.started
		c.mu.Unlock()
		if !started {
			continue // Run looks at the policies that came before it
		}
		// A new informer tells of every template as it lists them; an old one is asked.
		c.templates.Watch(gvr)
		for _, obj := range c.templates.ListMeta(gvr) {
			c.queue.Add(key{GVR: gvr, Namespace: obj.GetNamespace(), Name: obj.GetName()})
		}
	}
}

// enqueueRef looks again at the template a binding refers to. A kind the fleet does not
// serve yet (a CRD's, right after fed-apiserver started: the fleet serves it once it has
// read the CRD) is tried again, after 1 s, then twice as long each time up to
// unmappedRetry: the binding's template may have gone meanwhile, which no event of an
// informer listing after it tells (the fault campaign's seed 31337: a Widget deleted
// 4 s after a restart kept its binding and its member's copy).
func (c *Controller) enqueueRef(ref federationv1alpha1.ObjectReference) {
	c.enqueueRefAfter(ref, 0)
}

// unmappedRetry is the longest wait before the kind of a binding's template is looked up
// again.
const unmappedRetry = 30 * time.Second

func (c *Controller) enqueueRefAfter(ref federationv1alpha1.ObjectReference, waited time.Duration) {
	gvr, _, err := c.templates.Resource(ref.APIVersion, ref.Kind)
	if err == nil {
		c.queue.Add(key{GVR: gvr, Namespace: ref.Namespace, Name: ref.Name})
		return
	}
	if c.queue.ShuttingDown() {
		return
	}
	wait := min(max(2*waited, time.Second), unmappedRetry)
	time.AfterFunc(wait, func() { c.enqueueRefAfter(ref, wait) })
}
