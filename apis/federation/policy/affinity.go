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

package policy

import (
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// The fields of a Cluster a field selector can name.
const (
	FieldProvider = "provider"
	FieldRegion   = "region"
	FieldZone     = "zone"
)

// MatchesAffinity tells whether a cluster is one a ClusterAffinity selects: not excluded,
// among clusterNames when they are given, and matching the label and field selectors.
// A nil affinity selects every cluster. An invalid selector selects none and says why.
func MatchesAffinity(c *clusterv1alpha1.Cluster, a *federationv1alpha1.ClusterAffinity) (bool, error) {
	m, err := NewAffinityMatcher(a)
	if err != nil {
		return false, err
	}
	return m.Matches(c)
}

// AffinityMatcher is a ClusterAffinity with its label selector parsed, so that matching
// many clusters parses it once.
type AffinityMatcher struct {
	affinity *federationv1alpha1.ClusterAffinity
	selector labels.Selector
}

func NewAffinityMatcher(a *federationv1alpha1.ClusterAffinity) (*AffinityMatcher, error) {
	m := &AffinityMatcher{affinity: a}
	if a != nil && a.LabelSelector != nil {
		selector, err := metav1.LabelSelectorAsSelector(a.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("clusterAffinity.labelSelector: %w", err)
		}
		m.selector = selector
	}
	return m, nil
}

func (m *AffinityMatcher) Matches(c *clusterv1alpha1.Cluster) (bool, error) {
	a := m.affinity
	if a == nil {
		return true, nil
	}
	if slices.Contains(a.ExcludeClusters, c.Name) {
		return false, nil
	}
	if len(a.ClusterNames) > 0 && !slices.Contains(a.ClusterNames, c.Name) {
		return false, nil
	}
	if m.selector != nil && !m.selector.Matches(labels.Set(c.Labels)) {
		return false, nil
	}
	if a.FieldSelector != nil {
		for _, req := range a.FieldSelector.MatchExpressions {
			ok, err := matchesField(c, req)
			if err != nil || !ok {
				return false, err
			}
		}
	}
	return true, nil
}

// matchesField evaluates one requirement of a field selector: provider, region or zone,
// with In or NotIn.
func matchesField(c *clusterv1alpha1.Cluster, req corev1.NodeSelectorRequirement) (bool, error) {
	var value string
	switch req.Key {
	case FieldProvider:
		value = c.Spec.Provider
	case FieldRegion:
		value = c.Spec.Region
	case FieldZone:
		value = c.Spec.Zone
	default:
		return false, fmt.Errorf("clusterAffinity.fieldSelector: key %q is not one of provider, region, zone", req.Key)
	}
	switch req.Operator {
	case corev1.NodeSelectorOpIn:
		return slices.Contains(req.Values, value), nil
	case corev1.NodeSelectorOpNotIn:
		return !slices.Contains(req.Values, value), nil
	}
	return false, fmt.Errorf("clusterAffinity.fieldSelector: operator %q of key %q is not In or NotIn", req.Operator, req.Key)
}

// Tolerates tells whether tolerations tolerate every taint of a cluster with one of the
// given effects, matching as Kubernetes matches pods' tolerations (Exists/Equal, an empty
// effect tolerating all effects, an empty key with Exists tolerating everything).
func Tolerates(taints []corev1.Taint, tolerations []corev1.Toleration, effects ...corev1.TaintEffect) bool {
	for i := range taints {
		taint := &taints[i]
		if !slices.Contains(effects, taint.Effect) {
			continue
		}
		if !slices.ContainsFunc(tolerations, func(t corev1.Toleration) bool { return t.ToleratesTaint(klog.Background(), taint, false) }) {
			return false
		}
	}
	return true
}

// NoExecute says whether a cluster's NoExecute taints evict a workload with tolerations
// at now, matching as Tolerates does and honouring tolerationSeconds as Kubernetes does
// for pods: a taint no toleration matches evicts at once; one tolerated with
// tolerationSeconds evicts once that long has passed since the taint's TimeAdded (the
// longest of the matching tolerations counts; a negative one is zero); one tolerated
// without it never does. When the workload is not evicted yet, next is when it will be
// (zero when never). A taint without TimeAdded (fed's API server stamps every NoExecute
// taint it stores) counts from now.
func NoExecute(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) (evicted bool, next time.Time, taint *corev1.Taint) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		forever, longest, matched := false, int64(0), false
		for _, tol := range tolerations {
			if !tol.ToleratesTaint(klog.Background(), t, false) {
				continue
			}
			matched = true
			if tol.TolerationSeconds == nil {
				forever = true
				break
			}
			longest = max(longest, *tol.TolerationSeconds)
		}
		if forever || longest > maxTolerationSeconds {
			continue // longer than a Duration holds: as good as forever
		}
		if !matched {
			return true, time.Time{}, t
		}
		added := now
		if t.TimeAdded != nil {
			added = t.TimeAdded.Time
		}
		at := added.Add(time.Duration(longest) * time.Second)
		if !at.After(now) {
			return true, time.Time{}, t
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return false, next, nil
}

// maxTolerationSeconds is the longest toleration a time.Duration can count.
const maxTolerationSeconds = int64(math.MaxInt64 / time.Second)

// DividedByRoom tells whether a placement divides replicas by the clusters' room:
// Divided with dynamicWeight AvailableReplicas, or Aggregated. These are the workloads
// whose replicas the descheduler and the rebalancer move; static weights and Duplicated
// say where replicas go whatever the room.
func DividedByRoom(p *federationv1alpha1.Placement) bool {
	if p == nil || p.ReplicaScheduling == nil {
		return false
	}
	rs := p.ReplicaScheduling
	if rs.ReplicaSchedulingType != federationv1alpha1.ReplicaSchedulingTypeDivided {
		return false
	}
	return rs.ReplicaDivisionPreference == federationv1alpha1.ReplicaDivisionPreferenceAggregated ||
		rs.DynamicWeight != "" || rs.WeightPreference != nil && rs.WeightPreference.DynamicWeight != ""
}
