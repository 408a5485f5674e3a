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

// Package quota counts what the workloads of a namespace request across the fleet, as its
// FederatedResourceQuotas count it: the scheduler admits a placement against them, and the
// quota controller reports the use. A binding uses, for each resource a quota names, what
// one replica requests (its spec.replicaRequirements) times the replicas its clusters run
// (the sum of spec.clusters[].replicas; a duplicated workload's in each cluster); `pods`
// counts the replicas. `requests.<name>` counts as `<name>`.
package quota

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
)

// Quota is a FederatedResourceQuota as admission reads it: its name and spec.overall.
type Quota struct {
	Name    string
	Overall corev1.ResourceList
}

// Requested is the resource a quota's resource name counts: `requests.cpu` is `cpu`.
func Requested(name corev1.ResourceName) corev1.ResourceName {
	return corev1.ResourceName(strings.TrimPrefix(string(name), "requests."))
}

// Replicas is how many replicas clusters run in all.
func Replicas(clusters []federationv1alpha1.TargetCluster) int64 {
	var n int64
	for _, t := range clusters {
		n += int64(t.Replicas)
	}
	return n
}

// Usage is what replicas of a workload whose replicas each request requests use, for each
// resource of names: the quota's own names, `pods` the replicas.
func Usage(requests corev1.ResourceList, replicas int64, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, name := range names {
		r := Requested(name)
		if r == corev1.ResourcePods {
			out[name] = *resource.NewQuantity(replicas, resource.DecimalSI)
			continue
		}
		q, ok := requests[r]
		if !ok {
			out[name] = *resource.NewQuantity(0, resource.DecimalSI)
			continue
		}
		q = q.DeepCopy()
		q.Mul(replicas)
		out[name] = q
	}
	return out
}

// OfBinding is what a binding's scheduled clusters use of names: its replicas placed
// there, or, for a multi-component workload, each of its components in each cluster.
func OfBinding(spec *federationv1alpha1.ResourceBindingSpec, clusters []federationv1alpha1.TargetCluster, names []corev1.ResourceName) corev1.ResourceList {
	if len(spec.Components) > 0 {
		out := Usage(nil, 0, names)
		for _, c := range spec.Components {
			var requests corev1.ResourceList
			if c.ReplicaRequirements != nil {
				requests = c.ReplicaRequirements.ResourceRequest
			}
			Add(out, Usage(requests, int64(c.Replicas)*int64(len(clusters)), names))
		}
		return out
	}
	var requests corev1.ResourceList
	if spec.ReplicaRequirements != nil {
		requests = spec.ReplicaRequirements.ResourceRequest
	}
	return Usage(requests, Replicas(clusters), names)
}

// Names are the resource names any of quotas counts, sorted.
func Names(quotas []Quota) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, q := range quotas {
		for name := range q.Overall {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Add adds b to a, in place, for the names of b. A sum keeps the format of its first
// non-zero term: 256Mi stays 256Mi.
func Add(a, b corev1.ResourceList) {
	for name, q := range b {
		cur, ok := a[name]
		if !ok || cur.IsZero() {
			a[name] = q.DeepCopy()
			continue
		}
		cur = cur.DeepCopy()
		cur.Add(q)
		a[name] = cur
	}
}

// Sub takes b from a, in place, for the names of b.
func Sub(a, b corev1.ResourceList) {
	for name, q := range b {
		v := a[name].DeepCopy()
		v.Sub(q)
		a[name] = v
	}
}

// Informer is the quotas of every namespace, as an informer of FederatedResourceQuotas has
// them: what the scheduler admits placements against.
type Informer struct {
	inf fedinformers.FederatedResourceQuotaInformer
}

// FromInformer reads the quotas from inf.
func FromInformer(inf fedinformers.FederatedResourceQuotaInformer) *Informer {
	return &Informer{inf: inf}
}

// Of returns the quotas of a namespace not being deleted, named "<namespace>/<name>".
func (i *Informer) Of(namespace string) []Quota {
	list, err := i.inf.Lister().FederatedResourceQuotas(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	out := make([]Quota, 0, len(list))
	for _, q := range list {
		if q.DeletionTimestamp == nil {
			out = append(out, Quota{Name: q.Namespace + "/" + q.Name, Overall: q.Spec.Overall})
		}
	}
	return out
}

// OnChange has f told of the namespace of each quota added, changed or deleted.
func (i *Informer) OnChange(f func(namespace string)) error {
	ns := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := meta.Accessor(obj); err == nil {
			f(m.GetNamespace())
		}
	}
	_, err := i.inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: ns, UpdateFunc: func(_, obj any) { ns(obj) }, DeleteFunc: ns,
	})
	return err
}

// Exceeded is a placement a quota has no room for.
type Exceeded struct {
	// Quota is the FederatedResourceQuota, "<namespace>/<name>".
	Quota    string
	Resource corev1.ResourceName
	// Needed is what the workload would use, Used what the namespace's other workloads use,
	// Limit the quota's overall.
	Needed, Used, Limit resource.Quantity
}

// Left is what the quota leaves the workload: its overall less what the others use, or 0.
func (e *Exceeded) Left() resource.Quantity {
	left := e.Limit.DeepCopy()
	left.Sub(e.Used)
	if left.Sign() < 0 {
		return *resource.NewQuantity(0, left.Format)
	}
	return left
}

func (e *Exceeded) Error() string {
	left := e.Left()
	return fmt.Sprintf("FederatedResourceQuota %s exceeded for %s: the workload needs %s, %s of %s is left (%s used by the namespace's other workloads)",
		e.Quota, e.Resource, e.Needed.String(), left.String(), e.Limit.String(), e.Used.String())
}

// Admit checks a workload's new use (want) against each quota of its namespace, given what
// it used (had) and what the namespace's other workloads use (others, for Names(quotas)):
// a resource whose use does not grow is not checked, so that a workload may always shrink or
// stay as it is, even in a namespace over its quota (its overall lowered). It returns the
// first quota, by name, and resource, by name, without room.
func Admit(quotas []Quota, others, had, want corev1.ResourceList) *Exceeded {
	sorted := slices.Clone(quotas)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, q := range sorted {
		names := make([]corev1.ResourceName, 0, len(q.Overall))
		for name := range q.Overall {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			w, h := want[name], had[name]
			if w.Cmp(h) <= 0 {
				continue
			}
			total := others[name].DeepCopy()
			total.Add(w)
			if limit := q.Overall[name]; total.Cmp(limit) > 0 {
				return &Exceeded{Quota: q.Name, Resource: name, Needed: w, Used: others[name].DeepCopy(), Limit: limit.DeepCopy()}
			}
		}
	}
	return nil
}
