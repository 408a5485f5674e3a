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

// Package works is the controllers' one view of the Works: the informer's, indexed by the
// binding each Work belongs to, and the Works fed wrote itself until the informer has them,
// so that the controller that applies a Work and the one that writes its status each read
// what the other has just written.
package works

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/mutation"
)

// byBinding indexes Works by the binding they belong to (AnnotationBinding).
const byBinding = "binding"

// byOwner indexes Works by the object other than a binding they belong to:
// "<annotation>=<owner>" for each of ownerAnnotations (Owned).
const byOwner = "owner"

// ownerAnnotations name the objects other than bindings that Works are made for.
var ownerAnnotations = []string{federationv1alpha1.AnnotationMultiClusterService, federationv1alpha1.AnnotationMultiClusterIngress,
	federationv1alpha1.AnnotationFederatedResourceQuota}

// Access reads Works, and writes them with fed's client (write.go).
type Access struct {
	fed      versioned.Interface
	informer cache.SharedIndexInformer
	written  *mutation.Cache
}

// New returns the view of the Works of an informer, which writes with fed.
func New(fed versioned.Interface, works fedinformers.WorkInformer) (*Access, error) {
	inf := works.Informer()
	if err := inf.AddIndexers(cache.Indexers{byBinding: func(obj any) ([]string, error) {
		if w, ok := obj.(*federationv1alpha1.Work); ok && w.Annotations[federationv1alpha1.AnnotationBinding] != "" {
			return []string{w.Annotations[federationv1alpha1.AnnotationBinding]}, nil
		}
		return nil, nil
	}, byOwner: func(obj any) ([]string, error) {
		w, ok := obj.(*federationv1alpha1.Work)
		if !ok {
			return nil, nil
		}
		var keys []string
		for _, a := range ownerAnnotations {
			if owner := w.Annotations[a]; owner != "" {
				keys = append(keys, a+"="+owner)
			}
		}
		return keys, nil
	}}); err != nil {
		return nil, err
	}
	a := &Access{fed: fed, informer: inf, written: mutation.New(inf)}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.written.Observe(obj, false) },
		UpdateFunc: func(_, obj any) { a.written.Observe(obj, false) },
		DeleteFunc: func(obj any) { a.written.Observe(obj, true) },
	}); err != nil {
		return nil, err
	}
	return a, nil
}

// Informer is the Works' informer, for event handlers.
func (a *Access) Informer() cache.SharedIndexInformer { return a.informer }

// Get returns a Work, the one fed last wrote when the informer has not caught up; nil when
// there is none.
func (a *Access) Get(k types.NamespacedName) (*federationv1alpha1.Work, error) {
	obj, exists, err := a.written.GetByKey(k.String())
	if err != nil || !exists {
		return nil, err
	}
	return obj.(*federationv1alpha1.Work), nil
}

// Wrote records a Work fed just wrote.
func (a *Access) Wrote(w *federationv1alpha1.Work) { a.written.Wrote(w) }

// OfBinding returns the Works of a binding by cluster, each the one fed last wrote when the
// informer has not caught up: compared with an older copy, a spec that changed back to
// what that copy holds (an OverridePolicy for a cluster made, then changed away from it
// half a second later) read as written, and the Work kept the override (the fault
// campaign's seed 31337).
func (a *Access) OfBinding(bindingNamespace, bindingName string) (map[string]*federationv1alpha1.Work, error) {
	objs, err := a.written.ByIndex(byBinding, federationv1alpha1.BindingKey(bindingNamespace, bindingName))
	if err != nil {
		return nil, err
	}
	out := map[string]*federationv1alpha1.Work{}
	for _, obj := range objs {
		w := obj.(*federationv1alpha1.Work)
		if cluster, ok := strings.CutPrefix(w.Namespace, federationv1alpha1.ExecutionNamespacePrefix); ok {
			out[cluster] = w
		}
	}
	return out, nil
}

// List returns the Works of an execution namespace the informer has (the ones fed wrote
// since, where newer).
func (a *Access) List(namespace string) []*federationv1alpha1.Work {
	objs, _ := a.written.ByIndex(cache.NamespaceIndex, namespace)
	out := make([]*federationv1alpha1.Work, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.(*federationv1alpha1.Work))
	}
	return out
}

// AppliedFor tells whether a Work has been applied, as of its current generation, as
// written for replicas (its federation.fedhq.io/replicas; 0 does not compare): whether
// the member has what the binding now says for that cluster.
func AppliedFor(w *federationv1alpha1.Work, replicas int32) bool {
	if w == nil || w.DeletionTimestamp != nil || len(w.Spec.Workload.Manifests) == 0 {
		return false
	}
	applied := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
	if applied == nil || applied.Status != metav1.ConditionTrue || applied.ObservedGeneration != w.Generation {
		return false
	}
	return replicas == 0 || w.Annotations[federationv1alpha1.AnnotationReplicas] == strconv.Itoa(int(replicas))
}

// BindingOf returns the namespace (empty for a ClusterResourceBinding) and name of the
// binding a Work belongs to; ok is false for a Work of no binding.
func BindingOf(w *federationv1alpha1.Work) (namespace, name string, ok bool) {
	key := w.Annotations[federationv1alpha1.AnnotationBinding]
	if key == "" {
		return "", "", false
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	return namespace, name, err == nil
}
