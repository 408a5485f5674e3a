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
	"slices"

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
