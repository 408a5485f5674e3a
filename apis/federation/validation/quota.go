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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clustervalidation "github.com/fedhq/fed/apis/cluster/validation"
	"github.com/fedhq/fed/apis/federation"
)

// quotaNames are the names of the Kubernetes resources a FederatedResourceQuota
// counts, besides extended resources: what a replica requests, by the name
// alone or in the requests. form as a ResourceQuota names them, and pods, the
// replicas themselves.
var quotaNames = sets.New(corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage)

// quotaNotCounted is the explanation of a resource name a FederatedResourceQuota
// does not count, after the supported values.
const quotaNotCounted = ", an extended resource name (such as example.com/gpu) or requests.<extended resource name>: " +
	"fed counts what replicas request across the fleet; object counts and limits are not enforced across the fleet"

// ValidateFederatedResourceQuota checks a FederatedResourceQuota on create.
func ValidateFederatedResourceQuota(q *federation.FederatedResourceQuota) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&q.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateFederatedResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
}

// ValidateFederatedResourceQuotaUpdate checks a FederatedResourceQuota on
// update, with the rules of create. Every field of the spec may change.
func ValidateFederatedResourceQuotaUpdate(newQ, oldQ *federation.FederatedResourceQuota) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newQ.ObjectMeta, &oldQ.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateFederatedResourceQuotaSpec(&newQ.Spec, field.NewPath("spec"))...)
}

// ValidateFederatedResourceQuotaStatusUpdate checks a write to the status
// subresource.
func ValidateFederatedResourceQuotaStatusUpdate(newQ, oldQ *federation.FederatedResourceQuota) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newQ.ObjectMeta, &oldQ.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateFederatedResourceQuotaStatus(&newQ.Status, field.NewPath("status"))...)
}

// ValidateFederatedResourceQuotaSpec checks the overall quota, required, and
// the static assignments: each of a valid cluster, named once, with hard
// limits only of resources of overall, and no resource assigned more than
// overall in all.
func ValidateFederatedResourceQuotaSpec(spec *federation.FederatedResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	overallPath := fldPath.Child("overall")
	if len(spec.Overall) == 0 {
		allErrs = append(allErrs, field.Required(overallPath, ""))
	} else {
		allErrs = append(allErrs, validateQuotaList(spec.Overall, overallPath)...)
	}

	assignmentsPath := fldPath.Child("staticAssignments")
	seen := sets.New[string]()
	for i := range spec.StaticAssignments {
		a := &spec.StaticAssignments[i]
		idxPath := assignmentsPath.Index(i)
		allErrs = append(allErrs, validateClusterName(a.ClusterName, idxPath.Child("clusterName"))...)
		if a.ClusterName != "" && seen.Has(a.ClusterName) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("clusterName"), a.ClusterName))
		}
		seen.Insert(a.ClusterName)

		hardPath := idxPath.Child("hard")
		if len(a.Hard) == 0 {
			allErrs = append(allErrs, field.Required(hardPath, ""))
			continue
		}
		allErrs = append(allErrs, validateQuotaList(a.Hard, hardPath)...)
		if len(spec.Overall) == 0 {
			continue
		}
		for _, name := range sets.List(sets.KeySet(a.Hard)) {
			// A name fed does not count is refused as such already.
			if _, counted := quotaResource(name); !counted {
				continue
			}
			if _, ok := spec.Overall[name]; !ok {
				q := a.Hard[name]
				allErrs = append(allErrs, field.Invalid(hardPath.Key(string(name)), q.String(), "not in spec.overall"))
			}
		}
	}

	for _, name := range sets.List(sets.KeySet(spec.Overall)) {
		var sum resource.Quantity
		assigned := false
		for i := range spec.StaticAssignments {
			if q, ok := spec.StaticAssignments[i].Hard[name]; ok {
				sum.Add(q)
				assigned = true
			}
		}
		// A negative overall, or one fed does not count, is refused as such
		// already.
		overall := spec.Overall[name]
		if _, counted := quotaResource(name); !counted || overall.Sign() < 0 {
			continue
		}
		if assigned && sum.Cmp(overall) > 0 {
			allErrs = append(allErrs, field.Invalid(assignmentsPath, sum.String(),
				fmt.Sprintf("the static assignments of %s add up to %s, more than spec.overall's %s", name, sum.String(), overall.String())))
		}
	}
	return allErrs
}

// ValidateFederatedResourceQuotaStatus checks the resource lists of the status
// as the spec's (the names fed counts, no quantity negative, whole numbers of
// pods and extended resources), the clusters of the aggregated status, valid
// and named once, the conditions and the observed generation.
func ValidateFederatedResourceQuotaStatus(status *federation.FederatedResourceQuotaStatus, fldPath *field.Path) field.ErrorList {
	allErrs := validateQuotaList(status.Overall, fldPath.Child("overall"))
	allErrs = append(allErrs, validateQuotaList(status.OverallUsed, fldPath.Child("overallUsed"))...)
	aggregatedPath := fldPath.Child("aggregatedStatus")
	seen := sets.New[string]()
	for i := range status.AggregatedStatus {
		s := &status.AggregatedStatus[i]
		idxPath := aggregatedPath.Index(i)
		allErrs = append(allErrs, validateClusterName(s.ClusterName, idxPath.Child("clusterName"))...)
		if s.ClusterName != "" && seen.Has(s.ClusterName) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("clusterName"), s.ClusterName))
		}
		seen.Insert(s.ClusterName)
		allErrs = append(allErrs, validateQuotaList(s.Hard, idxPath.Child("hard"))...)
		allErrs = append(allErrs, validateQuotaList(s.Used, idxPath.Child("used"))...)
	}
	allErrs = append(allErrs, validateConditions(status.Conditions, fldPath.Child("conditions"))...)
	return append(allErrs, validateNonnegative(status.ObservedGeneration, fldPath.Child("observedGeneration"))...)
}

// validateQuotaList checks a resource list of a FederatedResourceQuota: every
// name one fed counts across the fleet (cpu, memory, ephemeral-storage, pods,
// an extended resource, or the requests. form of one of them but pods), not
// two names of the same resource (cpu and requests.cpu), no quantity
// negative, and whole numbers of pods and of extended resources.
func validateQuotaList(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	allErrs := clustervalidation.ValidateResourceList(list, fldPath)
	given := map[corev1.ResourceName]corev1.ResourceName{}
	for _, name := range sets.List(sets.KeySet(list)) {
		keyPath := fldPath.Key(string(name))
		q := list[name]
		requested, counted := quotaResource(name)
		if !counted {
			err := field.NotSupported(keyPath, name, sets.List(quotaNames))
			err.Detail += quotaNotCounted
			allErrs = append(allErrs, err)
			continue
		}
		if other, ok := given[requested]; ok {
			allErrs = append(allErrs, field.Invalid(keyPath, q.String(),
				fmt.Sprintf("%s is given too: %s and %s are the same quota, give one of them", other, other, name)))
		}
		given[requested] = name
		if (requested == corev1.ResourcePods || isExtendedResourceName(requested)) && q.MilliValue()%1000 != 0 {
			allErrs = append(allErrs, field.Invalid(keyPath, q.String(), "must be an integer"))
		}
	}
	return allErrs
}

// quotaResource returns the resource a quota's resource name counts (cpu for
// both cpu and requests.cpu) and whether fed counts it.
func quotaResource(name corev1.ResourceName) (corev1.ResourceName, bool) {
	requested := corev1.ResourceName(strings.TrimPrefix(string(name), corev1.DefaultResourceRequestsPrefix))
	switch {
	case quotaNames.Has(name):
		return requested, true
	case strings.HasPrefix(string(name), "count/") || strings.HasPrefix(string(name), "limits.") || inK8sIODomain(name):
		// Names of a ResourceQuota that IsExtendedResourceName would take for
		// extended resources: object counts (count/deployments.apps), limits
		// of extended resources (limits.example.com/gpu), and Kubernetes'
		// own names of storage classes' and device classes' quotas
		// (gold.storageclass.storage.k8s.io/requests.storage).
		return requested, false
	case requested != name: // requests.<extended resource>
		return requested, isExtendedResourceName(requested)
	default:
		return name, isExtendedResourceName(name)
	}
}

// inK8sIODomain says whether name is of k8s.io or of one of its subdomains,
// whose names are Kubernetes' own.
func inK8sIODomain(name corev1.ResourceName) bool {
	domain, _, qualified := strings.Cut(string(name), "/")
	return qualified && (domain == "k8s.io" || strings.HasSuffix(domain, ".k8s.io"))
}

// isExtendedResourceName says whether name is an extended resource, as
// k8s.io/kubernetes/pkg/apis/core/v1/helper.IsExtendedResourceName does (a
// package of Kubernetes itself, which fed does not depend on): a name outside
// the kubernetes.io/ domain, fully qualified, not starting with requests.,
// and a qualified name once prefixed with requests. as quotas name it.
func isExtendedResourceName(name corev1.ResourceName) bool {
	s := string(name)
	native := !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix)
	if native || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}
