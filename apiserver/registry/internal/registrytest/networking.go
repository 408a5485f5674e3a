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

package registrytest

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

// ready is a Ready condition as a controller writes it.
func ready(reason string) []metav1.Condition {
	return []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: reason,
		LastTransitionTime: metav1.Date(2026, 1, 3, 9, 0, 0, 0, time.UTC)}}
}

// MultiClusterService is the test case of multiclusterservices: the seed's
// nginx-mcs.
func MultiClusterService() Case[*federation.MultiClusterService] {
	return Case[*federation.MultiClusterService]{
		Valid: func() *federation.MultiClusterService {
			return &federation.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.MultiClusterServiceSpec{
					Types:            []federation.ExposureType{federation.ExposureTypeCrossCluster},
					Ports:            []federation.ExposurePort{{Name: "http", Port: 80, TargetPort: 8080}},
					ConsumerClusters: []federation.ClusterSelector{{Name: "member1"}, {Name: "member2"}},
				}}
		},
		ChangeSpec: func(s *federation.MultiClusterService) {
			s.Spec.ProviderClusters = []federation.ClusterSelector{{Name: "member1"}}
		},
		ChangeStatus: func(s *federation.MultiClusterService) {
			s.Status = federation.MultiClusterServiceStatus{Conditions: ready("Provided"),
				ProviderClusters: []string{"member1"}, ConsumerClusters: []string{"member1", "member2"}}
		},
		BreakSpec:         func(s *federation.MultiClusterService) { s.Spec.Types = []federation.ExposureType{"LocalCluster"} },
		BrokenSpecField:   "spec.types[0]",
		BreakStatus:       func(s *federation.MultiClusterService) { s.Status.ProviderClusters = []string{"Member_1"} },
		BrokenStatusField: "status.providerClusters[0]",
		Columns:           []string{"Name", "Types", "Providers", "Consumers", "Ready", "Age"},
		Row: map[string]any{"Name": Name, "Types": "CrossCluster", "Providers": "member1",
			"Consumers": "member1,member2", "Ready": "True"},
	}
}

// MultiClusterIngress is the test case of multiclusteringresses: the seed's
// nginx-mci.
func MultiClusterIngress() Case[*federation.MultiClusterIngress] {
	backend := func(service string) networkingv1.IngressBackend {
		return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: service,
			Port: networkingv1.ServiceBackendPort{Number: 80}}}
	}
	rule := func(host, service string) networkingv1.IngressRule {
		return networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix), Backend: backend(service)}}}}}
	}
	return Case[*federation.MultiClusterIngress]{
		Valid: func() *federation.MultiClusterIngress {
			return &federation.MultiClusterIngress{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.MultiClusterIngressSpec{Template: federation.IngressTemplate{
					Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule("nginx.example.com", "nginx-mcs")}},
				}}}
		},
		ChangeSpec: func(i *federation.MultiClusterIngress) {
			i.Spec.Template.Metadata.Annotations = map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/"}
			i.Spec.Template.Spec.Rules = append(i.Spec.Template.Spec.Rules, rule("", "web-mcs"))
		},
		ChangeStatus: func(i *federation.MultiClusterIngress) {
			i.Status = federation.MultiClusterIngressStatus{Conditions: ready("Written"), Clusters: []string{"member1", "member2"}}
		},
		BreakSpec: func(i *federation.MultiClusterIngress) {
			i.Spec.Template.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = ""
		},
		BrokenSpecField:   "spec.template.spec.rules[0].http.paths[0].backend.service.name",
		BreakStatus:       func(i *federation.MultiClusterIngress) { i.Status.Clusters = []string{""} },
		BrokenStatusField: "status.clusters[0]",
		Columns:           []string{"Name", "Hosts", "Clusters", "Age"},
		Row:               map[string]any{"Name": Name, "Hosts": "nginx.example.com,*", "Clusters": "member1,member2"},
	}
}
