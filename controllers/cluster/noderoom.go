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

package cluster

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/fedhq/fed/controllers/internal/noderoom"
)

// nodeRoom is the per-node picture of a member for the scheduler, from the nodes and the
// not terminated pods one probe read: each Ready node that is not cordoned
// (spec.unschedulable), with its labels, its taints and its allocatable less the requests
// of the pods bound to it (podRequests, as the resource summary counts them); "pods" less
// one for each of those pods when the node reports a "pods" allocatable. Nodes come in
// name order.
func nodeRoom(nodes []corev1.Node, pods []corev1.Pod) []noderoom.Node {
	used := map[string]corev1.ResourceList{}
	bound := map[string]int64{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if used[p.Spec.NodeName] == nil {
			used[p.Spec.NodeName] = corev1.ResourceList{}
		}
		addResources(used[p.Spec.NodeName], podRequests(p))
		bound[p.Spec.NodeName]++
	}
	out := []noderoom.Node{}
	for i := range nodes {
		n := &nodes[i]
		if !nodeReady(n) || n.Spec.Unschedulable {
			continue
		}
		free := corev1.ResourceList{}
		for name, q := range n.Status.Allocatable {
			q = q.DeepCopy()
			if name == corev1.ResourcePods {
				q.Sub(*resource.NewQuantity(bound[n.Name], resource.DecimalSI))
			} else {
				q.Sub(used[n.Name][name])
			}
			free[name] = q
		}
		out = append(out, noderoom.Node{Name: n.Name, Labels: n.Labels, Taints: n.Spec.Taints, Free: free})
	}
	slices.SortFunc(out, func(a, b noderoom.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}
