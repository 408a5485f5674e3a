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

package v1alpha1

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterService exposes a Service of the fleet across clusters: the
// Service of the same name and namespace, running in the provider clusters,
// is imported into the consumer clusters as a Service named derived-<name>
// whose endpoints are the providers'.
type MultiClusterService struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is how the service is exposed, on which ports, from which clusters
	// and into which.
	Spec MultiClusterServiceSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the clusters the service is exported from and imported into
	// now, and whether it is ready.
	// +optional
	Status MultiClusterServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// MultiClusterServiceSpec is the desired behavior of a MultiClusterService.
type MultiClusterServiceSpec struct {
	// Types says how the service is exposed. Only CrossCluster is supported:
	// the consumers reach the providers' endpoints directly (given a pod
	// network across clusters, which fed does not provide).
	// +listType=set
	Types []ExposureType `json:"types" protobuf:"bytes,1,rep,name=types,casttype=ExposureType"`

	// Ports are the ports of the derived Service (at least one), all TCP: the
	// consumers' EndpointSlices carry the providers' endpoints on each port's
	// targetPort.
	// +listType=atomic
	Ports []ExposurePort `json:"ports" protobuf:"bytes,2,rep,name=ports"`

	// ProviderClusters are the clusters whose endpoints of the Service are
	// exported; empty: every cluster the Service is propagated to.
	// +optional
	// +listType=atomic
	ProviderClusters []ClusterSelector `json:"providerClusters,omitempty" protobuf:"bytes,3,rep,name=providerClusters"`

	// ConsumerClusters are the clusters the service is imported into; empty:
	// every cluster of the fleet.
	// +optional
	// +listType=atomic
	ConsumerClusters []ClusterSelector `json:"consumerClusters,omitempty" protobuf:"bytes,4,rep,name=consumerClusters"`
}

// ExposureType is a way of exposing a service across clusters.
// +enum
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
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`

	// Port is the port number the derived Service listens on.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`

	// TargetPort is the port of the providers' endpoints; defaults to port.
	// +optional
	TargetPort int32 `json:"targetPort,omitempty" protobuf:"varint,3,opt,name=targetPort"`
}

// ClusterSelector names a member cluster.
type ClusterSelector struct {
	// Name is the name of the member cluster.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
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
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`

	// ProviderClusters are the providers whose endpoints are imported now.
	// +optional
	// +listType=atomic
	ProviderClusters []string `json:"providerClusters,omitempty" protobuf:"bytes,2,rep,name=providerClusters"`

	// ConsumerClusters are the clusters the service is imported into now.
	// +optional
	// +listType=atomic
	ConsumerClusters []string `json:"consumerClusters,omitempty" protobuf:"bytes,3,rep,name=consumerClusters"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterIngress is an Ingress for each consumer cluster of the
// multi-cluster services its backends name: fed writes, into every cluster
// that imports a service a backend names, an Ingress of the same name whose
// backends point at the derived-<service> Services there.
type MultiClusterIngress struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the Ingress to write into the consumer clusters.
	Spec MultiClusterIngressSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// Status is the clusters the Ingress is written into, and whether it is
	// ready.
	// +optional
	Status MultiClusterIngressStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// MultiClusterIngressSpec is the desired behavior of a MultiClusterIngress.
type MultiClusterIngressSpec struct {
	// Template is the Ingress to write into the consumer clusters.
	Template IngressTemplate `json:"template" protobuf:"bytes,1,opt,name=template"`
}

// IngressTemplate is the Ingress a MultiClusterIngress writes.
type IngressTemplate struct {
	// Metadata is the labels and annotations of the Ingresses written.
	// +optional
	Metadata IngressTemplateMetadata `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is a networking.k8s.io/v1 IngressSpec whose backend services name
	// MultiClusterServices (or imported services) of the same namespace.
	Spec networkingv1.IngressSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// IngressTemplateMetadata is the metadata of the Ingresses a
// MultiClusterIngress writes.
type IngressTemplateMetadata struct {
	// Labels are the labels of the Ingresses written.
	// +optional
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,1,rep,name=labels"`

	// Annotations are the annotations of the Ingresses written, for example
	// those of the ingress controller.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,2,rep,name=annotations"`
}

// MultiClusterIngressStatus is the observed state of a MultiClusterIngress.
type MultiClusterIngressStatus struct {
	// Conditions are the latest observations of the ingress: Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`

	// Clusters are the clusters the Ingress is written into.
	// +optional
	// +listType=atomic
	Clusters []string `json:"clusters,omitempty" protobuf:"bytes,2,rep,name=clusters"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterServiceList is a list of MultiClusterServices.
type MultiClusterServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the MultiClusterServices.
	Items []MultiClusterService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MultiClusterIngressList is a list of MultiClusterIngresses.
type MultiClusterIngressList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the MultiClusterIngresses.
	Items []MultiClusterIngress `json:"items" protobuf:"bytes,2,rep,name=items"`
}
