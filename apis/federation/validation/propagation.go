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

package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
)

var (
	supportedPreemption    = sets.New(federation.PreemptAlways, federation.PreemptNever)
	supportedConflict      = sets.New(federation.ConflictAbort, federation.ConflictOverwrite)
	supportedActivation    = sets.New(federation.LazyActivation)
	supportedPurgeModes    = sets.New(federation.PurgeDirectly, federation.PurgeGracefully, federation.PurgeNever)
	supportedTolerationOps = sets.New(corev1.TolerationOpEqual, corev1.TolerationOpExists)
	// Clusters only carry NoSchedule and NoExecute taints; PreferNoSchedule
	// is accepted so that tolerations copied from pods stay valid.
	supportedTolerationEffect = sets.New(corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute)
)

// ValidatePropagationPolicy checks a PropagationPolicy on create.
func ValidatePropagationPolicy(p *federation.PropagationPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidatePropagationSpec(&p.Spec, p.Namespace, field.NewPath("spec"))...)
}

// ValidatePropagationPolicyUpdate checks a PropagationPolicy on update.
func ValidatePropagationPolicyUpdate(newP, oldP *federation.PropagationPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidatePropagationSpec(&newP.Spec, newP.Namespace, field.NewPath("spec"))...)
}

// ValidateClusterPropagationPolicy checks a ClusterPropagationPolicy on create.
func ValidateClusterPropagationPolicy(p *federation.ClusterPropagationPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidatePropagationSpec(&p.Spec, "", field.NewPath("spec"))...)
}

// ValidateClusterPropagationPolicyUpdate checks a ClusterPropagationPolicy on update.
func ValidateClusterPropagationPolicyUpdate(newP, oldP *federation.ClusterPropagationPolicy) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newP.ObjectMeta, &oldP.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidatePropagationSpec(&newP.Spec, "", field.NewPath("spec"))...)
}

// ValidatePropagationSpec checks the spec of a propagation policy; namespace
// is the policy's namespace, empty for a ClusterPropagationPolicy.
func ValidatePropagationSpec(spec *federation.PropagationSpec, namespace string, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceSelectors(spec.ResourceSelectors, namespace, true, fldPath.Child("resourceSelectors"))
	allErrs = append(allErrs, ValidatePlacement(&spec.Placement, fldPath.Child("placement"))...)
	allErrs = append(allErrs, validateEnum(spec.Preemption, supportedPreemption, true, fldPath.Child("preemption"))...)
	for i, name := range spec.DependentOverrides {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("dependentOverrides").Index(i), name, msg))
		}
	}
	if spec.Failover != nil {
		allErrs = append(allErrs, validateFailover(spec.Failover, fldPath.Child("failover"))...)
	}
	allErrs = append(allErrs, validateEnum(spec.ConflictResolution, supportedConflict, true, fldPath.Child("conflictResolution"))...)
	allErrs = append(allErrs, validateEnum(spec.ActivationPreference, supportedActivation, false, fldPath.Child("activationPreference"))...)
	return append(allErrs, validateSuspension(spec.Suspension, fldPath.Child("suspension"))...)
}

// ValidatePlacement checks a placement.
func ValidatePlacement(p *federation.Placement, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if p.ClusterAffinity != nil {
		allErrs = append(allErrs, ValidateClusterAffinity(p.ClusterAffinity, fldPath.Child("clusterAffinity"))...)
		if len(p.ClusterAffinities) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("clusterAffinities"), "cannot be set together with clusterAffinity"))
		}
	}
	names := sets.New[string]()
	for i := range p.ClusterAffinities {
		term, idxPath := &p.ClusterAffinities[i], fldPath.Child("clusterAffinities").Index(i)
		switch {
		case term.AffinityName == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("affinityName"), ""))
		case names.Has(term.AffinityName):
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("affinityName"), term.AffinityName))
		}
		names.Insert(term.AffinityName)
		allErrs = append(allErrs, ValidateClusterAffinity(&term.ClusterAffinity, idxPath)...)
		for j := range term.OverflowAffinities {
			o, oPath := &term.OverflowAffinities[j], idxPath.Child("overflowAffinities").Index(j)
			switch {
			case o.AffinityName == "":
				allErrs = append(allErrs, field.Required(oPath.Child("affinityName"), ""))
			case names.Has(o.AffinityName):
				allErrs = append(allErrs, field.Duplicate(oPath.Child("affinityName"), o.AffinityName))
			}
			names.Insert(o.AffinityName)
			allErrs = append(allErrs, ValidateClusterAffinity(&o.ClusterAffinity, oPath)...)
		}
		if len(term.OverflowAffinities) > 0 {
			// Overflow fills groups with replicas in turn: duplicated replicas fill
			// nothing, and a spread would choose clusters across the groups.
			if rs := p.ReplicaScheduling; rs == nil || rs.ReplicaSchedulingType != federation.ReplicaSchedulingTypeDivided {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("overflowAffinities"),
					"overflow groups take the replicas the first group cannot hold: set replicaScheduling.replicaSchedulingType to Divided"))
			}
			if len(p.SpreadConstraints) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("overflowAffinities"), "cannot be set together with spreadConstraints"))
			}
		}
	}
	if wa := p.WorkloadAffinity; wa != nil {
		waPath := fldPath.Child("workloadAffinity")
		for _, t := range []struct {
			name string
			term *federation.WorkloadAffinityTerm
		}{{"affinity", wa.Affinity}, {"antiAffinity", wa.AntiAffinity}} {
			term := t.term
			if term == nil {
				continue
			}
			keyPath := waPath.Child(t.name, "groupByLabelKey")
			if term.GroupByLabelKey == "" {
				allErrs = append(allErrs, field.Required(keyPath, "the label key whose value groups templates"))
				continue
			}
			allErrs = append(allErrs, metav1validation.ValidateLabelName(term.GroupByLabelKey, keyPath)...)
		}
	}
	for i := range p.ClusterTolerations {
		allErrs = append(allErrs, validateClusterToleration(&p.ClusterTolerations[i], fldPath.Child("clusterTolerations").Index(i))...)
	}
	allErrs = append(allErrs, validateSpreadConstraints(p.SpreadConstraints, fldPath.Child("spreadConstraints"))...)
	if p.ReplicaScheduling != nil {
		allErrs = append(allErrs, validateReplicaScheduling(p.ReplicaScheduling, fldPath.Child("replicaScheduling"))...)
	}
	return allErrs
}

func validateClusterToleration(t *corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if t.Key != "" {
		allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, fldPath.Child("key"))...)
	} else if t.Operator != corev1.TolerationOpExists {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), t.Operator, "must be Exists when key is empty"))
	}
	allErrs = append(allErrs, validateEnum(t.Operator, supportedTolerationOps, false, fldPath.Child("operator"))...)
	if t.Operator == corev1.TolerationOpExists && t.Value != "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), t.Value, "must be empty when operator is Exists"))
	}
	for _, msg := range validation.IsValidLabelValue(t.Value) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), t.Value, msg))
	}
	allErrs = append(allErrs, validateEnum(t.Effect, supportedTolerationEffect, false, fldPath.Child("effect"))...)
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("effect"), t.Effect, "must be NoExecute when tolerationSeconds is set"))
	}
	return allErrs
}

var supportedSpreadFields = sets.New(federation.SpreadByFieldCluster, federation.SpreadByFieldRegion,
	federation.SpreadByFieldZone, federation.SpreadByFieldProvider)

func validateSpreadConstraints(constraints []federation.SpreadConstraint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	byField, byCluster := false, false
	for i, c := range constraints {
		idxPath := fldPath.Index(i)
		switch {
		case c.SpreadByField != "" && c.SpreadByLabel != "":
			allErrs = append(allErrs, field.Forbidden(idxPath.Child("spreadByLabel"), "cannot be set together with spreadByField"))
		case c.SpreadByField == "" && c.SpreadByLabel == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("spreadByField"), "spreadByField or spreadByLabel is required"))
		}
		allErrs = append(allErrs, validateEnum(c.SpreadByField, supportedSpreadFields, false, idxPath.Child("spreadByField"))...)
		if c.SpreadByLabel != "" {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(c.SpreadByLabel, idxPath.Child("spreadByLabel"))...)
		}
		allErrs = append(allErrs, validateNonnegative(int64(c.MinGroups), idxPath.Child("minGroups"))...)
		allErrs = append(allErrs, validateNonnegative(int64(c.MaxGroups), idxPath.Child("maxGroups"))...)
		if c.MaxGroups > 0 && c.MinGroups > c.MaxGroups {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("maxGroups"), c.MaxGroups, "must not be lower than minGroups"))
		}
		key := "field:" + string(c.SpreadByField) + "/label:" + c.SpreadByLabel
		if seen.Has(key) {
			allErrs = append(allErrs, field.Duplicate(idxPath, key))
		}
		seen.Insert(key)
		byField = byField || c.SpreadByField != ""
		byCluster = byCluster || c.SpreadByField == federation.SpreadByFieldCluster
	}
	if byField && !byCluster {
		allErrs = append(allErrs, field.Required(fldPath,
			"a constraint with spreadByField cluster is required when spreading by region, zone or provider"))
	}
	return allErrs
}

var (
	supportedReplicaSchedulingTypes = sets.New(federation.ReplicaSchedulingTypeDuplicated, federation.ReplicaSchedulingTypeDivided)
	supportedDivisionPreferences    = sets.New(federation.ReplicaDivisionPreferenceAggregated, federation.ReplicaDivisionPreferenceWeighted)
	supportedDynamicWeights         = sets.New(federation.DynamicWeightByAvailableReplicas)
)

func validateReplicaScheduling(rs *federation.ReplicaSchedulingStrategy, fldPath *field.Path) field.ErrorList {
	allErrs := validateEnum(rs.ReplicaSchedulingType, supportedReplicaSchedulingTypes, true, fldPath.Child("replicaSchedulingType"))
	divided := rs.ReplicaSchedulingType == federation.ReplicaSchedulingTypeDivided
	allErrs = append(allErrs, validateEnum(rs.ReplicaDivisionPreference, supportedDivisionPreferences, divided, fldPath.Child("replicaDivisionPreference"))...)
	if wp := rs.WeightPreference; wp != nil {
		wpPath := fldPath.Child("weightPreference")
		for i := range wp.StaticWeightList {
			w, idxPath := &wp.StaticWeightList[i], wpPath.Child("staticWeightList").Index(i)
			allErrs = append(allErrs, ValidateClusterAffinity(&w.TargetCluster, idxPath.Child("targetCluster"))...)
			allErrs = append(allErrs, validateNonnegative(w.Weight, idxPath.Child("weight"))...)
		}
		allErrs = append(allErrs, validateEnum(wp.DynamicWeight, supportedDynamicWeights, false, wpPath.Child("dynamicWeight"))...)
	}
	// Defaulting moves the shorthand into weightPreference; one left behind
	// contradicts it.
	if rs.DynamicWeight != "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("dynamicWeight"), rs.DynamicWeight,
			"is a shorthand for weightPreference.dynamicWeight and must not differ from it"))
	}
	return allErrs
}

func validateFailover(f *federation.FailoverBehavior, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if f.Application != nil {
		allErrs = append(allErrs, validateApplicationFailover(f.Application, fldPath.Child("application"))...)
	}
	if c := f.Cluster; c != nil {
		allErrs = append(allErrs, validateEnum(c.PurgeMode, supportedPurgeModes, true, fldPath.Child("cluster", "purgeMode"))...)
		allErrs = append(allErrs, validateGracePeriod(c.PurgeMode, c.GracePeriodSeconds, fldPath.Child("cluster", "gracePeriodSeconds"))...)
	}
	// Defaulting moves the other name into application; one left behind
	// contradicts it.
	if f.ApplicationMigrationPolicy != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("applicationMigrationPolicy"),
			"is another name for application and must not differ from it"))
	}
	return allErrs
}

func validateApplicationFailover(a *federation.ApplicationFailoverBehavior, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ts := a.DecisionConditions.TolerationSeconds; ts != nil {
		allErrs = append(allErrs, validateNonnegative(int64(*ts), fldPath.Child("decisionConditions", "tolerationSeconds"))...)
	}
	allErrs = append(allErrs, validateEnum(a.PurgeMode, supportedPurgeModes, true, fldPath.Child("purgeMode"))...)
	if a.PurgePolicy != "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("purgePolicy"), a.PurgePolicy,
			"is another name for purgeMode and must not differ from it"))
	}
	allErrs = append(allErrs, validateGracePeriod(a.PurgeMode, a.GracePeriodSeconds, fldPath.Child("gracePeriodSeconds"))...)
	if sp := a.StatePreservation; sp != nil {
		rulesPath := fldPath.Child("statePreservation", "rules")
		if len(sp.Rules) == 0 {
			allErrs = append(allErrs, field.Required(rulesPath, ""))
		}
		aliases := sets.New[string]()
		for i, r := range sp.Rules {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(r.AliasLabelName, rulesPath.Index(i).Child("aliasLabelName"))...)
			if aliases.Has(r.AliasLabelName) {
				allErrs = append(allErrs, field.Duplicate(rulesPath.Index(i).Child("aliasLabelName"), r.AliasLabelName))
			}
			aliases.Insert(r.AliasLabelName)
			if r.JSONPath == "" {
				allErrs = append(allErrs, field.Required(rulesPath.Index(i).Child("jsonPath"), ""))
			}
		}
	}
	return allErrs
}

// validateGracePeriod checks the grace period of a purge mode: only Gracefully
// has one, and it is positive.
func validateGracePeriod(mode federation.PurgeMode, gp *int32, fldPath *field.Path) field.ErrorList {
	switch {
	case gp == nil:
		return nil
	case mode != federation.PurgeGracefully:
		return field.ErrorList{field.Forbidden(fldPath, "only applies to purgeMode Gracefully")}
	case *gp <= 0:
		return field.ErrorList{field.Invalid(fldPath, *gp, "must be greater than 0")}
	}
	return nil
}
