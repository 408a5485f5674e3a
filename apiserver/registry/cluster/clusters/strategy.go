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

// Package clusters stores the member clusters of the fleet,
// clusters.cluster.fedhq.io, and their status subresource.
package clusters

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/cluster"
	"github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// Strategy creates, updates and deletes Clusters.
var Strategy = registrykit.NewStrategy(registrykit.Hooks[*cluster.Cluster]{
	GroupVersion: v1alpha1.SchemeGroupVersion,
	New:          func() *cluster.Cluster { return &cluster.Cluster{} },
	Parts:        func(c *cluster.Cluster) (spec, status any) { return &c.Spec, &c.Status },
	Prepare:      stampNoExecute,

	Validate:             validation.ValidateCluster,
	ValidateUpdate:       validation.ValidateClusterUpdate,
	ValidateStatusUpdate: validation.ValidateClusterStatusUpdate,
})

// StatusStrategy writes the status of Clusters.
var StatusStrategy = Strategy.StatusStrategy()

// stampNoExecute gives each NoExecute taint without a TimeAdded the time it was
// first stored, keeping the time of one that was already there: the
// tolerationSeconds of a placement count from it. (kubectl fed taint sets it
// itself; a taint written by kubectl edit or apply may not.)
func stampNoExecute(c, old *cluster.Cluster) {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	for i := range c.Spec.Taints {
		t := &c.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoExecute || t.TimeAdded != nil {
			continue
		}
		t.TimeAdded = &now
		if old == nil {
			continue
		}
		for _, o := range old.Spec.Taints {
			if o.Key == t.Key && o.Value == t.Value && o.Effect == t.Effect && o.TimeAdded != nil {
				t.TimeAdded = o.TimeAdded.DeepCopy()
			}
		}
	}
}
