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
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceInterpreterWebhookConfiguration names HTTPS webhooks that answer the
// interpreter's operations for kinds whose logic lives in their own operator.
type ResourceInterpreterWebhookConfiguration struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// Webhooks are the webhooks and what each answers.
	Webhooks []ResourceInterpreterWebhook
}

// ResourceInterpreterWebhook is one webhook.
type ResourceInterpreterWebhook struct {
	// Name names the webhook, unique in the configuration.
	Name string

	// ClientConfig says how to reach the webhook.
	ClientConfig admissionregistrationv1.WebhookClientConfig

	// Rules say which operations of which kinds the webhook answers.
	Rules []InterpreterRuleWithOperations

	// TimeoutSeconds is how long fed waits for an answer (1 to 30; 10 by default).
	TimeoutSeconds *int32

	// InterpreterContextVersions are the versions of ResourceInterpreterContext the
	// webhook reads, in its order of preference.
	InterpreterContextVersions []string
}

// InterpreterRuleWithOperations is a rule of a webhook.
type InterpreterRuleWithOperations struct {
	// Operations are the operations answered; "*" for all.
	Operations []InterpreterOperation

	// APIGroups, APIVersions and Kinds say which kinds; "*" for all.
	APIGroups   []string
	APIVersions []string
	Kinds       []string
}

// InterpreterOperation is an operation of the interpreter, as a webhook's rules
// and requests name it.
type InterpreterOperation string

// The operations a webhook may answer.
const (
	InterpreterOperationAll                 InterpreterOperation = "*"
	InterpreterOperationInterpretReplica    InterpreterOperation = "InterpretReplica"
	InterpreterOperationInterpretComponent  InterpreterOperation = "InterpretComponent"
	InterpreterOperationReviseReplica       InterpreterOperation = "ReviseReplica"
	InterpreterOperationInterpretStatus     InterpreterOperation = "InterpretStatus"
	InterpreterOperationRetain              InterpreterOperation = "Retain"
	InterpreterOperationAggregateStatus     InterpreterOperation = "AggregateStatus"
	InterpreterOperationInterpretHealth     InterpreterOperation = "InterpretHealth"
	InterpreterOperationInterpretDependency InterpreterOperation = "InterpretDependency"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceInterpreterWebhookConfigurationList is a list of
// ResourceInterpreterWebhookConfigurations.
type ResourceInterpreterWebhookConfigurationList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []ResourceInterpreterWebhookConfiguration
}
