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

package scheduler

import (
	"slices"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
)

// Workload affinity (a placement's workloadAffinity): the detector writes the groups a
// template is in on its binding (spec.workloadAffinityGroups); the scheduler reads where
// the other bindings of each group, in the same namespace, are placed. The bindings of a
// group are scheduled one at a time (lockGroups, held until the binding is written), so
// two of an anti-affinity group scheduled at once cannot both take the same cluster, nor
// two of an affinity group each start the group somewhere else. A binding of a group that
// is placed elsewhere, or goes, has the others of its groups scheduled again
// (groupChanged): those of an affinity group follow it, and one an anti-affinity group
// held back may take the cluster it left.

// groupsOf is a binding's workload affinity groups when its placement asks for them.
func groupsOf(spec *federationv1alpha1.ResourceBindingSpec) *federationv1alpha1.WorkloadAffinityGroups {
	if spec.Placement == nil || spec.Placement.WorkloadAffinity == nil {
		return nil
	}
	return spec.WorkloadAffinityGroups
}

// peers calls f with each other binding of k's namespace that is in a group of g, with
// its groups.
func (c *Controller) peers(k key, g *federationv1alpha1.WorkloadAffinityGroups,
	f func(m metav1.Object, spec *federationv1alpha1.ResourceBindingSpec, og *federationv1alpha1.WorkloadAffinityGroups, other key)) {
	for _, other := range c.bindings.Keys(k.Namespace) {
		if other == k || other.Namespace != k.Namespace {
			continue
		}
		m, spec, err := c.bindings.Peek(other)
		if err != nil {
			continue
		}
		if og := groupsOf(spec); og != nil && (g.AffinityGroup != "" && og.AffinityGroup == g.AffinityGroup ||
			g.AntiAffinityGroup != "" && og.AntiAffinityGroup == g.AntiAffinityGroup) {
			f(m, spec, og, other)
		}
	}
}

// groupClusters are the clusters the other bindings of k's groups are placed on: those of
// its affinity group made before it (nil when none is placed), and those of its
// anti-affinity group. The oldest binding of an affinity group leads: it is placed as its
// placement says, and may move (a failover) without the others holding it back; each
// later one follows those before it.
func (c *Controller) groupClusters(k key, self metav1.Object, g *federationv1alpha1.WorkloadAffinityGroups) (together, apart []string) {
	c.peers(k, g, func(m metav1.Object, spec *federationv1alpha1.ResourceBindingSpec, og *federationv1alpha1.WorkloadAffinityGroups, _ key) {
		if m.GetDeletionTimestamp() != nil {
			return
		}
		older := before(m, self)
		for _, t := range spec.Clusters {
			if older && g.AffinityGroup != "" && og.AffinityGroup == g.AffinityGroup && !slices.Contains(together, t.Name) {
				together = append(together, t.Name)
			}
			if g.AntiAffinityGroup != "" && og.AntiAffinityGroup == g.AntiAffinityGroup && !slices.Contains(apart, t.Name) {
				apart = append(apart, t.Name)
			}
		}
	})
	return together, apart
}

// before tells whether binding a was made before b (by name when in the same second).
func before(a, b metav1.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// lockGroups takes the scheduling locks of a binding's groups in namespace, in name order,
// and returns their release.
func (c *Controller) lockGroups(namespace string, g *federationv1alpha1.WorkloadAffinityGroups) func() {
	var names []string
	if g.AffinityGroup != "" {
		names = append(names, namespace+"/affinity/"+g.AffinityGroup)
	}
	if g.AntiAffinityGroup != "" {
		names = append(names, namespace+"/anti-affinity/"+g.AntiAffinityGroup)
	}
	slices.Sort(names)
	locked := make([]*sync.Mutex, 0, len(names))
	for _, n := range names {
		mu, _ := c.groups.LoadOrStore(n, &sync.Mutex{})
		mu.(*sync.Mutex).Lock()
		locked = append(locked, mu.(*sync.Mutex))
	}
	return func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].Unlock()
		}
	}
}

// groupChanged schedules again the other bindings of the groups of a binding that was
// placed elsewhere (old and obj differ in spec.clusters) or went (old nil).
func (c *Controller) groupChanged(old, obj any) {
	k, spec, ok := bindings.Of(obj)
	if !ok {
		return
	}
	g := groupsOf(spec)
	if g == nil {
		return
	}
	if old != nil {
		if _, was, ok := bindings.Of(old); ok && apiequality.Semantic.DeepEqual(was.Clusters, spec.Clusters) {
			return
		}
	}
	c.peers(k, g, func(_ metav1.Object, _ *federationv1alpha1.ResourceBindingSpec, _ *federationv1alpha1.WorkloadAffinityGroups, other key) {
		c.queue.Add(other)
	})
}
