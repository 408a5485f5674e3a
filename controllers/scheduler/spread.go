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
	"cmp"
	"fmt"
	"slices"
	"strings"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// spreadRule is a placement's spread constraints in the form the selection uses: clusters
// fall into groups by key (one group of every cluster when key is nil); between groupMin
// and groupMax groups are used, and between clusterMin and clusterMax clusters of each. A
// max of 0 is no limit.
type spreadRule struct {
	by                     string // what the groups are, for messages: "region", "label tier"
	key                    func(*clusterv1alpha1.Cluster) string
	groupMin, groupMax     int
	clusterMin, clusterMax int
	// constrained is true when the placement has spread constraints: then every selected
	// cluster must run a replica, or the groups counted would be empty.
	constrained bool
}

// noSpread is the rule of a placement without spread constraints: any number of clusters.
var noSpread = &spreadRule{groupMin: 1, groupMax: 1, clusterMin: 1}

// spreadRuleOf reads spread constraints.
//
// The seeds' example "two regions, one cluster in each" spreads by region with minGroups
// and maxGroups 2 and by cluster with minGroups and maxGroups 1. Read as a count of all
// clusters, the cluster constraint (at most 1) could never meet the region one (at least
// 2), so no placement would ever satisfy the example. The seed also says the cluster
// constraint gives "the number of clusters each region should select". So: with a
// constraint by region, zone, provider or label, the cluster constraint bounds the clusters
// chosen in each of those groups; alone, it bounds the clusters chosen in all.
//
// As the seeds require, spreading by region, zone or provider needs a constraint by cluster
// (defaulting adds one; a binding written without it is refused). Only one constraint that
// is not by cluster is supported: groups of different fields need not nest, and choosing
// clusters that satisfy several crossing groupings at once is a search this scheduler does
// not do.
func spreadRuleOf(constraints []federationv1alpha1.SpreadConstraint) (*spreadRule, error) {
	if len(constraints) == 0 {
		return noSpread, nil
	}
	rule := &spreadRule{groupMin: 1, groupMax: 1, clusterMin: 1, constrained: true}
	var byCluster, byGroup *federationv1alpha1.SpreadConstraint
	needsCluster := false
	for i := range constraints {
		c := &constraints[i]
		minGroups, maxGroups := max(int(c.MinGroups), 1), int(c.MaxGroups)
		if maxGroups > 0 && minGroups > maxGroups {
			return nil, invalid("spreadConstraints[%d]: minGroups %d is above maxGroups %d", i, c.MinGroups, c.MaxGroups)
		}
		if c.SpreadByField != "" && c.SpreadByLabel != "" {
			return nil, invalid("spreadConstraints[%d]: spreadByField and spreadByLabel cannot both be set", i)
		}
		if c.SpreadByField == federationv1alpha1.SpreadByFieldCluster || c.SpreadByField == "" && c.SpreadByLabel == "" {
			if byCluster != nil {
				return nil, invalid("spreadConstraints[%d]: a second constraint by cluster", i)
			}
			byCluster = c
			rule.clusterMin, rule.clusterMax = minGroups, maxGroups
			continue
		}
		if byGroup != nil {
			return nil, &Unschedulable{Reason: ReasonUnsupported, Message: fmt.Sprintf(
				"spreadConstraints: spreading by %s and by %s at once is not supported; keep one constraint besides the one by cluster",
				spreadName(byGroup), spreadName(c))}
		}
		byGroup = c
		rule.groupMin, rule.groupMax = minGroups, maxGroups
		rule.by = spreadName(c)
		switch c.SpreadByField {
		case federationv1alpha1.SpreadByFieldRegion:
			rule.key = func(c *clusterv1alpha1.Cluster) string { return c.Spec.Region }
		case federationv1alpha1.SpreadByFieldZone:
			rule.key = func(c *clusterv1alpha1.Cluster) string { return c.Spec.Zone }
		case federationv1alpha1.SpreadByFieldProvider:
			rule.key = func(c *clusterv1alpha1.Cluster) string { return c.Spec.Provider }
		case "":
			label := c.SpreadByLabel
			rule.key = func(c *clusterv1alpha1.Cluster) string { return c.Labels[label] }
		default:
			return nil, invalid("spreadConstraints[%d]: spreadByField %q is not one of cluster, region, zone, provider", i, c.SpreadByField)
		}
		needsCluster = c.SpreadByField != ""
	}
	if needsCluster && byCluster == nil {
		return nil, invalid("spreadConstraints: spreading by %s needs a constraint with spreadByField cluster too, to say how many clusters of each %s to use",
			rule.by, rule.by)
	}
	return rule, nil
}

func spreadName(c *federationv1alpha1.SpreadConstraint) string {
	if c.SpreadByLabel != "" {
		return "label " + c.SpreadByLabel
	}
	return string(c.SpreadByField)
}

func invalid(format string, args ...any) *Unschedulable {
	return &Unschedulable{Reason: ReasonInvalidPlacement, Message: fmt.Sprintf(format, args...)}
}

func noFit(format string, args ...any) *Unschedulable {
	return &Unschedulable{Reason: ReasonNoClusterFit, Message: fmt.Sprintf(format, args...)}
}

// selection says how many clusters to choose.
type selection struct {
	// budget is the most clusters to choose, 0 for no limit: a divided workload spread
	// over groups cannot use more clusters than it has replicas.
	budget int
	// need, when above 0, stops choosing once the chosen clusters can hold that many
	// replicas (Aggregated); otherwise every cluster the rule allows is chosen.
	need int64
}

type spreadGroup struct {
	key      string
	members  []int // indexes into the candidates, in preference order
	previous int
	capacity int64
}

// pick chooses clusters from candidates, which are in preference order, so that the rule
// holds: the groups with the most clusters of the previous result first, then those that
// can hold the most, then by key; in each group its clusters in preference order. Clusters
// of the previous result are kept while the rule allows. The chosen clusters come back in
// preference order.
func (r *spreadRule) pick(cands []candidate, sel selection) ([]candidate, error) {
	var groups []*spreadGroup
	index := map[string]*spreadGroup{}
	groupOf := make([]*spreadGroup, len(cands))
	for i := range cands {
		key := ""
		if r.key != nil {
			if key = r.key(cands[i].cluster); key == "" {
				continue // a cluster without the field or label is in no group
			}
		}
		g := index[key]
		if g == nil {
			g = &spreadGroup{key: key}
			index[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, i)
		g.capacity += cands[i].capacity
		if cands[i].inPrevious {
			g.previous++
		}
		groupOf[i] = g
	}
	usable := groups[:0]
	for _, g := range groups {
		if len(g.members) >= r.clusterMin {
			usable = append(usable, g)
		}
	}
	slices.SortFunc(usable, func(a, b *spreadGroup) int {
		return cmp.Or(cmp.Compare(b.previous, a.previous), cmp.Compare(b.capacity, a.capacity), strings.Compare(a.key, b.key))
	})
	if len(usable) < r.groupMin {
		return nil, r.tooFewGroups(usable, len(cands))
	}
	if sel.budget > 0 && r.groupMin*r.clusterMin > sel.budget {
		return nil, noFit("spreadConstraints: %s needs at least %d cluster(s), each running a replica, but the workload has %d replica(s)",
			r.describe(), r.groupMin*r.clusterMin, sel.budget)
	}

	chosen := make([]bool, len(cands))
	perGroup := map[*spreadGroup]int{}
	var out []candidate
	var capacity int64
	take := func(i int) {
		chosen[i] = true
		perGroup[groupOf[i]]++
		out = append(out, cands[i])
		capacity += cands[i].capacity
	}
	openGroup := func(g *spreadGroup) bool {
		if len(perGroup) >= r.groupMax && r.groupMax > 0 || sel.budget > 0 && len(out)+r.clusterMin > sel.budget {
			return false
		}
		for _, i := range g.members[:r.clusterMin] {
			take(i)
		}
		return true
	}
	admit := func(i int) {
		g := groupOf[i]
		switch {
		case chosen[i] || g == nil || len(g.members) < r.clusterMin:
		case perGroup[g] > 0:
			if (r.clusterMax == 0 || perGroup[g] < r.clusterMax) && (sel.budget == 0 || len(out) < sel.budget) {
				take(i)
			}
		default:
			openGroup(g)
		}
	}
	for _, g := range usable[:r.groupMin] {
		openGroup(g)
	}
	for i := range cands {
		if cands[i].inPrevious {
			admit(i)
		}
	}
	for i := range cands {
		if sel.need > 0 && capacity >= sel.need {
			break
		}
		admit(i)
	}
	// Restore preference order: groups were opened out of it.
	slices.SortStableFunc(out, preferred)
	return out, nil
}

func (r *spreadRule) describe() string {
	if r.key == nil {
		return fmt.Sprintf("spreading over at least %d cluster(s)", r.clusterMin)
	}
	return fmt.Sprintf("spreading by %s over at least %d group(s) of %d cluster(s)", r.by, r.groupMin, r.clusterMin)
}

func (r *spreadRule) tooFewGroups(usable []*spreadGroup, candidates int) *Unschedulable {
	if r.key == nil {
		return noFit("spreadConstraints: at least %d cluster(s) are required, only %d fit", r.clusterMin, candidates)
	}
	keys := make([]string, len(usable))
	for i, g := range usable {
		keys[i] = g.key
	}
	slices.Sort(keys)
	have := "none has"
	if len(keys) > 0 {
		have = fmt.Sprintf("only %d has: %s", len(keys), strings.Join(keys, ", "))
	}
	return noFit("spreadConstraints: spreading by %s needs at least %d group(s) with %d fitting cluster(s) each; %s",
		r.by, r.groupMin, r.clusterMin, have)
}
