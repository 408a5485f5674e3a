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

// Package validation checks cluster.fedhq.io objects before they are stored.
// Every function reports all problems it finds, each at the path of the
// offending field.
package validation

import (
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

var (
	supportedSyncModes   = sets.New(cluster.Push, cluster.Pull)
	supportedTaintEffect = sets.New(corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
)

// ValidateClusterName checks that name can name a member cluster: a DNS-1123
// subdomain. Policies, bindings and Works refer to clusters by this name.
var ValidateClusterName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateCluster checks a Cluster on create.
func ValidateCluster(c *cluster.Cluster) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&c.ObjectMeta, false, ValidateClusterName, field.NewPath("metadata"))
	return append(allErrs, ValidateClusterSpec(&c.Spec, field.NewPath("spec"))...)
}

// ValidateClusterUpdate checks a Cluster on update: the new object must be
// valid, and spec.id cannot change once set.
func ValidateClusterUpdate(newC, oldC *cluster.Cluster) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newC.ObjectMeta, &oldC.ObjectMeta, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, ValidateClusterSpec(&newC.Spec, specPath)...)
	if oldC.Spec.ID != "" && newC.Spec.ID != oldC.Spec.ID {
		allErrs = append(allErrs, field.Invalid(specPath.Child("id"), newC.Spec.ID, "cannot be changed once set"))
	}
	if old, ok := oldC.Annotations[clusterv1alpha1.AnnotationRegistration]; ok && newC.Annotations[clusterv1alpha1.AnnotationRegistration] != old {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata", "annotations").Key(clusterv1alpha1.AnnotationRegistration),
			newC.Annotations[clusterv1alpha1.AnnotationRegistration], "cannot be changed once set: it names the registration its agent's certificates are of"))
	}
	return allErrs
}

// ValidateClusterStatusUpdate checks a write to the status subresource.
func ValidateClusterStatusUpdate(newC, oldC *cluster.Cluster) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newC.ObjectMeta, &oldC.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateClusterStatus(&newC.Status, field.NewPath("status"))...)
}

// ValidateClusterSpec checks the spec of a Cluster.
func ValidateClusterSpec(spec *cluster.ClusterSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case spec.SyncMode == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("syncMode"), ""))
	case !supportedSyncModes.Has(spec.SyncMode):
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("syncMode"), spec.SyncMode, sets.List(supportedSyncModes)))
	}
	push := spec.SyncMode == cluster.Push
	if spec.APIEndpoint != "" {
		allErrs = append(allErrs, validateAPIEndpoint(spec.APIEndpoint, fldPath.Child("apiEndpoint"))...)
	} else if push {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiEndpoint"), "fed dials the member in Push mode"))
	}
	if spec.SecretRef != nil {
		allErrs = append(allErrs, validateSecretRef(spec.SecretRef, fldPath.Child("secretRef"))...)
	} else if push {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretRef"), "fed needs the member's credentials in Push mode"))
	}
	if spec.ImpersonatorSecretRef != nil {
		allErrs = append(allErrs, validateSecretRef(spec.ImpersonatorSecretRef, fldPath.Child("impersonatorSecretRef"))...)
	}
	return append(allErrs, validateTaints(spec.Taints, fldPath.Child("taints"))...)
}

func validateAPIEndpoint(endpoint string, fldPath *field.Path) field.ErrorList {
	u, err := url.Parse(endpoint)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, endpoint, err.Error())}
	}
	if u.Scheme != "https" || u.Host == "" {
		return field.ErrorList{field.Invalid(fldPath, endpoint, "must be an https URL with a host, such as https://10.0.0.1:6443")}
	}
	return nil
}

func validateSecretRef(ref *cluster.LocalSecretReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case ref.Namespace == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
	case ref.Namespace != clusterv1alpha1.FedNamespace:
		// fed reads the Secret and sends its token to the Cluster's apiEndpoint: a Secret of
		// another namespace would be one its writer may not read.
		allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), ref.Namespace,
			"must be "+clusterv1alpha1.FedNamespace+": fed reads members' credentials from its own namespace only (kubectl fed join puts them there)"))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(ref.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), ref.Name, msg))
		}
	}
	return allErrs
}

func validateTaints(taints []corev1.Taint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, t := range taints {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, idxPath.Child("key"))...)
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), t.Value, msg))
		}
		switch {
		case t.Effect == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("effect"), ""))
		case !supportedTaintEffect.Has(t.Effect):
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("effect"), t.Effect, sets.List(supportedTaintEffect)))
		}
		id := t.Key + ":" + string(t.Effect)
		if seen.Has(id) {
			allErrs = append(allErrs, field.Duplicate(idxPath, id))
		}
		seen.Insert(id)
	}
	return allErrs
}

// ValidateClusterStatus checks the status of a Cluster.
func ValidateClusterStatus(status *cluster.ClusterStatus, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateConditions(status.Conditions, fldPath.Child("conditions"))
	for i, e := range status.APIEnablements {
		idxPath := fldPath.Child("apiEnablements").Index(i)
		if _, err := schema.ParseGroupVersion(e.GroupVersion); err != nil || e.GroupVersion == "" {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("groupVersion"), e.GroupVersion, "must be a group version such as apps/v1 or v1"))
		}
		for j, r := range e.Resources {
			if r.Name == "" {
				allErrs = append(allErrs, field.Required(idxPath.Child("resources").Index(j).Child("name"), ""))
			}
			if r.Kind == "" {
				allErrs = append(allErrs, field.Required(idxPath.Child("resources").Index(j).Child("kind"), ""))
			}
		}
	}
	if s := status.NodeSummary; s != nil {
		p := fldPath.Child("nodeSummary")
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(s.TotalNum), p.Child("totalNum"))...)
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(s.ReadyNum), p.Child("readyNum"))...)
		if s.ReadyNum > s.TotalNum {
			allErrs = append(allErrs, field.Invalid(p.Child("readyNum"), s.ReadyNum, "must not exceed totalNum"))
		}
	}
	if s := status.ResourceSummary; s != nil {
		p := fldPath.Child("resourceSummary")
		allErrs = append(allErrs, ValidateResourceList(s.Allocatable, p.Child("allocatable"))...)
		allErrs = append(allErrs, ValidateResourceList(s.Allocating, p.Child("allocating"))...)
		allErrs = append(allErrs, ValidateResourceList(s.Allocated, p.Child("allocated"))...)
	}
	for i, a := range status.RemedyActions {
		if !supportedRemedyActions.Has(cluster.RemedyAction(a)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("remedyActions").Index(i), a, sets.List(supportedRemedyActions)))
		}
	}
	return allErrs
}

// ValidateResourceList checks that no quantity of a resource list is negative.
func ValidateResourceList(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, name := range sets.List(sets.KeySet(list)) {
		if q := list[name]; q.Sign() < 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Key(string(name)), q.String(), "must not be negative"))
		}
	}
	return allErrs
}
