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

// Package bindings gives fed's controllers one view of ResourceBindings and
// ClusterResourceBindings, which share their spec and status but not their clients.
package bindings

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
)

// Key names a binding: a ResourceBinding when Namespace is set, a ClusterResourceBinding
// when it is empty.
type Key struct{ Namespace, Name string }

// Binding is a working copy of either kind of binding, to read and change, and write back.
type Binding struct {
	Meta   metav1.Object
	Spec   *federationv1alpha1.ResourceBindingSpec
	Status *federationv1alpha1.ResourceBindingStatus

	update, updateStatus func(context.Context) error
}

// Update writes the copy's spec and metadata; the copy then has the stored version.
func (b *Binding) Update(ctx context.Context) error { return b.update(ctx) }

// UpdateStatus writes the copy's status.
func (b *Binding) UpdateStatus(ctx context.Context) error { return b.updateStatus(ctx) }

// Access reads bindings from informers' listers and writes them with fed's client.
type Access struct {
	fed  versioned.Interface
	rbs  fedlisters.ResourceBindingLister
	crbs fedlisters.ClusterResourceBindingLister
}

// NewAccess returns an Access.
func NewAccess(fed versioned.Interface, rbs fedlisters.ResourceBindingLister, crbs fedlisters.ClusterResourceBindingLister) *Access {
	return &Access{fed: fed, rbs: rbs, crbs: crbs}
}

// Get returns a working copy of a binding, or the lister's NotFound error.
func (a *Access) Get(k Key) (*Binding, error) {
	bindings := a.fed.FederationV1alpha1()
	if k.Namespace != "" {
		cur, err := a.rbs.ResourceBindings(k.Namespace).Get(k.Name)
		if err != nil {
			return nil, err
		}
		b := cur.DeepCopy()
		client := bindings.ResourceBindings(k.Namespace)
		return &Binding{Meta: b, Spec: &b.Spec, Status: &b.Status,
			update: func(ctx context.Context) error {
				out, err := client.Update(ctx, b, metav1.UpdateOptions{})
				if err == nil {
					b.ObjectMeta, b.Status = out.ObjectMeta, out.Status
				}
				return err
			},
			updateStatus: func(ctx context.Context) error {
				_, err := client.UpdateStatus(ctx, b, metav1.UpdateOptions{})
				return err
			},
		}, nil
	}
	cur, err := a.crbs.Get(k.Name)
	if err != nil {
		return nil, err
	}
	b := cur.DeepCopy()
	client := bindings.ClusterResourceBindings()
	return &Binding{Meta: b, Spec: &b.Spec, Status: &b.Status,
		update: func(ctx context.Context) error {
			out, err := client.Update(ctx, b, metav1.UpdateOptions{})
			if err == nil {
				b.ObjectMeta, b.Status = out.ObjectMeta, out.Status
			}
			return err
		},
		updateStatus: func(ctx context.Context) error {
			_, err := client.UpdateStatus(ctx, b, metav1.UpdateOptions{})
			return err
		},
	}, nil
}

// Keys returns the keys of every binding, or of the ResourceBindings of one namespace.
func (a *Access) Keys(namespace string) []Key {
	var out []Key
	if rbs, err := a.rbs.ResourceBindings(namespace).List(labels.Everything()); err == nil {
		for _, b := range rbs {
			out = append(out, Key{Namespace: b.Namespace, Name: b.Name})
		}
	}
	if namespace != "" {
		return out
	}
	if crbs, err := a.crbs.List(labels.Everything()); err == nil {
		for _, b := range crbs {
			out = append(out, Key{Name: b.Name})
		}
	}
	return out
}
