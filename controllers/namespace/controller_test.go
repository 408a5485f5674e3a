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

package namespace

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
)

// TestSetFinalizerRemovesFromStaleCopy: the cleanup finalizer goes though the Cluster read
// is older than the stored one (its status written since, as a leaving member's is at every
// probe), and the other finalizers stay; added, a stale copy is refused.
func TestSetFinalizerRemovesFromStaleCopy(t *testing.T) {
	ctx := context.Background()
	stored := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member3", ResourceVersion: "7",
		Finalizers: []string{"example.com/other", clusterv1alpha1.FinalizerCleanup}}}
	fed := fake.NewSimpleClientset(stored)
	c := &Controller{fed: fed}
	read := stored.DeepCopy()
	read.ResourceVersion = "5"
	if err := c.setFinalizer(ctx, read, false); err != nil {
		t.Fatalf("removing the finalizer: %v", err)
	}
	got, err := fed.ClusterV1alpha1().Clusters().Get(ctx, "member3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Finalizers, []string{"example.com/other"}) {
		t.Errorf("finalizers %v, want only example.com/other", got.Finalizers)
	}
	// Removed already: nothing to do.
	if err := c.setFinalizer(ctx, got, false); err != nil {
		t.Errorf("removing it again: %v", err)
	}
	stale := got.DeepCopy()
	stale.ResourceVersion = "5"
	if err := c.setFinalizer(ctx, stale, true); err == nil {
		t.Error("adding it to a stale copy: no error, want the resourceVersion test to fail")
	}
}
