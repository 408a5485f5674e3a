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
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

// validMultiClusterService is the seed's nginx-mcs.
func validMultiClusterService() *federation.MultiClusterService {
	members := []federation.ClusterSelector{{Name: "member-cluster-1"}, {Name: "member-cluster-2"}}
	return &federation.MultiClusterService{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-mcs", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.MultiClusterServiceSpec{
			Types:            []federation.ExposureType{federation.ExposureTypeCrossCluster},
			Ports:            []federation.ExposurePort{{Name: "http", Port: 80, TargetPort: 8080}},
			ProviderClusters: members,
			ConsumerClusters: append([]federation.ClusterSelector(nil), members...),
		},
	}
}

func TestValidateMultiClusterService(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.MultiClusterService)
		want   []string
		// detail is a part of the first error's message.
		detail string
	}{
		{name: "seed example", mutate: func(*federation.MultiClusterService) {}},
		{name: "one unnamed port, every cluster", mutate: func(s *federation.MultiClusterService) {
			s.Spec.Ports = []federation.ExposurePort{{Port: 80}}
			s.Spec.ProviderClusters, s.Spec.ConsumerClusters = nil, nil
		}},
		{name: "no types", mutate: func(s *federation.MultiClusterService) { s.Spec.Types = nil },
			want: []string{"FieldValueRequired spec.types"}},
		{name: "unsupported and repeated types", mutate: func(s *federation.MultiClusterService) {
			s.Spec.Types = []federation.ExposureType{"LocalCluster", federation.ExposureTypeCrossCluster, federation.ExposureTypeCrossCluster}
		}, want: []string{"FieldValueNotSupported spec.types[0]", "FieldValueDuplicate spec.types[2]"}, detail: `"CrossCluster"`},
		{name: "port numbers", mutate: func(s *federation.MultiClusterService) {
			s.Spec.Ports = []federation.ExposurePort{{Name: "a", Port: 0}, {Name: "b", Port: 70000, TargetPort: -1}, {Name: "c", Port: 443, TargetPort: 65535}}
		}, want: []string{"FieldValueInvalid spec.ports[0].port", "FieldValueInvalid spec.ports[1].port", "FieldValueInvalid spec.ports[1].targetPort"}},
		{name: "port names", mutate: func(s *federation.MultiClusterService) {
			s.Spec.Ports = []federation.ExposurePort{{Port: 80}, {Name: "HTTP", Port: 81}, {Name: "web", Port: 82}, {Name: "web", Port: 83}}
		}, want: []string{"FieldValueRequired spec.ports[0].name", "FieldValueInvalid spec.ports[1].name", "FieldValueDuplicate spec.ports[3].name"},
			detail: "every port must be named"},
		{name: "repeated port number", mutate: func(s *federation.MultiClusterService) {
			s.Spec.Ports = []federation.ExposurePort{{Name: "a", Port: 80}, {Name: "b", Port: 80, TargetPort: 8081}}
		}, want: []string{"FieldValueDuplicate spec.ports[1].port"}},
		{name: "clusters", mutate: func(s *federation.MultiClusterService) {
			s.Spec.ProviderClusters = []federation.ClusterSelector{{Name: ""}, {Name: "Member_1"}}
			s.Spec.ConsumerClusters = []federation.ClusterSelector{{Name: "member1"}, {Name: "member1"}}
		}, want: []string{"FieldValueRequired spec.providerClusters[0].name", "FieldValueInvalid spec.providerClusters[1].name",
			"FieldValueDuplicate spec.consumerClusters[1].name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := validMultiClusterService()
			tc.mutate(s)
			errs := ValidateMultiClusterService(s)
			expectErrors(t, errs, tc.want)
			expectErrors(t, ValidateMultiClusterServiceUpdate(s, validMultiClusterService()), tc.want)
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("first error %q does not say %q", errs[0].Error(), tc.detail)
			}
		})
	}
}

func TestValidateMultiClusterServiceName(t *testing.T) {
	s := validMultiClusterService()
	s.Name = "nginx.mcs"
	expectErrors(t, ValidateMultiClusterService(s), []string{"FieldValueInvalid metadata.name"})
	s.Name = strings.Repeat("a", 55)
	expectErrors(t, ValidateMultiClusterService(s), nil)
	s.Name = strings.Repeat("a", 56)
	errs := ValidateMultiClusterService(s)
	expectErrors(t, errs, []string{"FieldValueInvalid metadata.name"})
	if len(errs) > 0 && !strings.Contains(errs[0].Error(), "derived-") {
		t.Errorf("the error does not name the derived Service: %v", errs[0])
	}
}

func TestValidateMultiClusterServiceStatusUpdate(t *testing.T) {
	s := validMultiClusterService()
	s.Status = federation.MultiClusterServiceStatus{
		Conditions: []metav1.Condition{{Type: federation.MultiClusterServiceConditionReady, Status: metav1.ConditionTrue,
			Reason: "Provided", LastTransitionTime: metav1.Now()}},
		ProviderClusters: []string{"member-cluster-1"},
		ConsumerClusters: []string{"member-cluster-1", "member-cluster-2"},
	}
	expectErrors(t, ValidateMultiClusterServiceStatusUpdate(s, validMultiClusterService()), nil)
	s.Status.Conditions[0].Reason = "not a reason"
	s.Status.ProviderClusters = []string{"Member_1"}
	s.Status.ConsumerClusters = []string{"member-cluster-1", "member-cluster-1"}
	expectErrors(t, ValidateMultiClusterServiceStatusUpdate(s, validMultiClusterService()), []string{
		"FieldValueInvalid status.conditions[0].reason", "FieldValueInvalid status.providerClusters[0]", "FieldValueDuplicate status.consumerClusters[1]"})
}

// validMultiClusterIngress is the seed's nginx-mci.
func validMultiClusterIngress() *federation.MultiClusterIngress {
	return &federation.MultiClusterIngress{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-mci", Namespace: "default", ResourceVersion: "1"},
		Spec: federation.MultiClusterIngressSpec{Template: federation.IngressTemplate{Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{Host: "nginx.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
				HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix),
					Backend: serviceBackend("nginx-mcs", networkingv1.ServiceBackendPort{Number: 80}),
				}}},
			}}},
		}}},
	}
}

func serviceBackend(name string, port networkingv1.ServiceBackendPort) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name, Port: port}}
}

func TestValidateMultiClusterIngress(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*federation.IngressTemplate)
		want   []string
		// detail is a part of the first error's message.
		detail string
	}{
		{name: "seed example", mutate: func(*federation.IngressTemplate) {}},
		{name: "default backend only, port by name, metadata", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Metadata = federation.IngressTemplateMetadata{Labels: map[string]string{"app": "nginx"},
				Annotations: map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/"}}
			tmpl.Spec.Rules = nil
			tmpl.Spec.DefaultBackend = ptr.To(serviceBackend("nginx-mcs", networkingv1.ServiceBackendPort{Name: "http"}))
		}},
		{name: "wildcard host, rule without paths' http", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Spec.Rules[0].Host = "*.example.com"
			tmpl.Spec.Rules = append(tmpl.Spec.Rules, networkingv1.IngressRule{Host: "other.example.com"})
			tmpl.Spec.DefaultBackend = ptr.To(serviceBackend("nginx-mcs", networkingv1.ServiceBackendPort{Number: 80}))
		}},
		{name: "nothing to route", mutate: func(tmpl *federation.IngressTemplate) { tmpl.Spec.Rules = nil },
			want: []string{"FieldValueRequired spec.template.spec"}, detail: "rule or a defaultBackend"},
		{name: "resource backends", mutate: func(tmpl *federation.IngressTemplate) {
			resource := networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{APIGroup: ptr.To("k8s.example.com"), Kind: "StorageBucket", Name: "static"}}
			tmpl.Spec.DefaultBackend = &resource
			tmpl.Spec.Rules[0].HTTP.Paths[0].Backend.Resource = resource.Resource
		}, want: []string{"FieldValueForbidden spec.template.spec.defaultBackend.resource", "FieldValueForbidden spec.template.spec.rules[0].http.paths[0].backend.resource"},
			detail: "a MultiClusterIngress backend must name a service"},
		{name: "empty backend", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Spec.Rules[0].HTTP.Paths[0].Backend = networkingv1.IngressBackend{}
		}, want: []string{"FieldValueRequired spec.template.spec.rules[0].http.paths[0].backend.service"},
			detail: "a MultiClusterIngress backend must name a service"},
		{name: "service name and port", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Spec.DefaultBackend = ptr.To(serviceBackend("", networkingv1.ServiceBackendPort{}))
			tmpl.Spec.Rules[0].HTTP.Paths[0].Backend = serviceBackend("nginx.mcs", networkingv1.ServiceBackendPort{Name: "http", Number: 80})
			tmpl.Spec.Rules[0].HTTP.Paths = append(tmpl.Spec.Rules[0].HTTP.Paths,
				networkingv1.HTTPIngressPath{Path: "/a", PathType: ptr.To(networkingv1.PathTypeExact), Backend: serviceBackend("a", networkingv1.ServiceBackendPort{Number: 70000})},
				networkingv1.HTTPIngressPath{Path: "/b", PathType: ptr.To(networkingv1.PathTypeExact), Backend: serviceBackend("b", networkingv1.ServiceBackendPort{Name: "Not_A_Port"})})
		}, want: []string{
			"FieldValueRequired spec.template.spec.defaultBackend.service.name", "FieldValueRequired spec.template.spec.defaultBackend.service.port",
			"FieldValueInvalid spec.template.spec.rules[0].http.paths[0].backend.service.name", "FieldValueForbidden spec.template.spec.rules[0].http.paths[0].backend.service.port.name",
			"FieldValueInvalid spec.template.spec.rules[0].http.paths[1].backend.service.port.number",
			"FieldValueInvalid spec.template.spec.rules[0].http.paths[2].backend.service.port.name",
		}},
		{name: "rules", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Spec.Rules[0].Host = "Nginx.Example.com"
			tmpl.Spec.Rules[0].HTTP.Paths[0].PathType = nil
			tmpl.Spec.Rules = append(tmpl.Spec.Rules,
				networkingv1.IngressRule{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}},
				networkingv1.IngressRule{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
					{Path: "api", PathType: ptr.To(networkingv1.PathTypePrefix), Backend: serviceBackend("a", networkingv1.ServiceBackendPort{Number: 80})},
					{Path: "/", PathType: ptr.To(networkingv1.PathType("Regex")), Backend: serviceBackend("a", networkingv1.ServiceBackendPort{Number: 80})},
				}}}})
		}, want: []string{"FieldValueInvalid spec.template.spec.rules[0].host", "FieldValueRequired spec.template.spec.rules[0].http.paths[0].pathType",
			"FieldValueRequired spec.template.spec.rules[1].http.paths",
			"FieldValueInvalid spec.template.spec.rules[2].http.paths[0].path", "FieldValueNotSupported spec.template.spec.rules[2].http.paths[1].pathType"}},
		{name: "metadata", mutate: func(tmpl *federation.IngressTemplate) {
			tmpl.Metadata = federation.IngressTemplateMetadata{Labels: map[string]string{"app": "not a value"}, Annotations: map[string]string{"not a key": "x"}}
		}, want: []string{"FieldValueInvalid spec.template.metadata.labels", "FieldValueInvalid spec.template.metadata.annotations"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := validMultiClusterIngress()
			tc.mutate(&i.Spec.Template)
			errs := ValidateMultiClusterIngress(i)
			expectErrors(t, errs, tc.want)
			expectErrors(t, ValidateMultiClusterIngressUpdate(i, validMultiClusterIngress()), tc.want)
			if tc.detail != "" && len(errs) > 0 && !strings.Contains(errs[0].Error(), tc.detail) {
				t.Errorf("first error %q does not say %q", errs[0].Error(), tc.detail)
			}
		})
	}
}

func TestValidateMultiClusterIngressStatusUpdate(t *testing.T) {
	i := validMultiClusterIngress()
	i.Status = federation.MultiClusterIngressStatus{
		Conditions: []metav1.Condition{{Type: federation.MultiClusterIngressConditionReady, Status: metav1.ConditionTrue,
			Reason: "Written", LastTransitionTime: metav1.Now()}},
		Clusters: []string{"member-cluster-1", "member-cluster-2"},
	}
	expectErrors(t, ValidateMultiClusterIngressStatusUpdate(i, validMultiClusterIngress()), nil)
	i.Status.Conditions[0].Status = "Maybe"
	i.Status.Clusters = []string{""}
	expectErrors(t, ValidateMultiClusterIngressStatusUpdate(i, validMultiClusterIngress()), []string{
		"FieldValueNotSupported status.conditions[0].status", "FieldValueRequired status.clusters[0]"})
}
