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

package mcs

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	mcsv1alpha1 "sigs.k8s.io/mcs-api/pkg/apis/v1alpha1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/works"
)

// hasService says whether a MultiClusterService of that name exists.
func (c *Controller) hasService(k types.NamespacedName) bool {
	_, err := c.services.MultiClusterServices(k.Namespace).Get(k.Name)
	return err == nil
}

// multiClusterService is how a MultiClusterService imports its Service: from its
// providerClusters (or every cluster the Service is placed in) into its
// consumerClusters (or every cluster of the fleet), with its ports.
func (c *Controller) multiClusterService(mcs *federationv1alpha1.MultiClusterService) (*imported, error) {
	k := types.NamespacedName{Namespace: mcs.Namespace, Name: mcs.Name}
	imp := &imported{providers: c.existing(names(mcs.Spec.ProviderClusters)), consumers: c.existing(names(mcs.Spec.ConsumerClusters))}
	if len(mcs.Spec.ProviderClusters) == 0 {
		imp.providers = c.placed(k, "Service")
	}
	if len(mcs.Spec.ConsumerClusters) == 0 {
		var err error
		if imp.consumers, err = c.allClusters(); err != nil {
			return nil, err
		}
	}
	si := &mcsv1alpha1.ServiceImport{Spec: mcsv1alpha1.ServiceImportSpec{Type: mcsv1alpha1.ClusterSetIP}}
	for _, p := range mcs.Spec.Ports {
		si.Spec.Ports = append(si.Spec.Ports, mcsv1alpha1.ServicePort{Name: p.Name, Port: p.Port, Protocol: corev1.ProtocolTCP})
		target := p.TargetPort
		if target == 0 {
			target = p.Port
		}
		imp.ports = append(imp.ports, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(target), Protocol: ptr.To(corev1.ProtocolTCP)})
	}
	imp.service = derivedService(k, si)
	consumers := imp.consumers
	imp.report = func(ctx context.Context, providers, withheld []string, _ string) error {
		return c.writeServiceStatus(ctx, mcs, providers, withheld, consumers)
	}
	return imp, nil
}

func names(selectors []federationv1alpha1.ClusterSelector) []string {
	var out []string
	for _, s := range selectors {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (c *Controller) allClusters() ([]string, error) {
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, cl := range clusters {
		out = append(out, cl.Name)
	}
	slices.Sort(out)
	return out, nil
}

// writeServiceStatus records on a MultiClusterService where it is imported from and into.
func (c *Controller) writeServiceStatus(ctx context.Context, mcs *federationv1alpha1.MultiClusterService, providers, withheld, consumers []string) error {
	status := mcs.Status.DeepCopy()
	status.ProviderClusters, status.ConsumerClusters = providers, consumers
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Imported", ObservedGeneration: mcs.Generation,
		Message: fmt.Sprintf("endpoints of %s imported into %s%s", strings.Join(providers, ", "), strings.Join(consumers, ", "), withheldNote(withheld))}
	switch {
	case len(consumers) == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoConsumer", "no cluster to import the service into"
	case len(providers) == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoProvider",
			"no provider cluster has endpoints of Service "+mcs.Name+" (is the Service propagated to them?)"
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	if apiequality.Semantic.DeepEqual(status, &mcs.Status) {
		return nil
	}
	u := mcs.DeepCopy()
	u.Status = *status
	_, err := c.fed.FederationV1alpha1().MultiClusterServices(mcs.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a newer one brings the key back
	}
	return err
}

// consumersOf are the clusters a service is imported into, as its MultiClusterService or
// its ServiceImport's placement says.
func (c *Controller) consumersOf(k types.NamespacedName) ([]string, error) {
	imp, err := c.importOf(k)
	if err != nil {
		return nil, err
	}
	return imp.consumers, nil
}

// ingressesOf looks again at the MultiClusterIngresses of a namespace that name a service.
func (c *Controller) ingressesOf(k types.NamespacedName) {
	list, _ := c.ingresses.MultiClusterIngresses(k.Namespace).List(labels.Everything())
	for _, mci := range list {
		if slices.Contains(backendServices(&mci.Spec.Template.Spec), k.Name) {
			c.queue.Add(key{NamespacedName: types.NamespacedName{Namespace: mci.Namespace, Name: mci.Name}, Ingress: true})
		}
	}
}

// backendServices are the services an Ingress spec's backends name.
func backendServices(spec *networkingv1.IngressSpec) []string {
	var out []string
	eachBackend(spec, func(b *networkingv1.IngressBackend) {
		if b.Service != nil {
			out = append(out, b.Service.Name)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

func eachBackend(spec *networkingv1.IngressSpec, f func(*networkingv1.IngressBackend)) {
	if spec.DefaultBackend != nil {
		f(spec.DefaultBackend)
	}
	for i := range spec.Rules {
		if spec.Rules[i].HTTP == nil {
			continue
		}
		for j := range spec.Rules[i].HTTP.Paths {
			f(&spec.Rules[i].HTTP.Paths[j].Backend)
		}
	}
}

// reconcileIngress writes a MultiClusterIngress into every cluster that imports a service
// it names, its backends pointing at the derived Services there.
func (c *Controller) reconcileIngress(ctx context.Context, k types.NamespacedName) error {
	owner := k.String()
	mci, err := c.ingresses.MultiClusterIngresses(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) || err == nil && mci.DeletionTimestamp != nil {
		return c.works.Sync(ctx, federationv1alpha1.AnnotationMultiClusterIngress, owner, c.works.Owned(federationv1alpha1.AnnotationMultiClusterIngress, owner), nil)
	}
	if err != nil {
		return err
	}
	imported := map[string][]string{} // cluster → the services it imports
	for _, svc := range backendServices(&mci.Spec.Template.Spec) {
		consumers, err := c.consumersOf(types.NamespacedName{Namespace: k.Namespace, Name: svc})
		if err != nil {
			return err
		}
		for _, cl := range consumers {
			imported[cl] = append(imported[cl], svc)
		}
	}
	want := map[types.NamespacedName]federationv1alpha1.WorkSpec{}
	var clusters []string
	// A cluster under TrafficControl gets no Ingress while another one does.
	kept, withheld := c.trafficControlled(slices.Sorted(maps.Keys(imported)), func(string) bool { return true })
	for _, cl := range kept {
		services := imported[cl]
		ing := &networkingv1.Ingress{
			TypeMeta: metav1.TypeMeta{APIVersion: networkingv1.SchemeGroupVersion.String(), Kind: "Ingress"},
			ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name, Annotations: mci.Spec.Template.Metadata.Annotations,
				Labels: map[string]string{federationv1alpha1.LabelManaged: "true"}},
			Spec: *mci.Spec.Template.Spec.DeepCopy(),
		}
		for l, v := range mci.Spec.Template.Metadata.Labels {
			ing.Labels[l] = v
		}
		eachBackend(&ing.Spec, func(b *networkingv1.IngressBackend) {
			if b.Service != nil && slices.Contains(services, b.Service.Name) {
				b.Service.Name = federationv1alpha1.DerivedServiceName(b.Service.Name)
			}
		})
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ing)
		if err != nil {
			return err
		}
		delete(obj["metadata"].(map[string]any), "creationTimestamp")
		delete(obj, "status")
		spec, err := works.Spec(&unstructured.Unstructured{Object: obj})
		if err != nil {
			return err
		}
		want[types.NamespacedName{Namespace: federationv1alpha1.ExecutionNamespace(cl), Name: workName(k, "ingress")}] = spec
		clusters = append(clusters, cl)
	}
	if err := c.works.Sync(ctx, federationv1alpha1.AnnotationMultiClusterIngress, owner, c.works.Owned(federationv1alpha1.AnnotationMultiClusterIngress, owner), want); err != nil {
		return err
	}
	slices.Sort(clusters)
	status := mci.Status.DeepCopy()
	status.Clusters = clusters
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Written", ObservedGeneration: mci.Generation,
		Message: "written into " + strings.Join(clusters, ", ")}
	if len(withheld) > 0 {
		cond.Message += fmt.Sprintf("; not into %s: remedy action %s", strings.Join(withheld, ", "), clusterv1alpha1.TrafficControl)
	}
	if len(clusters) == 0 {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoConsumer",
			"no cluster imports the services its backends name ("+strings.Join(backendServices(&mci.Spec.Template.Spec), ", ")+")"
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	if apiequality.Semantic.DeepEqual(status, &mci.Status) {
		return nil
	}
	u := mci.DeepCopy()
	u.Status = *status
	_, err = c.fed.FederationV1alpha1().MultiClusterIngresses(k.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
