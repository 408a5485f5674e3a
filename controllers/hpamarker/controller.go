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

// Package hpamarker keeps the workload templates that a HorizontalPodAutoscaler template
// in the fleet targets marked LabelRetainReplicas, so that fed applies them to the members
// without replicas and does not fight the HPA that propagation puts beside them in each
// member. It removes only the marks it made (AnnotationRetainReplicasFor names the HPAs),
// so a label a user set stays.
package hpamarker

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
)

// hpas is the fleet's HorizontalPodAutoscaler templates.
var hpas = autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers")

// workloads are the kinds whose templates an HPA may have been marked on.
var workloads = []schema.GroupVersionResource{
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
}

// target is a workload template an HPA template names.
type target struct {
	Namespace, APIVersion, Kind, Name string
}

// Controller keeps the marks.
type Controller struct {
	templates *templates.Templates
	queue     workqueue.TypedRateLimitingInterface[target]
}

// NewController returns the controller; Run starts it.
func NewController(tmpls *templates.Templates) *Controller {
	c := &Controller{templates: tmpls, queue: reconciler.NewQueue[target]("hpamarker")}
	tmpls.AddHandler(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
		if gvr != hpas {
			return
		}
		if t, ok := targetOf(obj); ok {
			c.queue.Add(t)
		}
		// An HPA whose target changed, or that is gone, leaves a mark on the old target:
		// the templates it marked are looked at again too.
		for _, t := range c.markedFor(obj.GetNamespace(), obj.GetName()) {
			c.queue.Add(t)
		}
	})
	return c
}

// Run keeps the marks with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	synced := []cache.InformerSynced{}
	for _, gvr := range append([]schema.GroupVersionResource{hpas}, workloads...) {
		inf := c.templates.Watch(gvr)
		if inf == nil {
			return
		}
		synced = append(synced, inf.HasSynced)
	}
	reconciler.Run(ctx, c.queue, workers, synced, "Marking the target of an HPA template", c.reconcile)
}

// targetOf is the workload an HPA template scales.
func targetOf(obj *unstructured.Unstructured) (target, bool) {
	var hpa autoscalingv2.HorizontalPodAutoscaler
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &hpa); err != nil || hpa.Spec.ScaleTargetRef.Name == "" {
		return target{}, false
	}
	ref := hpa.Spec.ScaleTargetRef
	return target{Namespace: obj.GetNamespace(), APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name}, true
}

// markedFor are the workload templates fed marked for the HPA namespace/name.
func (c *Controller) markedFor(namespace, name string) []target {
	var out []target
	for _, gvr := range workloads {
		gvk, err := c.templates.Kind(gvr)
		if err != nil {
			continue // the fleet does not serve it: no template of it
		}
		for _, obj := range c.templates.ListMeta(gvr) {
			if obj.GetNamespace() == namespace && slices.Contains(markedBy(obj), name) {
				out = append(out, target{Namespace: namespace, APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: obj.GetName()})
			}
		}
	}
	return out
}

// markedBy are the HPAs fed marked a template for.
func markedBy(obj metav1.Object) []string {
	v := obj.GetAnnotations()[federationv1alpha1.AnnotationRetainReplicasFor]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

func (c *Controller) reconcile(ctx context.Context, t target) error {
	// The HPA templates that name t now.
	var names []string
	for _, obj := range c.templates.List(hpas) {
		if got, ok := targetOf(obj); ok && got == t {
			names = append(names, obj.GetName())
		}
	}
	slices.Sort(names)
	gvr, _, err := c.templates.Resource(t.APIVersion, t.Kind)
	if err != nil {
		return nil // a kind the fleet does not serve: nothing to mark
	}
	tmpl, err := c.templates.Get(gvr, t.Namespace, t.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	had := markedBy(tmpl)
	labelSet := tmpl.GetLabels()[federationv1alpha1.LabelRetainReplicas] == "true"
	var patch map[string]any
	switch {
	case len(names) > 0 && (!slices.Equal(had, names) || !labelSet):
		patch = map[string]any{"metadata": map[string]any{
			"labels":      map[string]any{federationv1alpha1.LabelRetainReplicas: "true"},
			"annotations": map[string]any{federationv1alpha1.AnnotationRetainReplicasFor: strings.Join(names, ",")},
		}}
	case len(names) == 0 && len(had) > 0:
		// Only the mark fed made goes.
		patch = map[string]any{"metadata": map[string]any{
			"labels":      map[string]any{federationv1alpha1.LabelRetainReplicas: nil},
			"annotations": map[string]any{federationv1alpha1.AnnotationRetainReplicasFor: nil},
		}}
	default:
		return nil
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.templates.Client.Resource(gvr).Namespace(t.Namespace).Patch(ctx, t.Name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: "fed-hpa-marker"})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
