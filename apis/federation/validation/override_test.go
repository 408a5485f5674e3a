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
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/apis/federation"
)

func jsonValue(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

func validOverridePolicy() *federation.OverridePolicy {
	return &federation.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.OverrideSpec{
			ResourceSelectors: []federation.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}},
			OverrideRules: []federation.RuleWithCluster{{
				TargetCluster: &federation.ClusterAffinity{ClusterNames: []string{"member1"}},
				Overriders: federation.Overriders{
					Plaintext: []federation.PlaintextOverrider{
						{Path: "/spec/template/spec/containers/0/env", Operator: federation.OverriderOpAdd, Value: jsonValue(`[{"name":"ENV","value":"prod"}]`)},
						{Path: "/metadata/annotations/old", Operator: federation.OverriderOpRemove},
					},
					ImageOverrider: []federation.ImageOverrider{
						{Component: federation.ImageRegistry, Operator: federation.OverriderOpReplace, Value: "registry-1.example.com"},
						{Component: federation.ImageTag, Operator: federation.OverriderOpRemove,
							Predicate: &federation.ImagePredicate{Path: "/spec/template/spec/containers/0/image"}},
					},
					ArgsOverrider:        []federation.CommandArgsOverrider{{ContainerName: "nginx", Operator: federation.OverriderOpAdd, Value: []string{"--config=/etc/nginx/c1.conf"}}},
					LabelsOverrider:      []federation.LabelAnnotationOverrider{{Operator: federation.OverriderOpAddIfAbsent, Value: map[string]string{"cluster": "member1"}}},
					AnnotationsOverrider: []federation.LabelAnnotationOverrider{{Operator: federation.OverriderOpAdd, Value: map[string]string{"monitoring.example.com/enabled": "true"}}},
					FieldOverrider: []federation.FieldOverrider{{FieldPath: "/data/config.yaml",
						YAML: []federation.YAMLPatchOperation{{SubPath: "/db/port", Operator: federation.OverriderOpReplace, Value: jsonValue("5432")}}}},
					ReplicasOverrider: []federation.ReplicasOverrider{{Value: 3}},
					ResourcesOverrider: []federation.ResourcesOverrider{{ContainerName: "nginx", Value: corev1.ResourceRequirements{
						Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
					}}},
				},
			}},
		},
	}
}

func TestValidateOverridePolicy(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.Overriders)
		want   []string
	}{
		{name: "valid", mutate: func(*federation.Overriders) {}},
		{name: "plaintext", mutate: func(o *federation.Overriders) {
			o.Plaintext = []federation.PlaintextOverrider{
				{Path: "spec/replicas", Operator: federation.OverriderOpReplace, Value: jsonValue("4")},
				{Operator: "move", Value: jsonValue("1")},
				{Path: "/spec/replicas", Operator: federation.OverriderOpRemove, Value: jsonValue("1")},
				{Path: "/spec/replicas", Operator: federation.OverriderOpAdd},
			}
		}, want: []string{
			"FieldValueInvalid spec.overrideRules[0].overriders.plaintext[0].path",
			"FieldValueRequired spec.overrideRules[0].overriders.plaintext[1].path",
			"FieldValueNotSupported spec.overrideRules[0].overriders.plaintext[1].operator",
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[2].value",
			"FieldValueRequired spec.overrideRules[0].overriders.plaintext[3].value",
		}},
		{name: "image", mutate: func(o *federation.Overriders) {
			o.ImageOverrider = []federation.ImageOverrider{
				{Component: "Digest", Operator: federation.OverriderOpAddIfAbsent, Value: "x"},
				{Component: federation.ImageTag, Operator: federation.OverriderOpReplace, Predicate: &federation.ImagePredicate{Path: "image"}},
			}
		}, want: []string{
			"FieldValueNotSupported spec.overrideRules[0].overriders.imageOverrider[0].component",
			"FieldValueNotSupported spec.overrideRules[0].overriders.imageOverrider[0].operator",
			"FieldValueInvalid spec.overrideRules[0].overriders.imageOverrider[1].predicate.path",
			"FieldValueRequired spec.overrideRules[0].overriders.imageOverrider[1].value",
		}},
		{name: "command and args", mutate: func(o *federation.Overriders) {
			o.CommandOverrider = []federation.CommandArgsOverrider{{Operator: federation.OverriderOpReplace}}
		}, want: []string{
			"FieldValueRequired spec.overrideRules[0].overriders.commandOverrider[0].containerName",
			"FieldValueNotSupported spec.overrideRules[0].overriders.commandOverrider[0].operator",
			"FieldValueRequired spec.overrideRules[0].overriders.commandOverrider[0].value",
		}},
		{name: "labels and annotations", mutate: func(o *federation.Overriders) {
			o.LabelsOverrider = []federation.LabelAnnotationOverrider{
				{Operator: "merge", Value: map[string]string{"bad key!": "x"}},
				{Operator: federation.OverriderOpRemove},
			}
			o.AnnotationsOverrider = []federation.LabelAnnotationOverrider{{Operator: federation.OverriderOpAdd, Value: map[string]string{"/x": "y"}}}
		}, want: []string{
			"FieldValueNotSupported spec.overrideRules[0].overriders.labelsOverrider[0].operator",
			"FieldValueInvalid spec.overrideRules[0].overriders.labelsOverrider[0].value",
			"FieldValueRequired spec.overrideRules[0].overriders.labelsOverrider[1].value",
			"FieldValueInvalid spec.overrideRules[0].overriders.annotationsOverrider[0].value",
		}},
		{name: "field overrider", mutate: func(o *federation.Overriders) {
			o.FieldOverrider = []federation.FieldOverrider{
				{FieldPath: "/data/a.json",
					JSON: []federation.JSONPatchOperation{{SubPath: "a", Operator: federation.OverriderOpAdd}},
					YAML: []federation.YAMLPatchOperation{{SubPath: "/a", Operator: federation.OverriderOpRemove}}},
				{FieldPath: "data"},
			}
		}, want: []string{
			"FieldValueForbidden spec.overrideRules[0].overriders.fieldOverrider[0].yaml",
			"FieldValueInvalid spec.overrideRules[0].overriders.fieldOverrider[0].json[0].subPath",
			"FieldValueRequired spec.overrideRules[0].overriders.fieldOverrider[0].json[0].value",
			"FieldValueInvalid spec.overrideRules[0].overriders.fieldOverrider[1].fieldPath",
			"FieldValueRequired spec.overrideRules[0].overriders.fieldOverrider[1]",
		}},
		{name: "identity", mutate: func(o *federation.Overriders) {
			value := &apiextensionsv1.JSON{Raw: []byte(`"x"`)}
			o.Plaintext = []federation.PlaintextOverrider{
				{Path: "/apiVersion", Operator: federation.OverriderOpReplace, Value: value},
				{Path: "/kind", Operator: federation.OverriderOpReplace, Value: value},
				{Path: "/metadata/namespace", Operator: federation.OverriderOpRemove},
				{Path: "/metadata/name", Operator: federation.OverriderOpReplace, Value: value},
				{Path: "/metadata", Operator: federation.OverriderOpReplace, Value: value},
				{Path: "/metadata/labels/kind", Operator: federation.OverriderOpAdd, Value: value},
			}
			o.FieldOverrider = []federation.FieldOverrider{
				{FieldPath: "/metadata/name", YAML: []federation.YAMLPatchOperation{{SubPath: "/a", Operator: federation.OverriderOpRemove}}},
			}
		}, want: []string{
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[0].path",
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[1].path",
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[2].path",
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[3].path",
			"FieldValueForbidden spec.overrideRules[0].overriders.plaintext[4].path",
			"FieldValueForbidden spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath",
		}},
		{name: "replicas and resources", mutate: func(o *federation.Overriders) {
			o.ReplicasOverrider = []federation.ReplicasOverrider{{Value: -1}, {Value: 2}}
			o.ResourcesOverrider = []federation.ResourcesOverrider{{Value: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi"), corev1.ResourceCPU: resource.MustParse("-1")},
			}}}
		}, want: []string{
			"FieldValueTooMany spec.overrideRules[0].overriders.replicasOverrider",
			"FieldValueInvalid spec.overrideRules[0].overriders.replicasOverrider[0].value",
			"FieldValueRequired spec.overrideRules[0].overriders.resourcesOverrider[0].containerName",
			"FieldValueInvalid spec.overrideRules[0].overriders.resourcesOverrider[0].value.requests[cpu]",
			"FieldValueInvalid spec.overrideRules[0].overriders.resourcesOverrider[0].value.requests[memory]",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validOverridePolicy()
			tc.mutate(&p.Spec.OverrideRules[0].Overriders)
			expectErrors(t, ValidateOverridePolicy(p), tc.want)
			expectErrors(t, ValidateOverridePolicyUpdate(p, validOverridePolicy()), tc.want)
		})
	}
}

func TestValidateClusterOverridePolicy(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.ClusterOverridePolicy)
		want   []string
	}{
		{name: "valid without selectors or target", mutate: func(p *federation.ClusterOverridePolicy) {
			p.Spec.ResourceSelectors = nil
			p.Spec.OverrideRules[0].TargetCluster = nil
		}},
		{name: "bad target cluster", mutate: func(p *federation.ClusterOverridePolicy) {
			p.Spec.OverrideRules[0].TargetCluster = &federation.ClusterAffinity{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}},
			}
		}, want: []string{"FieldValueInvalid spec.overrideRules[0].targetCluster.labelSelector.matchExpressions[0].operator"}},
		{name: "namespaced name", mutate: func(p *federation.ClusterOverridePolicy) { p.Namespace = "default" },
			want: []string{"FieldValueForbidden metadata.namespace"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &federation.ClusterOverridePolicy{ObjectMeta: metav1.ObjectMeta{Name: "all"}, Spec: validOverridePolicy().Spec}
			tc.mutate(p)
			expectErrors(t, ValidateClusterOverridePolicy(p), tc.want)
		})
	}
}
