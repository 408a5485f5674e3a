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

package federation

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterService exposes a Service of the fleet across clusters: the
// Service of the same name and namespace, running in the provider clusters,
// is imported into the consumer clusters as a Service named derived-<name>
// whose endpoints are the providers'.
type MultiClusterService struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is how the service is exposed, on which ports, from which clusters
	// and into which.
	Spec MultiClusterServiceSpec

	// Status is the clusters the service is exported from and imported into
	// now, and whether it is ready.
	Status MultiClusterServiceStatus
}

// MultiClusterServiceSpec is the desired behavior of a MultiClusterService.
type MultiClusterServiceSpec struct {
	// Types says how the service is exposed. Only CrossCluster is supported:
	// the consumers reach the providers' endpoints directly (given a pod
	// network across clusters, which fed does not provide).
	Types []ExposureType

	// Ports are the ports of the derived Service (at least one), all TCP.
	Ports []ExposurePort

	// ProviderClusters are the clusters whose endpoints of the Service are
	// exported; empty: every cluster the Service is propagated to.
	ProviderClusters []ClusterSelector

	// ConsumerClusters are the clusters the service is imported into; empty:
	// every cluster of the fleet.
	ConsumerClusters []ClusterSelector
}

// ExposureType is a way of exposing a service across clusters.
type ExposureType string

const (
	// ExposureTypeCrossCluster makes the consumers reach the providers'
	// endpoints directly.
	ExposureTypeCrossCluster ExposureType = "CrossCluster"
)

// ExposurePort is a port of the derived Service.
type ExposurePort struct {
	// Name is the name of the port; required, and unique, when there are
	// several ports.
	Name string

	// Port is the port number the derived Service listens on.
	Port int32

	// TargetPort is the port of the providers' endpoints; defaults to port.
	TargetPort int32
}

// ClusterSelector names a member cluster.
type ClusterSelector struct {
	// Name is the name of the member cluster.
	Name string
}

// Condition types of MultiClusterServices and MultiClusterIngresses.
const (
	// MultiClusterServiceConditionReady is True once some provider serves
	// endpoints into the consumers.
	MultiClusterServiceConditionReady = "Ready"
	// MultiClusterIngressConditionReady is True once the Ingress is written
	// into the consumer clusters.
	MultiClusterIngressConditionReady = "Ready"
)

// MultiClusterServiceStatus is the observed state of a MultiClusterService.
type MultiClusterServiceStatus struct {
	// Conditions are the latest observations of the service: Ready (some
	// provider serves endpoints into the consumers).
	Conditions []metav1.Condition

	// ProviderClusters are the providers whose endpoints are imported now.
	ProviderClusters []string

	// ConsumerClusters are the clusters the service is imported into now.
	ConsumerClusters []string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterIngress is an Ingress for each consumer cluster of the
// multi-cluster services its backends name: fed writes, into every cluster
// that imports a service a backend names, an Ingress of the same name whose
// backends point at the derived-<service> Services there.
type MultiClusterIngress struct {
	metav1.TypeMeta
	// Standard object metadata.
	metav1.ObjectMeta

	// Spec is the Ingress to write into the consumer clusters.
	Spec MultiClusterIngressSpec

	// Status is the clusters the Ingress is written into, and whether it is
	// ready.
	Status MultiClusterIngressStatus
}

// MultiClusterIngressSpec is the desired behavior of a MultiClusterIngress.
type MultiClusterIngressSpec struct {
	// Template is the Ingress to write into the consumer clusters.
	Template IngressTemplate
}

// IngressTemplate is the Ingress a MultiClusterIngress writes.
type IngressTemplate struct {
	// Metadata is the labels and annotations of the Ingresses written.
	Metadata IngressTemplateMetadata

	// Spec is a networking.k8s.io/v1 IngressSpec whose backend services name
	// MultiClusterServices (or imported services) of the same namespace.
	Spec networkingv1.IngressSpec
}

// IngressTemplateMetadata is the metadata of the Ingresses a
// MultiClusterIngress writes.
type IngressTemplateMetadata struct {
	// Labels are the labels of the Ingresses written.
	Labels map[string]string

	// Annotations are the annotations of the Ingresses written, for example
	// those of the ingress controller.
	Annotations map[string]string
}

// MultiClusterIngressStatus is the observed state of a MultiClusterIngress.
type MultiClusterIngressStatus struct {
	// Conditions are the latest observations of the ingress: Ready.
	Conditions []metav1.Condition

	// Clusters are the clusters the Ingress is written into.
	Clusters []string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterServiceList is a list of MultiClusterServices.
type MultiClusterServiceList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the MultiClusterServices.
	Items []MultiClusterService
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterIngressList is a list of MultiClusterIngresses.
type MultiClusterIngressList struct {
	metav1.TypeMeta
	// Standard list metadata.
	metav1.ListMeta

	// Items are the MultiClusterIngresses.
	Items []MultiClusterIngress
}
