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
	"bytes"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/noderoom"
)

// assumeTTL is how long the scheduler assumes at most that replicas it placed in a member
// take room there that the member's picture does not show: pods that stay Pending (the
// member had no room after all) or a kind whose health fed cannot tell never show as
// running.
const assumeTTL = 5 * time.Minute

// assumed is the room the scheduler placed replicas in that the members' pictures do not
// show yet: a probe counts a pod once it is bound to a node, seconds after fed's write,
// and the bindings scheduled in between would all see the room the first took. Each
// cluster's picture is read less what is assumed in it. An assumption of a binding in a
// cluster goes once the binding's status tells of its workload running there (Healthy,
// in a status that changed since the assumption) and a probe that began after that has
// read the member; or after assumeTTL; or when the binding takes the replicas away or
// goes. It is memory only: after a restart the pictures stand alone.
type assumed struct {
	mu        sync.Mutex
	now       func() time.Time
	bindings  map[key]map[string]*assumption // by binding, then cluster
	deduction map[string]*deduction          // by cluster, dropped when its assumptions change
}

// assumption is room assumed for some replicas of one binding in one cluster: of its one
// pod template, or of each of its components (a multi-component workload, placed whole).
type assumption struct {
	parts []part
	at    time.Time // when the replicas were placed (the last that grew it)
	// status is the binding's status of the cluster when the replicas were placed: one
	// that says Healthy tells of them running only once it changed.
	status []byte
	// running is when the binding's status told of the replicas running; zero before.
	running time.Time
}

// part is some replicas of one pod template, with what one of them needs.
type part struct {
	replicas int64
	estimate *nodeEstimate
}

// partsOf are the components of a multi-component workload as parts.
func partsOf(components []federationv1alpha1.Component) []part {
	out := make([]part, len(components))
	for i, c := range components {
		out[i] = part{replicas: int64(c.Replicas), estimate: newNodeEstimate(c.ReplicaRequirements)}
	}
	return out
}

// deduction is a cluster's picture, read at read, less its assumptions: kept until a new
// picture comes or the assumptions change.
type deduction struct {
	read  time.Time
	nodes []noderoom.Node
}

func newAssumed() *assumed {
	return &assumed{now: time.Now, bindings: map[key]map[string]*assumption{}, deduction: map[string]*deduction{}}
}

// changed drops what was deducted from a cluster's picture: its assumptions changed.
// Called with mu held.
func (a *assumed) changed(cluster string) { delete(a.deduction, cluster) }

// place records that a binding's placement goes from before to after: the replicas a
// cluster gains are assumed there, those it loses no longer are. It returns what undoes
// it (the write of the placement failed).
func (a *assumed) place(k key, before, after []federationv1alpha1.TargetCluster, estimate *nodeEstimate,
	status []federationv1alpha1.AggregatedStatusItem) (undo func()) {
	return a.record(k, before, after, []part{{estimate: estimate}}, false, status)
}

// placeWhole records that a multi-component workload's placement goes from before to
// after: a cluster it newly goes to has all of its components assumed, one it leaves
// none.
func (a *assumed) placeWhole(k key, before, after []federationv1alpha1.TargetCluster, components []federationv1alpha1.Component,
	status []federationv1alpha1.AggregatedStatusItem) (undo func()) {
	return a.record(k, before, after, partsOf(components), true, status)
}

// record is place and placeWhole: parts are the workload's one pod template (replicas
// from the placement) or its components (whole, as they are).
func (a *assumed) record(k key, before, after []federationv1alpha1.TargetCluster, parts []part, whole bool,
	status []federationv1alpha1.AggregatedStatusItem) (undo func()) {
	if a == nil {
		return func() {}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	count := func(t federationv1alpha1.TargetCluster) int64 {
		if whole {
			return 1 // one set of the components
		}
		return int64(t.Replicas)
	}
	old := map[string]int64{}
	for _, t := range before {
		old[t.Name] = count(t)
	}
	now := map[string]int64{}
	for _, t := range after {
		now[t.Name] = count(t)
	}
	mine := a.bindings[k]
	saved := map[string]*assumption{}
	for name, as := range mine {
		c := *as
		c.parts = slices.Clone(as.parts)
		saved[name] = &c
	}
	for name := range mergeKeys(old, now) {
		gained := now[name] - old[name]
		as := mine[name]
		switch {
		case now[name] == 0:
			if as == nil {
				continue
			}
			delete(mine, name)
		case gained > 0:
			if mine == nil {
				mine = map[string]*assumption{}
				a.bindings[k] = mine
			}
			if as == nil {
				as = &assumption{}
				mine[name] = as
			}
			if whole {
				as.parts = parts
			} else {
				var had int64
				if len(as.parts) == 1 {
					had = as.parts[0].replicas
				}
				as.parts = []part{{replicas: min(had+gained, now[name]), estimate: parts[0].estimate}}
			}
			as.at, as.running, as.status = a.now(), time.Time{}, statusOf(status, name)
		case gained < 0 && as != nil && !whole:
			if as.parts[0].replicas += gained; as.parts[0].replicas <= 0 {
				delete(mine, name)
			}
		default:
			continue
		}
		a.changed(name)
	}
	if len(mine) == 0 {
		delete(a.bindings, k)
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for name := range a.bindings[k] {
			a.changed(name)
		}
		for name := range saved {
			a.changed(name)
		}
		if len(saved) == 0 {
			delete(a.bindings, k)
		} else {
			a.bindings[k] = saved
		}
	}
}

func mergeKeys(a, b map[string]int64) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for n := range a {
		out[n] = true
	}
	for n := range b {
		out[n] = true
	}
	return out
}

// statusOf is a binding's reported status of one cluster's object, nil when there is none.
func statusOf(items []federationv1alpha1.AggregatedStatusItem, cluster string) []byte {
	for _, it := range items {
		if it.ClusterName == cluster && it.Status != nil {
			return it.Status.Raw
		}
	}
	return nil
}

// observe reads a binding's status: a cluster whose object reports Healthy, in a status
// other than when its replicas were assumed, runs them from now on.
func (a *assumed) observe(k key, items []federationv1alpha1.AggregatedStatusItem) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, as := range a.bindings[k] {
		if !as.running.IsZero() {
			continue
		}
		for _, it := range items {
			if it.ClusterName == name && it.Health == federationv1alpha1.ResourceHealthy && it.Applied &&
				(it.Status == nil || !bytes.Equal(it.Status.Raw, as.status)) {
				as.running = a.now()
			}
		}
	}
}

// forget drops the assumptions of a binding that went.
func (a *assumed) forget(k key) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for name := range a.bindings[k] {
		a.changed(name)
	}
	delete(a.bindings, k)
}

// nodes returns a cluster's picture less what is assumed in it. Assumptions the picture
// has caught up with (read after their replicas ran) or older than assumeTTL go first.
// Assumed replicas take the first nodes they may run on and fit on, in name order; those
// that fit nowhere take nothing (the member is full).
func (a *assumed) nodes(cluster string, p noderoom.Picture) []noderoom.Node {
	if a == nil {
		return p.Nodes
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	var in []*assumption
	var keys []key
	for k, mine := range a.bindings {
		as := mine[cluster]
		if as == nil {
			continue
		}
		if (!as.running.IsZero() && p.Read.After(as.running)) || now.Sub(as.at) > assumeTTL {
			delete(mine, cluster)
			if len(mine) == 0 {
				delete(a.bindings, k)
			}
			a.changed(cluster)
			continue
		}
		in, keys = append(in, as), append(keys, k)
	}
	if len(in) == 0 {
		return p.Nodes
	}
	if d := a.deduction[cluster]; d != nil && d.read.Equal(p.Read) {
		return d.nodes
	}
	// The same order at each computation: by when they were placed, then by binding.
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		if c := in[i].at.Compare(in[j].at); c != 0 {
			return c
		}
		if c := strings.Compare(keys[i].Namespace, keys[j].Namespace); c != 0 {
			return c
		}
		return strings.Compare(keys[i].Name, keys[j].Name)
	})
	nodes := clone(p.Nodes)
	for _, i := range order {
		for _, pt := range in[i].parts {
			take(nodes, pt.estimate, pt.replicas)
		}
	}
	a.deduction[cluster] = &deduction{read: p.Read, nodes: nodes}
	return nodes
}

// clone copies nodes with what is free on each, for take to change.
func clone(nodes []noderoom.Node) []noderoom.Node {
	out := make([]noderoom.Node, len(nodes))
	for i, n := range nodes {
		n.Free = n.Free.DeepCopy()
		out[i] = n
	}
	return out
}

// take deducts replicas of one workload from the free room of the nodes they may run on,
// the first nodes first, each as full as they fit: its requests and a pod each. It
// returns how many fit nowhere.
func take(nodes []noderoom.Node, e *nodeEstimate, replicas int64) int64 {
	one := resource.NewQuantity(1, resource.DecimalSI)
	for i := range nodes {
		if replicas == 0 {
			return 0
		}
		n := &nodes[i]
		if !e.admits(n) {
			continue
		}
		fit := e.onNode(n)
		if _, counted := n.Free[corev1.ResourcePods]; counted {
			fit = min(fit, fitsFree(n.Free, corev1.ResourcePods, *one))
		}
		k := min(fit, replicas)
		if k <= 0 {
			continue
		}
		for name, per := range e.request {
			if name == corev1.ResourcePods || per.Sign() <= 0 {
				continue
			}
			if free, ok := n.Free[name]; ok {
				used := per.DeepCopy()
				used.Mul(k)
				free.Sub(used)
				n.Free[name] = free
			}
		}
		if free, ok := n.Free[corev1.ResourcePods]; ok {
			free.Sub(*resource.NewQuantity(k, resource.DecimalSI))
			n.Free[corev1.ResourcePods] = free
		}
		replicas -= k
	}
	return replicas
}
