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

package validation_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/install"
	"github.com/fedhq/fed/apis/federation/validation"
)

// decodeExamples decodes every document of the testdata files strictly into
// internal objects, defaulted as the server defaults them.
func decodeExamples(t *testing.T) []runtime.Object {
	t.Helper()
	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder()
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var objs []runtime.Object
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			obj, _, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// TestSeedExamples checks that the manifests of the design seeds are
// accepted: they decode without unknown fields and validate cleanly.
func TestSeedExamples(t *testing.T) {
	for _, obj := range decodeExamples(t) {
		var errs field.ErrorList
		switch o := obj.(type) {
		case *federation.PropagationPolicy:
			o.Namespace = withDefaultNamespace(o.Namespace)
			errs = validation.ValidatePropagationPolicy(o)
		case *federation.ClusterPropagationPolicy:
			errs = validation.ValidateClusterPropagationPolicy(o)
		case *federation.OverridePolicy:
			o.Namespace = withDefaultNamespace(o.Namespace)
			errs = validation.ValidateOverridePolicy(o)
		case *federation.ResourceInterpreterCustomization:
			errs = validation.ValidateResourceInterpreterCustomization(o)
		case *federation.ReplicaSchedulingPolicy:
			errs = validation.ValidateReplicaSchedulingPolicy(o)
		case *federation.FederatedResourceQuota:
			errs = append(validation.ValidateFederatedResourceQuota(o),
				validation.ValidateFederatedResourceQuotaStatus(&o.Status, field.NewPath("status"))...)
		case *federation.ClusterTaintPolicy:
			errs = validation.ValidateClusterTaintPolicy(o)
		case *federation.ResourceBinding:
			errs = validation.ValidateResourceBinding(o)
		case *federation.Work:
			errs = validation.ValidateWork(o)
		case *federation.FederatedHPA:
			o.Namespace = withDefaultNamespace(o.Namespace)
			errs = validation.ValidateFederatedHPA(o)
		case *federation.CronFederatedHPA:
			errs = validation.ValidateCronFederatedHPA(o)
		case *federation.MultiClusterService:
			errs = validation.ValidateMultiClusterService(o)
		case *federation.MultiClusterIngress:
			errs = validation.ValidateMultiClusterIngress(o)
		default:
			t.Fatalf("unexpected %T", obj)
		}
		if len(errs) > 0 {
			t.Errorf("%T: %v", obj, errs.ToAggregate())
		}
	}
}

// The REST layer takes the namespace from the request; some seeds leave it out.
func withDefaultNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// TestSeedDefaults checks how the shorthands and omissions of the seeds are
// completed.
func TestSeedDefaults(t *testing.T) {
	policies := map[string]*federation.PropagationPolicy{}
	var fhpa *federation.FederatedHPA
	var cron *federation.CronFederatedHPA
	var rsp *federation.ReplicaSchedulingPolicy
	for _, obj := range decodeExamples(t) {
		switch o := obj.(type) {
		case *federation.PropagationPolicy:
			policies[o.Name] = o
		case *federation.FederatedHPA:
			fhpa = o
		case *federation.CronFederatedHPA:
			cron = o
		case *federation.ReplicaSchedulingPolicy:
			rsp = o
		}
	}

	spread := policies["region-spread"].Spec.Placement.SpreadConstraints
	wantSpread := []federation.SpreadConstraint{
		{SpreadByField: federation.SpreadByFieldRegion, MinGroups: 2, MaxGroups: 3},
		{SpreadByField: federation.SpreadByFieldCluster, MinGroups: 1},
	}
	expectEqual(t, "region-spread constraints", spread, wantSpread)

	dynamic := policies["nginx-dynamic"].Spec.Placement.ReplicaScheduling
	expectEqual(t, "nginx-dynamic replica scheduling", dynamic, &federation.ReplicaSchedulingStrategy{
		ReplicaSchedulingType:     federation.ReplicaSchedulingTypeDivided,
		ReplicaDivisionPreference: federation.ReplicaDivisionPreferenceWeighted,
		WeightPreference:          &federation.ClusterPreferences{DynamicWeight: federation.DynamicWeightByAvailableReplicas},
	})

	expectEqual(t, "failover-policy failover", policies["failover-policy"].Spec.Failover, &federation.FailoverBehavior{
		Application: &federation.ApplicationFailoverBehavior{
			DecisionConditions: federation.DecisionConditions{TolerationSeconds: ptr.To[int32](300)},
			PurgeMode:          federation.PurgeGracefully,
			GracePeriodSeconds: ptr.To[int32](600),
		},
	})

	spec := policies["duplicated-policy"].Spec
	if *spec.Priority != 0 || spec.Preemption != federation.PreemptNever || spec.ConflictResolution != federation.ConflictAbort || spec.SchedulerName != "default-scheduler" {
		t.Errorf("duplicated-policy defaults: %+v", spec)
	}

	// The seed shows these rules in "kubectl describe fhpa nginx".
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	expectEqual(t, "FederatedHPA behavior", fhpa.Spec.Behavior, &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](10), SelectPolicy: &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](10), SelectPolicy: &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}},
	})

	expectEqual(t, "replica-reschedule reschedulePolicy", rsp.Spec.ReschedulePolicy, &federation.ReschedulePolicy{
		Enabled: true, Interval: &metav1.Duration{Duration: time.Minute},
		Threshold: &federation.RescheduleThreshold{CPUUtilization: ptr.To[int32](80), MemoryUtilization: ptr.To[int32](80)},
	})

	rule := cron.Spec.Rules[0]
	if *rule.SuccessfulHistoryLimit != 3 || *rule.FailedHistoryLimit != 3 || *rule.Suspend {
		t.Errorf("CronFederatedHPA rule defaults: %+v", rule)
	}
}

func expectEqual(t *testing.T, what string, got, want interface{}) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}
