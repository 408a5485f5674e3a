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

// Package webhook calls the interpreter webhooks of ResourceInterpreterWebhookConfigurations:
// it finds the webhook whose rules match an object's kind and an operation, posts it a
// ResourceInterpreterContext (federation.fedhq.io/v1alpha1) with the request, and reads
// the response from the object it answers, as Karmada's interpreter webhooks speak (the
// group renamed).
package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
)

// ContextKind is the kind of the object posted to a webhook and answered.
const ContextKind = "ResourceInterpreterContext"

// Context is a ResourceInterpreterContext: fed's request, the webhook's response.
type Context struct {
	metav1.TypeMeta `json:",inline"`
	Request         *Request  `json:"request,omitempty"`
	Response        *Response `json:"response,omitempty"`
}

// Request is what fed asks.
type Request struct {
	// UID identifies the request; the response carries it back.
	UID types.UID `json:"uid"`
	// Kind is the object's kind.
	Kind metav1.GroupVersionKind `json:"kind"`
	// Name and Namespace are the object's.
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Operation is what is asked.
	Operation federationv1alpha1.InterpreterOperation `json:"operation"`
	// Object is the template, or fed's manifest for a member (ReviseReplica, Retain), or
	// the member's object (InterpretStatus, InterpretHealth).
	Object runtime.RawExtension `json:"object,omitempty"`
	// ObservedObject is the member's object (Retain).
	ObservedObject *runtime.RawExtension `json:"observedObject,omitempty"`
	// DesiredReplicas is the count to set (ReviseReplica).
	DesiredReplicas *int32 `json:"replicas,omitempty"`
	// AggregatedStatus are the members' statuses (AggregateStatus).
	AggregatedStatus []federationv1alpha1.AggregatedStatusItem `json:"aggregatedStatus,omitempty"`
}

// Response is what a webhook answers.
type Response struct {
	// Webhook names the webhook that answered, CONFIGURATION/WEBHOOK (not sent).
	Webhook string `json:"-"`

	UID types.UID `json:"uid"`
	// Successful is false when the webhook could not answer; Status says why.
	Successful bool           `json:"successful"`
	Status     *RequestStatus `json:"status,omitempty"`
	// Patch is a JSON patch (PatchType JSONPatch) of the request's object: ReviseReplica,
	// Retain, AggregateStatus.
	Patch     []byte  `json:"patch,omitempty"`
	PatchType *string `json:"patchType,omitempty"`
	// Replicas and ReplicaRequirements answer InterpretReplica.
	ReplicaRequirements *federationv1alpha1.ReplicaRequirements `json:"replicaRequirements,omitempty"`
	Replicas            *int32                                  `json:"replicas,omitempty"`
	// Components answer InterpretComponent.
	Components []federationv1alpha1.Component `json:"components,omitempty"`
	// Dependencies answer InterpretDependency.
	Dependencies []DependentObjectReference `json:"dependencies,omitempty"`
	// RawStatus answers InterpretStatus.
	RawStatus *runtime.RawExtension `json:"rawStatus,omitempty"`
	// Healthy answers InterpretHealth.
	Healthy *bool `json:"healthy,omitempty"`
}

// RequestStatus says why a webhook could not answer.
type RequestStatus struct {
	Message string `json:"message,omitempty"`
	Code    int32  `json:"code,omitempty"`
}

// PatchTypeJSONPatch is the one patch type a webhook answers with.
const PatchTypeJSONPatch = "JSONPatch"

// DependentObjectReference is an object a template depends on. fed resolves names, not
// label selectors.
type DependentObjectReference struct {
	APIVersion    string                `json:"apiVersion"`
	Kind          string                `json:"kind"`
	Namespace     string                `json:"namespace,omitempty"`
	Name          string                `json:"name,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// Configurations lists the webhook configurations.
type Configurations interface {
	List() ([]*federationv1alpha1.ResourceInterpreterWebhookConfiguration, error)
}

// Listed reads the configurations from a lister (an informer's).
type Listed struct {
	Lister fedlisters.ResourceInterpreterWebhookConfigurationLister
}

// List lists the configurations that are not being deleted.
func (l Listed) List() ([]*federationv1alpha1.ResourceInterpreterWebhookConfiguration, error) {
	all, err := l.Lister.List(labels.Everything())
	return slices.DeleteFunc(all, func(c *federationv1alpha1.ResourceInterpreterWebhookConfiguration) bool {
		return c.DeletionTimestamp != nil
	}), err
}

// Caller calls the webhooks of configurations.
type Caller struct {
	configurations Configurations

	mu      sync.Mutex
	clients map[string]*http.Client // by CA bundle
}

// NewCaller calls the webhooks configurations lists.
func NewCaller(configurations Configurations) *Caller {
	return &Caller{configurations: configurations, clients: map[string]*http.Client{}}
}

// Error is a webhook that failed: it names the webhook and the operation.
type Error struct {
	// Webhook is CONFIGURATION/WEBHOOK.
	Webhook   string
	Operation federationv1alpha1.InterpreterOperation
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("interpreter webhook %s, %s: %v", e.Webhook, e.Operation, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Find is the first webhook (configurations by name, webhooks in order) whose rules
// match op for the kind gvk, and the name of its configuration; nil when none does.
func Find(configs []*federationv1alpha1.ResourceInterpreterWebhookConfiguration, op federationv1alpha1.InterpreterOperation,
	apiVersion, kind string) (*federationv1alpha1.ResourceInterpreterWebhook, string) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	slices.SortFunc(configs, func(a, b *federationv1alpha1.ResourceInterpreterWebhookConfiguration) int {
		return strings.Compare(a.Name, b.Name)
	})
	in := func(values []string, v string) bool {
		return slices.Contains(values, "*") || slices.Contains(values, v)
	}
	for _, c := range configs {
		for i := range c.Webhooks {
			h := &c.Webhooks[i]
			for _, r := range h.Rules {
				if (slices.Contains(r.Operations, op) || slices.Contains(r.Operations, federationv1alpha1.InterpreterOperationAll)) &&
					in(r.APIGroups, group) && in(r.APIVersions, version) && in(r.Kinds, kind) {
					return h, c.Name
				}
			}
		}
	}
	return nil, ""
}

// Call asks the webhook that answers op for obj's kind, with the request fill completes:
// nil, nil when no webhook answers it. A webhook that cannot be reached, answers late or
// not as asked, or answers successful: false, is an *Error.
func (c *Caller) Call(op federationv1alpha1.InterpreterOperation, obj *unstructured.Unstructured, fill func(*Request)) (*Response, error) {
	if c == nil || obj == nil {
		return nil, nil
	}
	configs, err := c.configurations.List()
	if err != nil {
		return nil, err
	}
	h, config := Find(configs, op, obj.GetAPIVersion(), obj.GetKind())
	if h == nil {
		return nil, nil
	}
	name := config + "/" + h.Name
	resp, err := c.call(h, op, obj, fill)
	if err != nil {
		return nil, &Error{Webhook: name, Operation: op, Err: err}
	}
	resp.Webhook = name
	return resp, nil
}

func (c *Caller) call(h *federationv1alpha1.ResourceInterpreterWebhook, op federationv1alpha1.InterpreterOperation,
	obj *unstructured.Unstructured, fill func(*Request)) (*Response, error) {
	gvk := obj.GroupVersionKind()
	req := &Request{UID: uuid.NewUUID(), Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name: obj.GetName(), Namespace: obj.GetNamespace(), Operation: op, Object: runtime.RawExtension{Object: obj}}
	if fill != nil {
		fill(req)
	}
	body, err := json.Marshal(&Context{TypeMeta: metav1.TypeMeta{APIVersion: federationv1alpha1.SchemeGroupVersion.String(), Kind: ContextKind}, Request: req})
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(federationv1alpha1.DefaultInterpreterWebhookTimeout) * time.Second
	if h.TimeoutSeconds != nil {
		timeout = time.Duration(*h.TimeoutSeconds) * time.Second
	}
	client, err := c.client(h.ClientConfig.CABundle)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, URL(h.ClientConfig), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	res, err := client.Do(httpReq)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(res.Body, 3<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, fmt.Errorf("answered HTTP %d: %s", res.StatusCode, truncate(data))
	}
	var answer Context
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, fmt.Errorf("answered what is not a %s: %v", ContextKind, err)
	}
	resp := answer.Response
	switch {
	case resp == nil:
		return nil, fmt.Errorf("answered a %s without a response", ContextKind)
	case resp.UID != req.UID:
		return nil, fmt.Errorf("answered request %q, not %q", resp.UID, req.UID)
	case !resp.Successful:
		msg := "unsuccessful"
		if resp.Status != nil && resp.Status.Message != "" {
			msg = resp.Status.Message
		}
		if resp.Status != nil && resp.Status.Code != 0 {
			msg += " (code " + strconv.Itoa(int(resp.Status.Code)) + ")"
		}
		return nil, fmt.Errorf("answered: %s", msg)
	case len(resp.Patch) > 0 && (resp.PatchType == nil || *resp.PatchType != PatchTypeJSONPatch):
		return nil, fmt.Errorf("answered a patch of type %q: want %s", ptr.Deref(resp.PatchType, ""), PatchTypeJSONPatch)
	}
	return resp, nil
}

// URL is where a webhook's client configuration points: its url, or its service of the
// host cluster (https://NAME.NAMESPACE.svc:PORT/PATH, port 443 by default), as
// kube-apiserver reaches an admission webhook's service.
func URL(cc admissionregistrationv1.WebhookClientConfig) string {
	if cc.URL != nil {
		return *cc.URL
	}
	if cc.Service == nil {
		return ""
	}
	port := int32(443)
	if cc.Service.Port != nil {
		port = *cc.Service.Port
	}
	path := ""
	if cc.Service.Path != nil {
		path = *cc.Service.Path
	}
	return fmt.Sprintf("https://%s.%s.svc:%d%s", cc.Service.Name, cc.Service.Namespace, port, path)
}

// client is an HTTPS client that trusts caBundle (the system's roots without one), from
// client-go's transport, one per bundle (each call has its deadline in its context).
func (c *Caller) client(caBundle []byte) (*http.Client, error) {
	key := fmt.Sprintf("%x", sha256.Sum256(caBundle))
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[key]; ok {
		return cl, nil
	}
	cl, err := rest.HTTPClientFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: caBundle}})
	if err != nil {
		return nil, err
	}
	if len(c.clients) > 100 {
		clear(c.clients) // bundles long replaced
	}
	c.clients[key] = cl
	return cl, nil
}

// truncate keeps an answer's body short for an error.
func truncate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
