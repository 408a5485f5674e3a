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
	"net/url"
	"slices"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedhq/fed/apis/federation"
)

// InterpreterContextVersion is the version of ResourceInterpreterContext fed sends.
const InterpreterContextVersion = "v1alpha1"

var interpreterOperations = sets.New(federation.InterpreterOperationAll, federation.InterpreterOperationInterpretReplica,
	federation.InterpreterOperationInterpretComponent, federation.InterpreterOperationReviseReplica,
	federation.InterpreterOperationInterpretStatus, federation.InterpreterOperationRetain,
	federation.InterpreterOperationAggregateStatus, federation.InterpreterOperationInterpretHealth,
	federation.InterpreterOperationInterpretDependency)

// ValidateResourceInterpreterWebhookConfiguration checks a configuration on create.
func ValidateResourceInterpreterWebhookConfiguration(c *federation.ResourceInterpreterWebhookConfiguration) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&c.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateInterpreterWebhooks(c.Webhooks, field.NewPath("webhooks"))...)
}

// ValidateResourceInterpreterWebhookConfigurationUpdate checks a configuration on update.
func ValidateResourceInterpreterWebhookConfigurationUpdate(newC, oldC *federation.ResourceInterpreterWebhookConfiguration) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newC.ObjectMeta, &oldC.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateInterpreterWebhooks(newC.Webhooks, field.NewPath("webhooks"))...)
}

func validateInterpreterWebhooks(hooks []federation.ResourceInterpreterWebhook, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, h := range hooks {
		p := fldPath.Index(i)
		switch {
		case h.Name == "":
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		case names.Has(h.Name):
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), h.Name))
		default:
			for _, msg := range validation.IsQualifiedName(h.Name) {
				allErrs = append(allErrs, field.Invalid(p.Child("name"), h.Name, msg))
			}
		}
		names.Insert(h.Name)
		allErrs = append(allErrs, validateWebhookClientConfig(h, p.Child("clientConfig"))...)
		for j, r := range h.Rules {
			rp := p.Child("rules").Index(j)
			if len(r.Operations) == 0 {
				allErrs = append(allErrs, field.Required(rp.Child("operations"), ""))
			}
			for k, op := range r.Operations {
				if !interpreterOperations.Has(op) {
					allErrs = append(allErrs, field.NotSupported(rp.Child("operations").Index(k), op, sets.List(interpreterOperations)))
				}
			}
			for _, l := range []struct {
				name   string
				values []string
			}{{"apiGroups", r.APIGroups}, {"apiVersions", r.APIVersions}, {"kinds", r.Kinds}} {
				if len(l.values) == 0 {
					allErrs = append(allErrs, field.Required(rp.Child(l.name), `"*" for all`))
				}
				if len(l.values) > 1 && slices.Contains(l.values, "*") {
					allErrs = append(allErrs, field.Invalid(rp.Child(l.name), l.values, `"*" must be alone`))
				}
			}
		}
		if t := h.TimeoutSeconds; t != nil && (*t < 1 || *t > 30) {
			allErrs = append(allErrs, field.Invalid(p.Child("timeoutSeconds"), *t, "must be between 1 and 30 seconds"))
		}
		if !slices.Contains(h.InterpreterContextVersions, InterpreterContextVersion) {
			allErrs = append(allErrs, field.Invalid(p.Child("interpreterContextVersions"), h.InterpreterContextVersions,
				fmt.Sprintf("must include %s, the version of ResourceInterpreterContext fed sends", InterpreterContextVersion)))
		}
	}
	return allErrs
}

// validateWebhookClientConfig checks a webhook's address as kube-apiserver checks an
// admission webhook's: exactly one of url (https, no user, query or fragment) and service.
func validateWebhookClientConfig(h federation.ResourceInterpreterWebhook, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	cc := h.ClientConfig
	switch {
	case cc.URL == nil && cc.Service == nil:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one of url or service"))
	case cc.URL != nil && cc.Service != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, "url and service", "exactly one of url or service"))
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		switch {
		case err != nil:
			allErrs = append(allErrs, field.Invalid(fldPath.Child("url"), *cc.URL, err.Error()))
		case u.Scheme != "https" || u.Host == "":
			allErrs = append(allErrs, field.Invalid(fldPath.Child("url"), *cc.URL, "must be an https URL with a host"))
		case u.User != nil || u.RawQuery != "" || u.Fragment != "":
			allErrs = append(allErrs, field.Invalid(fldPath.Child("url"), *cc.URL, "must have no user, query or fragment"))
		}
	default:
		s := cc.Service
		sp := fldPath.Child("service")
		for _, msg := range validation.IsDNS1123Label(s.Name) {
			allErrs = append(allErrs, field.Invalid(sp.Child("name"), s.Name, msg))
		}
		for _, msg := range validation.IsDNS1123Label(s.Namespace) {
			allErrs = append(allErrs, field.Invalid(sp.Child("namespace"), s.Namespace, msg))
		}
		if s.Port != nil {
			for _, msg := range validation.IsValidPortNum(int(*s.Port)) {
				allErrs = append(allErrs, field.Invalid(sp.Child("port"), *s.Port, msg))
			}
		}
		if s.Path != nil && !strings.HasPrefix(*s.Path, "/") {
			allErrs = append(allErrs, field.Invalid(sp.Child("path"), *s.Path, "must start with /"))
		}
	}
	return allErrs
}
