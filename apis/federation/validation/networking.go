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

	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

var (
	supportedExposureTypes = sets.New(federation.ExposureTypeCrossCluster)
	supportedPathTypes     = sets.New(networkingv1.PathTypeExact, networkingv1.PathTypePrefix, networkingv1.PathTypeImplementationSpecific)
)

// ValidateMultiClusterService checks a MultiClusterService on create.
func ValidateMultiClusterService(s *federation.MultiClusterService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&s.ObjectMeta, true, validateMultiClusterServiceName, field.NewPath("metadata"))
	return append(allErrs, ValidateMultiClusterServiceSpec(&s.Spec, field.NewPath("spec"))...)
}

// ValidateMultiClusterServiceUpdate checks a MultiClusterService on update.
func ValidateMultiClusterServiceUpdate(newS, oldS *federation.MultiClusterService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newS.ObjectMeta, &oldS.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateMultiClusterServiceSpec(&newS.Spec, field.NewPath("spec"))...)
}

// ValidateMultiClusterServiceStatusUpdate checks a write to the status
// subresource.
func ValidateMultiClusterServiceStatusUpdate(newS, oldS *federation.MultiClusterService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newS.ObjectMeta, &oldS.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("status")
	allErrs = append(allErrs, validateConditions(newS.Status.Conditions, p.Child("conditions"))...)
	allErrs = append(allErrs, validateClusterNames(newS.Status.ProviderClusters, p.Child("providerClusters"))...)
	return append(allErrs, validateClusterNames(newS.Status.ConsumerClusters, p.Child("consumerClusters"))...)
}

// validateMultiClusterServiceName checks the name of a MultiClusterService:
// the name of a Service, short enough that the derived Service's name is one
// too.
func validateMultiClusterServiceName(name string, prefix bool) []string {
	msgs := apimachineryvalidation.NameIsDNS1035Label(name, prefix)
	if derived := federationv1alpha1.DerivedServiceName(name); len(msgs) == 0 && len(derived) > validation.DNS1035LabelMaxLength {
		msgs = append(msgs, fmt.Sprintf("must be no more than %d characters: the Service imported into the consumers is named %s, at most %d characters",
			validation.DNS1035LabelMaxLength-(len(derived)-len(name)), federationv1alpha1.DerivedServiceName("<name>"), validation.DNS1035LabelMaxLength))
	}
	return msgs
}

// ValidateMultiClusterServiceSpec checks the exposure types, the ports and
// the provider and consumer clusters.
func ValidateMultiClusterServiceSpec(spec *federation.MultiClusterServiceSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	typesPath := fldPath.Child("types")
	if len(spec.Types) == 0 {
		allErrs = append(allErrs, field.Required(typesPath, "at least one exposure type is required: CrossCluster"))
	}
	seenTypes := sets.New[federation.ExposureType]()
	for i, t := range spec.Types {
		allErrs = append(allErrs, validateEnum(t, supportedExposureTypes, true, typesPath.Index(i))...)
		if seenTypes.Has(t) {
			allErrs = append(allErrs, field.Duplicate(typesPath.Index(i), t))
		}
		seenTypes.Insert(t)
	}
	if len(spec.Ports) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("ports"), "the derived Service needs at least one port"))
	}
	allErrs = append(allErrs, validateExposurePorts(spec.Ports, fldPath.Child("ports"))...)
	allErrs = append(allErrs, validateClusterSelectors(spec.ProviderClusters, fldPath.Child("providerClusters"))...)
	return append(allErrs, validateClusterSelectors(spec.ConsumerClusters, fldPath.Child("consumerClusters"))...)
}

// validateExposurePorts checks the ports of a derived Service as a Service's
// are checked: every port named when there are several, names and port
// numbers unique.
func validateExposurePorts(ports []federation.ExposurePort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names, numbers := sets.New[string](), sets.New[int32]()
	for i, p := range ports {
		idxPath := fldPath.Index(i)
		namePath := idxPath.Child("name")
		switch {
		case p.Name == "" && len(ports) > 1:
			allErrs = append(allErrs, field.Required(namePath, "every port must be named when there are several"))
		case p.Name != "":
			for _, msg := range validation.IsDNS1123Label(p.Name) {
				allErrs = append(allErrs, field.Invalid(namePath, p.Name, msg))
			}
			if names.Has(p.Name) {
				allErrs = append(allErrs, field.Duplicate(namePath, p.Name))
			}
			names.Insert(p.Name)
		}
		for _, msg := range validation.IsValidPortNum(int(p.Port)) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("port"), p.Port, msg))
		}
		if numbers.Has(p.Port) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("port"), p.Port))
		}
		numbers.Insert(p.Port)
		if p.TargetPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.TargetPort)) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("targetPort"), p.TargetPort, msg+", or 0 for the same as port"))
			}
		}
	}
	return allErrs
}

// validateClusterSelectors checks a list of clusters by name: each a valid
// cluster name, none repeated.
func validateClusterSelectors(clusters []federation.ClusterSelector, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, c := range clusters {
		namePath := fldPath.Index(i).Child("name")
		allErrs = append(allErrs, validateClusterName(c.Name, namePath)...)
		if c.Name != "" && seen.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(namePath, c.Name))
		}
		seen.Insert(c.Name)
	}
	return allErrs
}

// ValidateMultiClusterIngress checks a MultiClusterIngress on create.
func ValidateMultiClusterIngress(i *federation.MultiClusterIngress) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&i.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateMultiClusterIngressSpec(&i.Spec, field.NewPath("spec"))...)
}

// ValidateMultiClusterIngressUpdate checks a MultiClusterIngress on update.
func ValidateMultiClusterIngressUpdate(newI, oldI *federation.MultiClusterIngress) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newI.ObjectMeta, &oldI.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateMultiClusterIngressSpec(&newI.Spec, field.NewPath("spec"))...)
}

// ValidateMultiClusterIngressStatusUpdate checks a write to the status
// subresource.
func ValidateMultiClusterIngressStatusUpdate(newI, oldI *federation.MultiClusterIngress) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newI.ObjectMeta, &oldI.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("status")
	allErrs = append(allErrs, validateConditions(newI.Status.Conditions, p.Child("conditions"))...)
	return append(allErrs, validateClusterNames(newI.Status.Clusters, p.Child("clusters"))...)
}

// ValidateMultiClusterIngressSpec checks the metadata of the template and
// its IngressSpec: some rule or a default backend, and every backend a
// service.
func ValidateMultiClusterIngressSpec(spec *federation.MultiClusterIngressSpec, fldPath *field.Path) field.ErrorList {
	tmplPath := fldPath.Child("template")
	md, mdPath := &spec.Template.Metadata, tmplPath.Child("metadata")
	allErrs := metav1validation.ValidateLabels(md.Labels, mdPath.Child("labels"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(md.Annotations, mdPath.Child("annotations"))...)

	is, specPath := &spec.Template.Spec, tmplPath.Child("spec")
	if len(is.Rules) == 0 && is.DefaultBackend == nil {
		allErrs = append(allErrs, field.Required(specPath, "at least one rule or a defaultBackend is required"))
	}
	if is.DefaultBackend != nil {
		allErrs = append(allErrs, validateIngressBackend(is.DefaultBackend, specPath.Child("defaultBackend"))...)
	}
	for i := range is.Rules {
		allErrs = append(allErrs, validateIngressRule(&is.Rules[i], specPath.Child("rules").Index(i))...)
	}
	return allErrs
}

func validateIngressRule(rule *networkingv1.IngressRule, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if rule.Host != "" {
		hostPath := fldPath.Child("host")
		msgs := validation.IsDNS1123Subdomain(rule.Host)
		if strings.Contains(rule.Host, "*") {
			msgs = validation.IsWildcardDNS1123Subdomain(rule.Host)
		}
		for _, msg := range msgs {
			allErrs = append(allErrs, field.Invalid(hostPath, rule.Host, msg))
		}
	}
	if rule.HTTP == nil {
		return allErrs
	}
	pathsPath := fldPath.Child("http", "paths")
	if len(rule.HTTP.Paths) == 0 {
		allErrs = append(allErrs, field.Required(pathsPath, "at least one path is required"))
	}
	for i, p := range rule.HTTP.Paths {
		idxPath := pathsPath.Index(i)
		if p.PathType == nil {
			allErrs = append(allErrs, field.Required(idxPath.Child("pathType"), "Exact, Prefix or ImplementationSpecific"))
		} else {
			allErrs = append(allErrs, validateEnum(*p.PathType, supportedPathTypes, true, idxPath.Child("pathType"))...)
			if (*p.PathType == networkingv1.PathTypeExact || *p.PathType == networkingv1.PathTypePrefix) && !strings.HasPrefix(p.Path, "/") {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("path"), p.Path, "must be an absolute path starting with /"))
			}
		}
		allErrs = append(allErrs, validateIngressBackend(&p.Backend, idxPath.Child("backend"))...)
	}
	return allErrs
}

// validateIngressBackend checks that a backend names a service, by name,
// and a port of it, by number or by name.
func validateIngressBackend(b *networkingv1.IngressBackend, fldPath *field.Path) field.ErrorList {
	const mustNameService = "a MultiClusterIngress backend must name a service"
	var allErrs field.ErrorList
	if b.Resource != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("resource"), mustNameService))
	}
	svc, svcPath := b.Service, fldPath.Child("service")
	if svc == nil {
		if b.Resource == nil {
			allErrs = append(allErrs, field.Required(svcPath, mustNameService))
		}
		return allErrs
	}
	if svc.Name == "" {
		allErrs = append(allErrs, field.Required(svcPath.Child("name"), "the name of a MultiClusterService of the namespace"))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNS1035Label(svc.Name, false) {
			allErrs = append(allErrs, field.Invalid(svcPath.Child("name"), svc.Name, msg))
		}
	}
	portPath := svcPath.Child("port")
	switch port := svc.Port; {
	case port.Name == "" && port.Number == 0:
		allErrs = append(allErrs, field.Required(portPath, "a port number or a port name is required"))
	case port.Name != "" && port.Number != 0:
		allErrs = append(allErrs, field.Forbidden(portPath.Child("name"), "give a port number or a port name, not both"))
	case port.Name != "":
		for _, msg := range validation.IsValidPortName(port.Name) {
			allErrs = append(allErrs, field.Invalid(portPath.Child("name"), port.Name, msg))
		}
	default:
		for _, msg := range validation.IsValidPortNum(int(port.Number)) {
			allErrs = append(allErrs, field.Invalid(portPath.Child("number"), port.Number, msg))
		}
	}
	return allErrs
}
