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

package clusters

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestStrategy(t *testing.T) {
	registrytest.CheckStrategy(t, Strategy, registrytest.Cluster())
}

func TestColumns(t *testing.T) {
	registrytest.CheckColumns(t, columns, registrytest.Cluster())
}

func TestNoExecuteTaintsGetTimeAdded(t *testing.T) {
	ctx := context.Background()
	added := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c := registrytest.Cluster().Valid()
	c.Spec.Taints = []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}, {Key: "b", Effect: corev1.TaintEffectNoSchedule},
		{Key: "c", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}
	Strategy.PrepareForCreate(ctx, c)
	if c.Spec.Taints[0].TimeAdded == nil || c.Spec.Taints[1].TimeAdded != nil || !c.Spec.Taints[2].TimeAdded.Equal(&added) {
		t.Fatalf("after create: %+v", c.Spec.Taints)
	}
	first := *c.Spec.Taints[0].TimeAdded
	// An update that leaves TimeAdded out (kubectl apply of the same taint) keeps the first
	// time; a new NoExecute taint gets its own.
	updated := c.DeepCopy()
	updated.Spec.Taints = []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}, {Key: "d", Effect: corev1.TaintEffectNoExecute}}
	Strategy.PrepareForUpdate(ctx, updated, c)
	if !updated.Spec.Taints[0].TimeAdded.Equal(&first) || updated.Spec.Taints[1].TimeAdded == nil {
		t.Fatalf("after update: %+v", updated.Spec.Taints)
	}
}
