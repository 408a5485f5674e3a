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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/apis/federation"
)

func TestValidateResourceInterpreterWebhookConfiguration(t *testing.T) {
	good := federation.ResourceInterpreterWebhook{Name: "workloads.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:8443/interpret")},
		Rules: []federation.InterpreterRuleWithOperations{{Operations: []federation.InterpreterOperation{"InterpretReplica", "AggregateStatus"},
			APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Kinds: []string{"Workload"}}},
		TimeoutSeconds: ptr.To[int32](10), InterpreterContextVersions: []string{"v1alpha1"}}
	c := &federation.ResourceInterpreterWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "examples"},
		Webhooks: []federation.ResourceInterpreterWebhook{good}}
	if errs := ValidateResourceInterpreterWebhookConfiguration(c); len(errs) > 0 {
		t.Fatalf("a webhook as Karmada's docs write it: %v", errs.ToAggregate())
	}
	bad := good
	bad.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To("http://127.0.0.1/interpret"),
		Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}}
	bad.Rules = []federation.InterpreterRuleWithOperations{{Operations: []federation.InterpreterOperation{"Prune"}, APIGroups: []string{"*", "apps"}}}
	bad.TimeoutSeconds = ptr.To[int32](31)
	bad.InterpreterContextVersions = []string{"v1beta1"}
	insecure := good
	insecure.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To("http://127.0.0.1/interpret")}
	c.Webhooks = []federation.ResourceInterpreterWebhook{good, bad, insecure}
	got := ValidateResourceInterpreterWebhookConfiguration(c).ToAggregate().Error()
	for _, want := range []string{
		`webhooks[1].name: Duplicate value: "workloads.example.com"`,
		"webhooks[1].clientConfig: Invalid value: \"url and service\": exactly one of url or service",
		`webhooks[1].rules[0].operations[0]: Unsupported value: "Prune"`,
		`webhooks[1].rules[0].apiGroups: Invalid value: ["*","apps"]: "*" must be alone`,
		"webhooks[1].rules[0].kinds: Required value",
		"webhooks[1].timeoutSeconds: Invalid value: 31: must be between 1 and 30 seconds",
		"webhooks[1].interpreterContextVersions: Invalid value: [\"v1beta1\"]: must include v1alpha1",
		`webhooks[2].clientConfig.url: Invalid value: "http://127.0.0.1/interpret": must be an https URL with a host`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q\nlack %q", got, want)
		}
	}
}
