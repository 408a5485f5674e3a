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
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// FleetResource and FleetName name the fleet API in the host's authorization. For the
	// host, a request to FleetPath + "/apis/apps/v1/..." is a request on the proxy
	// subresource of fleets/default in this group, like clusters/NAME/proxy: one RBAC rule on
	// fleets/proxy lets a user in, the host treats watches through it as long-running, and
	// fed-apiserver then authorizes the inner request against the host's RBAC for its own
	// verb, resource and namespace.
	FleetResource = "fleets"
	FleetName     = "default"

	// FleetPath is where fed-apiserver serves the fleet API: a whole Kubernetes API (any
	// native kind, CRDs and their objects, fed's own groups) whose objects are templates
	// stored by fed and never created in the host. A kubeconfig whose server is the host's
	// URL + FleetPath makes kubectl, Helm and GitOps tools work against the fleet.
	FleetPath = "/apis/" + GroupName + "/v1alpha1/" + FleetResource + "/" + FleetName + "/proxy"
	// FleetVersionOfFed is the value of the server parameter of the fleet's /version that
	// asks for fed-apiserver's own version: without it, the fleet answers the host's, whose
	// API it serves (kubectl version, Helm's .Capabilities.KubeVersion).
	FleetVersionOfFed = "fed-apiserver"

	// LabelManaged, with the value "true", marks a member object that fed created or
	// adopted from a template; `kubectl fed get` shows ADOPTION Y for it. Propagation sets it.
	LabelManaged = "federation.fedhq.io/managed"

	// LabelRetainReplicas, with the value "true" on a workload template, leaves its
	// replicas to the members: fed applies the template without spec.replicas, so that an
	// HPA in a member is not fought. fed sets it (with AnnotationRetainReplicasFor) while an
	// HorizontalPodAutoscaler template in the fleet targets the workload, and removes what it
	// set when none does; a user may set it by hand.
	LabelRetainReplicas = "federation.fedhq.io/retain-replicas"
	// AnnotationRetainReplicasFor names the HorizontalPodAutoscaler templates for which fed
	// set LabelRetainReplicas.
	AnnotationRetainReplicasFor = "federation.fedhq.io/retain-replicas-for"
)

// AnnotationView marks an object of the fleet that is fed's record, not a template: a
// Deployment template's rollout shown as ReplicaSets ("rollout", computed and never stored,
// or "rollout-history", an earlier revision kept as a ReplicaSet with no replicas). fed
// never propagates one.
const AnnotationView = "federation.fedhq.io/view"

// Names fed gives to the objects of propagation.
const (
	// ExecutionNamespacePrefix starts the name of each member's execution namespace in the
	// fleet, fed-es-<cluster>, which holds the Works for that member. The detector never
	// propagates anything in it, nor the namespace itself.
	ExecutionNamespacePrefix = "fed-es-"

	// AnnotationBinding, on a Work, names its binding: "<namespace>/<name>" for a
	// ResourceBinding, "<name>" for a ClusterResourceBinding.
	AnnotationBinding = "federation.fedhq.io/binding"

	// AnnotationReplicas, on a Work of a workload with replicas, is how many its cluster
	// runs by the binding's spec.clusters; the Work is as the binding wants it when they
	// agree (its manifest may not say: a template whose member keeps its replicas).
	AnnotationReplicas = "federation.fedhq.io/replicas"

	// AnnotationWork, on a member object, names the Work in the member's execution
	// namespace that applied it.
	AnnotationWork = "federation.fedhq.io/work"

	// AnnotationTemplateUID, on a member object, is the UID of the template fed made it
	// from. It stays when fed releases the object (its binding was deleted by hand), so
	// that the same template can take it back without a conflict, while another cannot.
	AnnotationTemplateUID = "federation.fedhq.io/template-uid"

	// AnnotationTemplateGeneration, on a binding whose policy is Lazy, is the template
	// generation the policy was last applied at. On a member object, it is the
	// metadata.generation of the template fed made it from. Once the member's controller has observed the object
	// (its status.observedGeneration reached its own generation), fed reports that the
	// member observed this generation of the template (the template's
	// status.observedGeneration moves when every member has).
	AnnotationTemplateGeneration = "federation.fedhq.io/template-generation"

	// AnnotationConflictResolution, on a manifest of a Work, is the policy's
	// conflictResolution; execution reads it and removes it before applying.
	AnnotationConflictResolution = "federation.fedhq.io/conflict-resolution"

	// AnnotationAppliedOverrides, on a member object and its Work, lists the override
	// policies applied to it for its cluster, in order: "ClusterOverridePolicy/<name>" and
	// "OverridePolicy/<namespace>/<name>", separated by commas.
	AnnotationAppliedOverrides = "federation.fedhq.io/applied-overrides"

	// AnnotationOverrideError, on a Work, says why the template could not be customised
	// for the cluster; execution then applies nothing and reports it in the Work's status.
	AnnotationOverrideError = "federation.fedhq.io/override-error"

	// AnnotationAuthor, on an OverridePolicy or ClusterOverridePolicy, is who last wrote its
	// spec (policy.Author, as JSON), recorded by fed-apiserver from the request and kept as it is
	// by any other write: the binding controller checks what the policy makes of a template
	// with the host as that user, who may have fed write to members only what they may
	// create in the host themselves. On a FederatedResourceQuota likewise (its static
	// assignments' ResourceQuotas); on a ClusterTaintPolicy, fed writes the policy's taints
	// only while that user may update Clusters.
	AnnotationAuthor = "federation.fedhq.io/author"

	// AnnotationMultiClusterService, on a Work, names the exported service
	// ("<namespace>/<name>") whose Service or endpoints it imports into its cluster.
	AnnotationMultiClusterService = "federation.fedhq.io/multicluster-service"

	// AnnotationMultiClusterIngress, on a Work, names the MultiClusterIngress
	// ("<namespace>/<name>") whose Ingress it writes into its cluster.
	AnnotationMultiClusterIngress = "federation.fedhq.io/multicluster-ingress"

	// AnnotationFederatedResourceQuota, on a Work, names the FederatedResourceQuota
	// ("<namespace>/<name>") whose static assignment's ResourceQuota it writes into its
	// cluster.
	AnnotationFederatedResourceQuota = "federation.fedhq.io/federated-resource-quota"

	// EndpointSliceManagedBy is the endpointslice.kubernetes.io/managed-by label of the
	// EndpointSlices fed writes into the clusters that import a service, so that their
	// own endpointslice controllers leave them alone.
	EndpointSliceManagedBy = "fed.fedhq.io"

	// FinalizerExecution keeps a Work until execution has removed (or released) its
	// objects from the member.
	FinalizerExecution = "federation.fedhq.io/execution"

	// FieldManager is the server-side apply field manager of every member object fed writes.
	FieldManager = "fed"
)

// ExecutionNamespace is the namespace of the fleet that holds the Works of a member.
func ExecutionNamespace(cluster string) string { return ExecutionNamespacePrefix + cluster }

// Labels a binding carries: the policy that made it.
const (
	LabelPolicyNamespace = "propagationpolicy.federation.fedhq.io/namespace"
	LabelPolicyName      = "propagationpolicy.federation.fedhq.io/name"
	LabelClusterPolicy   = "clusterpropagationpolicy.federation.fedhq.io/name"
)

// LabelDeletionProtected on a template, with the value DeletionProtectedAlways, keeps the
// fleet from deleting it (Karmada's resourcetemplate.karmada.io/deletion-protected).
const (
	LabelDeletionProtected  = "resourcetemplate.fedhq.io/deletion-protected"
	DeletionProtectedAlways = "Always"
)

// BindingName is the name of the binding of a template: its name and its kind, so that a
// Deployment and a Service of the same name have their own.
func BindingName(kind, name string) string {
	return name + "-" + strings.ToLower(kind)
}

// BindingKey is how a Work names its binding in AnnotationBinding: the binding's
// "<namespace>/<name>", as client-go's cache keys it.
func BindingKey(bindingNamespace, bindingName string) string {
	if bindingNamespace == "" {
		return bindingName
	}
	return bindingNamespace + "/" + bindingName
}

// WorkName is the name of the Work of a binding in each execution namespace: the
// binding's name, after its namespace and a dot for a ResourceBinding. A namespace has no
// dot, and a binding name ends in its kind, so no two bindings share a Work name.
func WorkName(bindingNamespace, bindingName string) string {
	if bindingNamespace == "" {
		return bindingName
	}
	return bindingNamespace + "." + bindingName
}

// IsFederatedHPA tells whether a CronFederatedHPA's scaleTargetRef names a FederatedHPA
// (its bounds are scaled) rather than a workload (its replicas are): kind FederatedHPA in
// this group, or with no group.
func IsFederatedHPA(ref autoscalingv2.CrossVersionObjectReference) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && ref.Kind == "FederatedHPA" && (gv.Group == "" || gv.Group == GroupName)
}

// ReplicasDivided tells whether a placement divides the replicas among its clusters
// (Divided); otherwise (Duplicated, or no replica scheduling) every cluster runs them all.
func (p *Placement) ReplicasDivided() bool {
	return p != nil && p.ReplicaScheduling != nil && p.ReplicaScheduling.ReplicaSchedulingType == ReplicaSchedulingTypeDivided
}

// DerivedServiceName is the Service fed makes, in each cluster that imports a
// multi-cluster service, for the service's endpoints in the clusters that export it.
func DerivedServiceName(service string) string { return "derived-" + service }

// Event is the reference events about a template are recorded with (in the fleet, where
// kubectl describe of the template finds them).
func (r ObjectReference) Event() *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
}
