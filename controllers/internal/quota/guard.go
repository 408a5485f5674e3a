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

package quota

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/bindings"
)

// Guard checks a change of a template in place against its namespace's quotas: requests
// (or components) that grow where the workload already runs. The scheduler admits
// placements; a workload whose placement stays but whose replicas each ask for more would
// take its namespace over a quota without one, and fed cannot keep running the old pod
// template for it. So the fleet API refuses such an update, as the host refuses a pod over
// its ResourceQuota, and nothing stored changes.
type Guard struct {
	Quotas   *Informer
	Bindings *bindings.Access
	// Interpret reads a template's replicas and what one needs, or its components.
	Interpret func(*unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, []federationv1alpha1.Component, error)
}

// Check returns an error saying which quota has no room when updated, which replaces old
// in its namespace, would use more of a quota's resource where the workload runs than
// there is left. A template without a binding or placement, or that the interpreter cannot
// read, is not checked here: the scheduler admits its placement, the detector reports the
// interpreter's error.
func (g *Guard) Check(updated *unstructured.Unstructured) error {
	namespace := updated.GetNamespace()
	if g == nil || namespace == "" {
		return nil
	}
	quotas := g.Quotas.Of(namespace)
	if len(quotas) == 0 {
		return nil
	}
	k := bindings.Key{Namespace: namespace, Name: federationv1alpha1.BindingName(updated.GetKind(), updated.GetName())}
	m, spec, err := g.Bindings.Peek(k)
	if err != nil || m.GetDeletionTimestamp() != nil || len(spec.Clusters) == 0 ||
		spec.Resource.Kind != updated.GetKind() || spec.Resource.Name != updated.GetName() {
		return nil
	}
	replicas, req, components, err := g.Interpret(updated)
	if err != nil {
		return nil
	}
	names := Names(quotas)
	next := *spec
	next.ReplicaRequirements, next.Components = req, components
	clusters := spec.Clusters
	if len(components) == 0 {
		next.Replicas = replicas
		clusters = Fewer(spec, replicas)
	}
	had, want := OfBinding(spec, spec.Clusters, names), OfBinding(&next, clusters, names)
	// Admit checks only what grows too; asked here first, so that an update that asks no
	// more (most) does not sum the namespace's other bindings.
	grows := false
	for _, name := range names {
		w, h := want[name], had[name]
		grows = grows || w.Cmp(h) > 0
	}
	if !grows {
		return nil
	}
	others := Usage(nil, 0, names)
	for _, other := range g.Bindings.Keys(namespace) {
		if other == k {
			continue
		}
		if om, ospec, err := g.Bindings.Peek(other); err == nil {
			Add(others, FromView(om, ospec).Use(names))
		}
	}
	if e := Admit(quotas, others, had, want); e != nil {
		return fmt.Errorf("%v; its replicas already run on %s and would each request more: lower the requests, or raise the quota",
			e, runsOn(spec.Clusters))
	}
	return nil
}

// Fewer is where a workload placed on spec.Clusters runs once its template has replicas
// replicas and before the scheduler places them again: a duplicated workload's clusters
// run at most replicas each, a divided one's at most replicas in all (a scale-up is the
// scheduler's to admit; only a scale-down counts here).
func Fewer(spec *federationv1alpha1.ResourceBindingSpec, replicas int32) []federationv1alpha1.TargetCluster {
	out := make([]federationv1alpha1.TargetCluster, len(spec.Clusters))
	copy(out, spec.Clusters)
	var rs *federationv1alpha1.ReplicaSchedulingStrategy
	if spec.Placement != nil {
		rs = spec.Placement.ReplicaScheduling
	}
	if rs == nil || rs.ReplicaSchedulingType == federationv1alpha1.ReplicaSchedulingTypeDuplicated {
		for i := range out {
			out[i].Replicas = min(out[i].Replicas, replicas)
		}
		return out
	}
	left := replicas
	for i := range out {
		out[i].Replicas = min(out[i].Replicas, left)
		left -= out[i].Replicas
	}
	return out
}

// runsOn names the clusters a workload runs on.
func runsOn(clusters []federationv1alpha1.TargetCluster) string {
	names := make([]string, 0, len(clusters))
	for _, c := range clusters {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}
