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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/noderoom"
)

// available is how many more replicas a cluster can hold: Input.Available's estimate, or
// the cluster's resource summary's without one.
func (in *Input) available(c *clusterv1alpha1.Cluster) int64 {
	if in.Available != nil {
		return in.Available(c)
	}
	return AvailableReplicas(c, in.ResourceRequest)
}

// nodeAvailable is the controller's Input.Available for a binding's replica requirements:
// for a cluster rooms has a picture of, how many replicas fit on its nodes (see
// nodeEstimate) less what the scheduler assumed there (assumed nil: nothing); for one it
// has none of (fed just started and has not probed it yet, or a pull member whose tunnel
// is not open to this process), AvailableReplicas from the cluster's resource summary.
func nodeAvailable(rooms *noderoom.Store, assumed *assumed, rr *federationv1alpha1.ReplicaRequirements) func(*clusterv1alpha1.Cluster) int64 {
	e := newNodeEstimate(rr)
	return func(c *clusterv1alpha1.Cluster) int64 {
		picture, ok := rooms.Get(c.Name)
		if !ok {
			return AvailableReplicas(c, e.request)
		}
		return e.replicas(assumed.nodes(c.Name, picture))
	}
}

// nodeEstimate counts how many replicas of one workload fit on a member's nodes.
type nodeEstimate struct {
	request     corev1.ResourceList
	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []corev1.Toleration
}

func newNodeEstimate(rr *federationv1alpha1.ReplicaRequirements) *nodeEstimate {
	e := &nodeEstimate{affinity: nodeaffinity.NewRequiredNodeAffinity(nil, nil)}
	if rr == nil {
		return e
	}
	e.request = rr.ResourceRequest
	if claim := rr.NodeClaim; claim != nil {
		var affinity *corev1.Affinity
		if claim.HardNodeAffinity != nil {
			affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: claim.HardNodeAffinity}}
		}
		e.affinity = nodeaffinity.NewRequiredNodeAffinity(claim.NodeSelector, affinity)
		e.tolerations = claim.Tolerations
	}
	return e
}

// replicas is the sum over the nodes a replica may run on of how many fit on each: the
// least over the requested resources of what is free divided by the request, and one pod
// each when the node reports a "pods" allocatable. A workload that requests nothing fits
// without limit on any node it may run on, as AvailableReplicas says; a member with no
// such node holds none.
func (e *nodeEstimate) replicas(nodes []noderoom.Node) int64 {
	var out int64
	for i := range nodes {
		if e.admits(&nodes[i]) {
			out = min(out+e.onNode(&nodes[i]), Unlimited)
		}
	}
	return out
}

// admits tells whether a replica may run on a node: the node selector and the required
// node affinity match it, and the replica tolerates its NoSchedule and NoExecute taints,
// as kube-scheduler's NodeAffinity and TaintToleration filters decide (with
// k8s.io/component-helpers). A selector that cannot be parsed matches no node.
func (e *nodeEstimate) admits(n *noderoom.Node) bool {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
	if ok, err := e.affinity.Match(node); err != nil || !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Taints, e.tolerations, hardTaint, false)
	return !untolerated
}

func hardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// onNode is how many replicas fit in what is free on one node.
func (e *nodeEstimate) onNode(n *noderoom.Node) int64 {
	if !requestsAny(e.request) {
		return Unlimited
	}
	out := Unlimited
	for name, per := range e.request {
		if per.Sign() > 0 {
			out = min(out, fitsFree(n.Free, name, per))
		}
	}
	if _, listed := e.request[corev1.ResourcePods]; !listed {
		if _, counted := n.Free[corev1.ResourcePods]; counted {
			out = min(out, fitsFree(n.Free, corev1.ResourcePods, *resource.NewQuantity(1, resource.DecimalSI)))
		}
	}
	return out
}

// fitsFree is how many times per fits in what is free of one resource.
func fitsFree(free corev1.ResourceList, name corev1.ResourceName, per resource.Quantity) int64 {
	q, ok := free[name]
	if !ok || q.Sign() <= 0 {
		return 0
	}
	return min(quotient(q, per), Unlimited)
}

// maxSets is where counting the sets of components a cluster holds stops: enough to
// rank clusters, and it bounds the count for components that request nothing.
const maxSets = 100

// nodeSets is the controller's Input.Sets for a multi-component workload: for a cluster
// rooms has a picture of, how many whole sets of the components fit on its nodes, less
// what the scheduler assumed there, each set's pods placed first fit in node order (every
// replica of every component, where its node claim allows); for one without a picture,
// how many times the resource summary holds a set's requests together.
func nodeSets(rooms *noderoom.Store, assumed *assumed, components []federationv1alpha1.Component) func(*clusterv1alpha1.Cluster) int64 {
	parts := partsOf(components)
	set := corev1.ResourceList{}
	for _, c := range components {
		if c.ReplicaRequirements == nil {
			continue
		}
		for name, q := range c.ReplicaRequirements.ResourceRequest {
			q = q.DeepCopy()
			q.Mul(int64(c.Replicas))
			total := set[name]
			total.Add(q)
			set[name] = total
		}
	}
	return func(c *clusterv1alpha1.Cluster) int64 {
		picture, ok := rooms.Get(c.Name)
		if !ok {
			return min(AvailableReplicas(c, set), maxSets)
		}
		nodes := clone(assumed.nodes(c.Name, picture))
		for sets := int64(0); sets < maxSets; sets++ {
			for _, p := range parts {
				if take(nodes, p.estimate, p.replicas) > 0 {
					return sets
				}
			}
		}
		return maxSets
	}
}
