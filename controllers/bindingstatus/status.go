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

package bindingstatus

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/applied"
)

// Aggregate is the per-cluster state of a binding's template, read from its Works, in
// the order of the clusters. A cluster without a Work yet has no Applied state.
func Aggregate(targets []federationv1alpha1.TargetCluster, works map[string]*federationv1alpha1.Work) []federationv1alpha1.AggregatedStatusItem {
	var out []federationv1alpha1.AggregatedStatusItem
	for _, t := range targets {
		item := federationv1alpha1.AggregatedStatusItem{ClusterName: t.Name, Health: federationv1alpha1.ResourceUnknown}
		if w := works[t.Name]; w != nil {
			if c := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied); c != nil {
				item.Applied = c.Status == metav1.ConditionTrue
				if !item.Applied {
					item.AppliedMessage = c.Message
				}
			}
			if len(w.Status.ManifestStatuses) > 0 {
				ms := w.Status.ManifestStatuses[0]
				item.Status = ms.Status.DeepCopy()
				if ms.Health != "" {
					item.Health = ms.Health
				}
			}
		}
		out = append(out, item)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClusterName < out[j].ClusterName })
	return out
}

// FullyApplied is the binding's FullyApplied condition for its per-cluster state.
func FullyApplied(items []federationv1alpha1.AggregatedStatusItem, generation int64) metav1.Condition {
	c := metav1.Condition{Type: federationv1alpha1.BindingConditionFullyApplied, ObservedGeneration: generation}
	var failed, pending []string
	for _, it := range items {
		switch {
		case it.Applied:
		case it.AppliedMessage != "":
			failed = append(failed, it.ClusterName+": "+it.AppliedMessage)
		default:
			pending = append(pending, it.ClusterName)
		}
	}
	switch {
	case len(items) == 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "NotScheduled", "no cluster is chosen yet"
	case len(failed) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "ApplyFailed", listed(failed)
	case len(pending) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "Applying", "not applied yet in "+listed(pending)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, "FullyApplied", fmt.Sprintf("applied in all %d clusters", len(items))
	}
	return c
}

// maxListed is how many clusters a message names before it counts the rest, and
// maxItem how long one cluster's part of it may be: a binding over 1,000 clusters with
// dispatching suspended said so for each, over the 32 KiB a condition's message may hold,
// and its status could not be written at all.
const (
	maxListed = 10
	maxItem   = 2000
)

// capped is items with each one cut to maxItem bytes, the first maxListed of them, and
// "and N more" counting the others.
func capped(items []string) []string {
	out := make([]string, 0, min(len(items), maxListed)+1)
	for i, it := range items {
		if i == maxListed {
			out = append(out, fmt.Sprintf("and %d more", len(items)-maxListed))
			break
		}
		if len(it) > maxItem {
			it = strings.ToValidUTF8(it[:maxItem], "") + "..."
		}
		out = append(out, it)
	}
	return out
}

// listed is capped(items) joined with "; ".
func listed(items []string) string { return strings.Join(capped(items), "; ") }

// refusedReasons are the reasons of a Work's Applied condition that mean the member (or
// fed, for the cluster) refused what the Work holds: trying again brings nothing until
// the template, its policy or the member's object changes. A member that cannot be
// reached, or dispatching that is suspended, is not a refusal.
var refusedReasons = map[string]bool{applied.ReasonFailed: true, applied.ReasonConflict: true, applied.ReasonOverrideFailed: true}

// Refusals are the clusters whose Work of its current generation, made of the template's
// generation, was refused, with why ("cluster X: ..."), in the order of the clusters (the
// first maxListed, and how many more). A
// refusal of a Work the binding controller has not rewritten for a newer generation of the
// template yet is not one of the template's current change.
func Refusals(targets []federationv1alpha1.TargetCluster, works map[string]*federationv1alpha1.Work, templateGeneration int64) []string {
	var out []string
	for _, t := range targets {
		w := works[t.Name]
		if w == nil {
			continue
		}
		c := meta.FindStatusCondition(w.Status.Conditions, federationv1alpha1.WorkConditionApplied)
		// An override that failed keeps the Work's earlier manifest, and its error is of the
		// template as it is now.
		current := c != nil && (c.Reason == applied.ReasonOverrideFailed || madeOf(w) == strconv.FormatInt(templateGeneration, 10))
		if c != nil && c.Status == metav1.ConditionFalse && c.ObservedGeneration == w.Generation && refusedReasons[c.Reason] && current {
			out = append(out, "cluster "+t.Name+": "+c.Message)
		}
	}
	sort.Strings(out)
	return capped(out)
}

// madeOf is the template generation a Work's manifest was made of (the stamp of its first
// manifest), "" when it says none.
func madeOf(w *federationv1alpha1.Work) string {
	if len(w.Spec.Workload.Manifests) == 0 {
		return ""
	}
	var m struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &m) != nil {
		return ""
	}
	return m.Metadata.Annotations[federationv1alpha1.AnnotationTemplateGeneration]
}
