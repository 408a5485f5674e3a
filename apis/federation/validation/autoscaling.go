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
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Bounds of scaling rules, the same as the HorizontalPodAutoscaler's.
const (
	maxStabilizationWindowSeconds int32 = 3600
	maxPeriodSeconds              int32 = 1800
)

var (
	supportedMetricTypes = sets.New(autoscalingv2.ObjectMetricSourceType, autoscalingv2.PodsMetricSourceType,
		autoscalingv2.ResourceMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType, autoscalingv2.ExternalMetricSourceType)
	supportedTargetTypes = sets.New(autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType)
	supportedSelects     = sets.New(autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect)
	supportedPolicyTypes = sets.New(autoscalingv2.PodsScalingPolicy, autoscalingv2.PercentScalingPolicy)
)

// ValidateFederatedHPA checks a FederatedHPA on create.
func ValidateFederatedHPA(h *federation.FederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&h.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateFederatedHPASpec(&h.Spec, field.NewPath("spec"))...)
}

// ValidateFederatedHPAUpdate checks a FederatedHPA on update.
func ValidateFederatedHPAUpdate(newH, oldH *federation.FederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newH.ObjectMeta, &oldH.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateFederatedHPASpec(&newH.Spec, field.NewPath("spec"))...)
}

// ValidateFederatedHPAStatusUpdate checks a write to the status subresource.
func ValidateFederatedHPAStatusUpdate(newH, oldH *federation.FederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newH.ObjectMeta, &oldH.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("status")
	allErrs = append(allErrs, validateNonnegative(int64(newH.Status.CurrentReplicas), p.Child("currentReplicas"))...)
	return append(allErrs, validateNonnegative(int64(newH.Status.DesiredReplicas), p.Child("desiredReplicas"))...)
}

// ValidateFederatedHPASpec checks the target, the replica bounds, the metrics
// and the scaling behavior.
func ValidateFederatedHPASpec(spec *federation.FederatedHPASpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateScaleTargetRef(&spec.ScaleTargetRef, fldPath.Child("scaleTargetRef"))
	minReplicas := ptr.Deref(spec.MinReplicas, 1)
	if minReplicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("minReplicas"), minReplicas, "must be at least 1"))
	}
	if spec.MaxReplicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be at least 1"))
	} else if spec.MaxReplicas < minReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must not be lower than minReplicas"))
	}
	for i := range spec.Metrics {
		allErrs = append(allErrs, validateMetricSpec(&spec.Metrics[i], fldPath.Child("metrics").Index(i))...)
	}
	if b := spec.Behavior; b != nil {
		allErrs = append(allErrs, validateScalingRules(b.ScaleUp, fldPath.Child("behavior", "scaleUp"))...)
		allErrs = append(allErrs, validateScalingRules(b.ScaleDown, fldPath.Child("behavior", "scaleDown"))...)
	}
	return allErrs
}

func validateScaleTargetRef(ref *autoscalingv2.CrossVersionObjectReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ref.APIVersion != "" {
		allErrs = append(allErrs, ValidateAPIVersion(ref.APIVersion, fldPath.Child("apiVersion"))...)
	}
	if ref.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	return allErrs
}

// validateMetricSpec checks that the source matching the metric type is set,
// and its target.
func validateMetricSpec(m *autoscalingv2.MetricSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateEnum(m.Type, supportedMetricTypes, true, fldPath.Child("type"))
	sources := map[autoscalingv2.MetricSourceType]bool{
		autoscalingv2.ObjectMetricSourceType:            m.Object != nil,
		autoscalingv2.PodsMetricSourceType:              m.Pods != nil,
		autoscalingv2.ResourceMetricSourceType:          m.Resource != nil,
		autoscalingv2.ContainerResourceMetricSourceType: m.ContainerResource != nil,
		autoscalingv2.ExternalMetricSourceType:          m.External != nil,
	}
	for _, typ := range sets.List(supportedMetricTypes) {
		name := strings.ToLower(string(typ[:1])) + string(typ[1:])
		switch {
		case typ == m.Type && !sources[typ]:
			allErrs = append(allErrs, field.Required(fldPath.Child(name), "required for type "+string(typ)))
		case typ != m.Type && sources[typ]:
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "must be empty for type "+string(m.Type)))
		}
	}
	switch {
	case m.Resource != nil:
		allErrs = append(allErrs, validateMetricTarget(&m.Resource.Target, fldPath.Child("resource", "target"))...)
	case m.ContainerResource != nil:
		allErrs = append(allErrs, validateMetricTarget(&m.ContainerResource.Target, fldPath.Child("containerResource", "target"))...)
	case m.Pods != nil:
		allErrs = append(allErrs, validateMetricTarget(&m.Pods.Target, fldPath.Child("pods", "target"))...)
	case m.Object != nil:
		allErrs = append(allErrs, validateMetricTarget(&m.Object.Target, fldPath.Child("object", "target"))...)
	case m.External != nil:
		allErrs = append(allErrs, validateMetricTarget(&m.External.Target, fldPath.Child("external", "target"))...)
	}
	return allErrs
}

func validateMetricTarget(t *autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	allErrs := validateEnum(t.Type, supportedTargetTypes, true, fldPath.Child("type"))
	switch t.Type {
	case autoscalingv2.UtilizationMetricType:
		if t.AverageUtilization == nil || *t.AverageUtilization <= 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("averageUtilization"), "a positive percentage is required for Utilization"))
		}
	case autoscalingv2.ValueMetricType:
		if t.Value == nil || t.Value.Sign() <= 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("value"), "a positive value is required for Value"))
		}
	case autoscalingv2.AverageValueMetricType:
		if t.AverageValue == nil || t.AverageValue.Sign() <= 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("averageValue"), "a positive value is required for AverageValue"))
		}
	}
	return allErrs
}

func validateScalingRules(r *autoscalingv2.HPAScalingRules, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var allErrs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && (*w < 0 || *w > maxStabilizationWindowSeconds) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), *w, "must be between 0 and 3600"))
	}
	if r.SelectPolicy != nil {
		allErrs = append(allErrs, validateEnum(*r.SelectPolicy, supportedSelects, true, fldPath.Child("selectPolicy"))...)
	}
	disabled := r.SelectPolicy != nil && *r.SelectPolicy == autoscalingv2.DisabledPolicySelect
	if len(r.Policies) == 0 && !disabled {
		allErrs = append(allErrs, field.Required(fldPath.Child("policies"), "at least one policy is required unless selectPolicy is Disabled"))
	}
	for i, p := range r.Policies {
		idxPath := fldPath.Child("policies").Index(i)
		allErrs = append(allErrs, validateEnum(p.Type, supportedPolicyTypes, true, idxPath.Child("type"))...)
		if p.Value <= 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), p.Value, "must be greater than 0"))
		}
		if p.PeriodSeconds <= 0 || p.PeriodSeconds > maxPeriodSeconds {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("periodSeconds"), p.PeriodSeconds, "must be between 1 and 1800"))
		}
	}
	return allErrs
}

// ValidateCronFederatedHPA checks a CronFederatedHPA on create.
func ValidateCronFederatedHPA(h *federation.CronFederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&h.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateCronFederatedHPASpec(&h.Spec, field.NewPath("spec"))...)
}

// ValidateCronFederatedHPAUpdate checks a CronFederatedHPA on update.
func ValidateCronFederatedHPAUpdate(newH, oldH *federation.CronFederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newH.ObjectMeta, &oldH.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateCronFederatedHPASpec(&newH.Spec, field.NewPath("spec"))...)
}

// ValidateCronFederatedHPAStatusUpdate checks a write to the status subresource.
func ValidateCronFederatedHPAStatusUpdate(newH, oldH *federation.CronFederatedHPA) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newH.ObjectMeta, &oldH.ObjectMeta, field.NewPath("metadata"))
	seen := sets.New[string]()
	for i, h := range newH.Status.ExecutionHistories {
		idxPath := field.NewPath("status", "executionHistories").Index(i).Child("ruleName")
		switch {
		case h.RuleName == "":
			allErrs = append(allErrs, field.Required(idxPath, ""))
		case seen.Has(h.RuleName):
			allErrs = append(allErrs, field.Duplicate(idxPath, h.RuleName))
		}
		seen.Insert(h.RuleName)
	}
	return allErrs
}

// ValidateCronFederatedHPASpec checks the target and the rules. A rule for a
// FederatedHPA target sets its bounds; a rule for any other target sets its
// replicas.
func ValidateCronFederatedHPASpec(spec *federation.CronFederatedHPASpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateScaleTargetRef(&spec.ScaleTargetRef, fldPath.Child("scaleTargetRef"))
	rulesPath := fldPath.Child("rules")
	if len(spec.Rules) == 0 {
		allErrs = append(allErrs, field.Required(rulesPath, "at least one rule is required"))
	}
	toFHPA := federationv1alpha1.IsFederatedHPA(spec.ScaleTargetRef)
	names := sets.New[string]()
	for i := range spec.Rules {
		rule, idxPath := &spec.Rules[i], rulesPath.Index(i)
		switch {
		case rule.Name == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		case names.Has(rule.Name):
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), rule.Name))
		}
		names.Insert(rule.Name)
		allErrs = append(allErrs, validateCronRule(rule, toFHPA, idxPath)...)
	}
	return allErrs
}

func validateCronRule(rule *federation.CronFederatedHPARule, toFHPA bool, fldPath *field.Path) field.ErrorList {
	allErrs := validateSchedule(rule.Schedule, fldPath.Child("schedule"))
	if tz := rule.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err != nil || *tz == "" || strings.EqualFold(*tz, "local") {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("timeZone"), *tz, "must be an IANA time zone name such as Europe/Berlin"))
		}
	}
	if toFHPA {
		if rule.TargetReplicas != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("targetReplicas"), "use targetMinReplicas and targetMaxReplicas for a FederatedHPA target"))
		}
		if rule.TargetMinReplicas == nil && rule.TargetMaxReplicas == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("targetMinReplicas"), "targetMinReplicas or targetMaxReplicas is required for a FederatedHPA target"))
		}
		if v := rule.TargetMinReplicas; v != nil && *v < 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("targetMinReplicas"), *v, "must be at least 1"))
		}
		if v := rule.TargetMaxReplicas; v != nil && *v < 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("targetMaxReplicas"), *v, "must be at least 1"))
		}
		if lo, hi := rule.TargetMinReplicas, rule.TargetMaxReplicas; lo != nil && hi != nil && *lo > *hi {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("targetMaxReplicas"), *hi, "must not be lower than targetMinReplicas"))
		}
	} else {
		if rule.TargetMinReplicas != nil || rule.TargetMaxReplicas != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("targetMinReplicas"), "only for a FederatedHPA target; use targetReplicas"))
		}
		if rule.TargetReplicas == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("targetReplicas"), ""))
		} else {
			allErrs = append(allErrs, validateNonnegative(int64(*rule.TargetReplicas), fldPath.Child("targetReplicas"))...)
		}
	}
	if v := rule.SuccessfulHistoryLimit; v != nil {
		allErrs = append(allErrs, validateNonnegative(int64(*v), fldPath.Child("successfulHistoryLimit"))...)
	}
	if v := rule.FailedHistoryLimit; v != nil {
		allErrs = append(allErrs, validateNonnegative(int64(*v), fldPath.Child("failedHistoryLimit"))...)
	}
	return allErrs
}

func validateSchedule(schedule string, fldPath *field.Path) field.ErrorList {
	if schedule == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if strings.Contains(schedule, "TZ=") {
		return field.ErrorList{field.Invalid(fldPath, schedule, "must not set a time zone; use timeZone")}
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		return field.ErrorList{field.Invalid(fldPath, schedule, err.Error())}
	}
	return nil
}
