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

// Package manifest is what fed applies to a member for a template: the template without
// what belongs to the fleet's copy alone, with the cluster's share of replicas, and fed's
// marks. The binding controller builds Works of it; the namespace controller a member's
// namespace.
package manifest

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/native"
	"github.com/fedhq/fed/controllers/internal/trim"
	"github.com/fedhq/fed/interpreter"
)

// metadataDropped are the fields of a template's metadata that belong to the fleet's copy
// alone: members give their objects their own.
var metadataDropped = []string{"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "ownerReferences", "finalizers", "selfLink"}

// lastApplied is kubectl's record of the last apply to the fleet; it says nothing true
// about the member's object.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// deploymentRevision is the revision a Deployment's controller gives it.
const deploymentRevision = "deployment.kubernetes.io/revision"

// For is what fed applies to one member for a template, before overrides: the
// template without its status, fleet-only metadata and the fields no writer of it set (the
// host's defaults the fleet stores; trim.WritersOnly), with the cluster's replicas when the
// placement divides them (set by interp, a customization's replicaRevision script or the
// built-in spec.replicas), or without replicas when the template leaves them to the
// members (LabelRetainReplicas).
func For(interp *interpreter.Interpreter, tmpl *unstructured.Unstructured, spec *federationv1alpha1.ResourceBindingSpec,
	target federationv1alpha1.TargetCluster) (*unstructured.Unstructured, error) {
	obj := tmpl.DeepCopy()
	delete(obj.Object, "status")
	trim.WritersOnly(obj)
	if md, ok := obj.Object["metadata"].(map[string]any); ok {
		for _, f := range metadataDropped {
			delete(md, f)
		}
	}
	if annotations := obj.GetAnnotations(); annotations != nil {
		delete(annotations, lastApplied)
		if obj.GetAPIVersion() == "apps/v1" && obj.GetKind() == "Deployment" {
			// The fleet's count of the template's revisions; each member's deployment
			// controller counts its own.
			delete(annotations, deploymentRevision)
		}
		obj.SetAnnotations(annotations)
	}
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Service" {
		// The template's cluster IP is the fleet's; each member allocates its own.
		native.StripClusterIPs(obj)
	}
	if obj.GetLabels()[federationv1alpha1.LabelRetainReplicas] == "true" {
		// The members' own HPAs decide: fed claims no replicas (server-side apply then
		// leaves what the HPA set).
		unstructured.RemoveNestedField(obj.Object, "spec", "replicas")
		return obj, nil
	}
	if spec.Placement.ReplicasDivided() && spec.Replicas > 0 {
		return interp.ReviseReplica(obj, target.Replicas)
	}
	return obj, nil
}

// Stamp marks a manifest, overrides applied, as fed's: the label LabelManaged, the
// template's UID and generation, the policy's conflictResolution and the overrides applied. It comes after
// the overrides so that none can remove it.
func Stamp(manifest *unstructured.Unstructured, tmpl *unstructured.Unstructured, spec *federationv1alpha1.ResourceBindingSpec, overrides []string) {
	annotations := manifest.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	if uid := tmpl.GetUID(); uid != "" {
		annotations[federationv1alpha1.AnnotationTemplateUID] = string(uid)
	}
	if g := tmpl.GetGeneration(); g > 0 {
		annotations[federationv1alpha1.AnnotationTemplateGeneration] = strconv.FormatInt(g, 10)
	}
	if spec.ConflictResolution == federationv1alpha1.ConflictOverwrite {
		annotations[federationv1alpha1.AnnotationConflictResolution] = string(federationv1alpha1.ConflictOverwrite)
	}
	if len(overrides) > 0 {
		annotations[federationv1alpha1.AnnotationAppliedOverrides] = strings.Join(overrides, ",")
	}
	manifest.SetAnnotations(annotations)
	labels := manifest.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[federationv1alpha1.LabelManaged] = "true"
	manifest.SetLabels(labels)
}
