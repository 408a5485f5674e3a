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
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ResourceInterpreterWebhookConfiguration names HTTPS webhooks that answer the
// interpreter's operations for kinds whose logic lives in their own operator.
// For each operation on an object, a ResourceInterpreterCustomization's Lua
// script for the kind answers first; else the first webhook (configurations
// by name, webhooks in order) whose rules match the kind and the operation;
// else fed's built-in knowledge. fed posts a ResourceInterpreterContext
// (federation.fedhq.io/v1alpha1) with the request and reads the response from
// the same object. A webhook that cannot be reached, answers late, or answers
// successful: false fails that object's step, which fed tries again with
// backoff; everything else goes on.
type ResourceInterpreterWebhookConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Webhooks are the webhooks and what each answers, each by its name.
	// +listType=map
	// +listMapKey=name
	Webhooks []ResourceInterpreterWebhook `json:"webhooks" protobuf:"bytes,2,rep,name=webhooks"`
}

// ResourceInterpreterWebhook is one webhook.
type ResourceInterpreterWebhook struct {
	// Name names the webhook, unique in the configuration: a qualified name
	// such as replicas.example.com.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// ClientConfig says how to reach the webhook: a url (https), or a service
	// of the host cluster (https://NAME.NAMESPACE.svc:PORT/PATH, which fed
	// reaches where that name resolves: when fed runs in the host as a Pod),
	// and the caBundle that signs its serving certificate (the system's roots
	// without one).
	ClientConfig admissionregistrationv1.WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`

	// Rules say which operations of which kinds the webhook answers.
	// +optional
	// +listType=atomic
	Rules []InterpreterRuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`

	// TimeoutSeconds is how long fed waits for an answer: 1 to 30, 10 by
	// default.
	// +optional
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,4,opt,name=timeoutSeconds"`

	// InterpreterContextVersions are the versions of ResourceInterpreterContext
	// the webhook reads, in its order of preference; fed sends v1alpha1, and
	// refuses a webhook that lists no version it sends.
	// +listType=atomic
	InterpreterContextVersions []string `json:"interpreterContextVersions" protobuf:"bytes,5,rep,name=interpreterContextVersions"`
}

// InterpreterRuleWithOperations is a rule of a webhook: the operations it
// answers for the kinds it names.
type InterpreterRuleWithOperations struct {
	// Operations are the operations answered: InterpretReplica,
	// InterpretComponent, ReviseReplica, Retain, InterpretStatus,
	// AggregateStatus, InterpretHealth, InterpretDependency, or "*" for all.
	// +listType=atomic
	Operations []InterpreterOperation `json:"operations" protobuf:"bytes,1,rep,name=operations,casttype=InterpreterOperation"`

	// APIGroups are the kinds' groups ("" the core group); "*" for all.
	// +listType=atomic
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`

	// APIVersions are the kinds' versions; "*" for all.
	// +listType=atomic
	APIVersions []string `json:"apiVersions" protobuf:"bytes,3,rep,name=apiVersions"`

	// Kinds are the kinds; "*" for all.
	// +listType=atomic
	Kinds []string `json:"kinds" protobuf:"bytes,4,rep,name=kinds"`
}

// InterpreterOperation is an operation of the interpreter, as a webhook's rules
// and requests name it.
// +enum
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
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the configurations.
	Items []ResourceInterpreterWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}
