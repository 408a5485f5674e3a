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

package interpreter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/federation/validation"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
	"github.com/fedhq/fed/interpreter/webhook"
)

// Customizations finds the ResourceInterpreterCustomizations of a kind.
type Customizations interface {
	// For lists the customizations whose target is apiVersion and kind.
	For(apiVersion, kind string) []*federationv1alpha1.ResourceInterpreterCustomization
}

// Interpreter answers what the pipeline needs to know of an object of any kind: its
// replicas and what one needs, how to set its replicas, which of a member's fields to
// keep, which part of its status to record, its health, its fleet-wide status and what
// it depends on. For each operation, a customization's script for the object's kind
// answers when there is one (the first by name that has one, when several target the
// kind); else an interpreter webhook whose rules match the kind and the operation (see
// WithWebhooks); fed's built-in knowledge of the kind otherwise. A nil *Interpreter, or
// one without customizations, answers with the built-in knowledge alone.
type Interpreter struct {
	customizations Customizations
	limits         lua.Limits
	webhooks       *webhook.Caller

	mu       sync.Mutex
	compiled map[string]compiled // by script source
}

type compiled struct {
	script *lua.Script
	err    error
}

// New is an Interpreter that runs the scripts of customizations within limits.
func New(customizations Customizations, limits lua.Limits) *Interpreter {
	return &Interpreter{customizations: customizations, limits: limits, compiled: map[string]compiled{}}
}

// WithWebhooks has the interpreter ask the webhooks of configurations, where no script
// answers, before its built-in knowledge; it returns i.
func (i *Interpreter) WithWebhooks(configurations webhook.Configurations) *Interpreter {
	i.webhooks = webhook.NewCaller(configurations)
	return i
}

// Operation names a customization's script.
type Operation string

// The operations, as a customization's fields name them.
const (
	OpReplicaResource          Operation = "replicaResource"
	OpReplicaRevision          Operation = "replicaRevision"
	OpRetention                Operation = "retention"
	OpStatusReflection         Operation = "statusReflection"
	OpStatusAggregation        Operation = "statusAggregation"
	OpHealthInterpretation     Operation = "healthInterpretation"
	OpDependencyInterpretation Operation = "dependencyInterpretation"
	OpComponentResource        Operation = "componentResource"
)

// Operations are every operation, in the order of the API's fields.
var Operations = []Operation{OpRetention, OpReplicaResource, OpReplicaRevision, OpStatusReflection,
	OpStatusAggregation, OpHealthInterpretation, OpDependencyInterpretation, OpComponentResource}

// Functions are the functions a script of each operation may define: Karmada's name,
// and for replicaResource also the seeds' ReplicasCount (returning the number alone).
var Functions = map[Operation][]string{
	OpReplicaResource:          {"GetReplicas", "ReplicasCount"},
	OpReplicaRevision:          {"ReviseReplica"},
	OpRetention:                {"Retain"},
	OpStatusReflection:         {"ReflectStatus"},
	OpStatusAggregation:        {"AggregateStatus"},
	OpHealthInterpretation:     {"InterpretHealth"},
	OpDependencyInterpretation: {"GetDependencies"},
	OpComponentResource:        {"GetComponents"},
}

// hookOperations are the operations as interpreter webhooks name them.
var hookOperations = map[Operation]federationv1alpha1.InterpreterOperation{
	OpReplicaResource:          federationv1alpha1.InterpreterOperationInterpretReplica,
	OpReplicaRevision:          federationv1alpha1.InterpreterOperationReviseReplica,
	OpRetention:                federationv1alpha1.InterpreterOperationRetain,
	OpStatusReflection:         federationv1alpha1.InterpreterOperationInterpretStatus,
	OpStatusAggregation:        federationv1alpha1.InterpreterOperationAggregateStatus,
	OpHealthInterpretation:     federationv1alpha1.InterpreterOperationInterpretHealth,
	OpDependencyInterpretation: federationv1alpha1.InterpreterOperationInterpretDependency,
	OpComponentResource:        federationv1alpha1.InterpreterOperationInterpretComponent,
}

// hook asks the interpreter webhook that answers op for obj's kind, with the request
// fill completes; nil, nil when none does.
func (i *Interpreter) hook(op Operation, obj *unstructured.Unstructured, fill func(*webhook.Request)) (*webhook.Response, error) {
	if i == nil {
		return nil, nil
	}
	return i.webhooks.Call(hookOperations[op], obj, fill)
}

// FromWebhook tells whether err is an interpreter webhook's failure to answer (down,
// late, unsuccessful), which may pass: the step is worth trying again.
func FromWebhook(err error) bool {
	var hookErr *webhook.Error
	return errors.As(err, &hookErr)
}

// hookWrong is an answer of a webhook that fed cannot use: a webhook's error too, as the
// webhook may answer better once fixed.
func hookWrong(op Operation, resp *webhook.Response, format string, args ...any) error {
	return &webhook.Error{Webhook: resp.Webhook, Operation: hookOperations[op], Err: fmt.Errorf(format, args...)}
}

// patched is obj with a webhook's JSON patch applied (obj itself without a patch).
func patched(op Operation, obj *unstructured.Unstructured, resp *webhook.Response) (*unstructured.Unstructured, error) {
	if len(resp.Patch) == 0 {
		return obj, nil
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return nil, hookWrong(op, resp, "answered a patch fed cannot read: %v", err)
	}
	doc, err := obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if doc, err = p.Apply(doc); err != nil {
		return nil, hookWrong(op, resp, "answered a patch that does not apply: %v", err)
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(doc); err != nil {
		return nil, hookWrong(op, resp, "answered a patch that makes no object: %v", err)
	}
	return out, nil
}

// ScriptOf is a customization's script for an operation, "" when it has none.
func ScriptOf(c *federationv1alpha1.ResourceInterpreterCustomization, op Operation) string {
	r := &c.Spec.Customizations
	var s *federationv1alpha1.LuaScript
	switch op {
	case OpReplicaResource:
		s = r.ReplicaResource
	case OpReplicaRevision:
		s = r.ReplicaRevision
	case OpRetention:
		s = r.Retention
	case OpStatusReflection:
		s = r.StatusReflection
	case OpStatusAggregation:
		s = r.StatusAggregation
	case OpHealthInterpretation:
		s = r.HealthInterpretation
	case OpDependencyInterpretation:
		s = r.DependencyInterpretation
	case OpComponentResource:
		s = r.ComponentResource
	}
	if s == nil {
		return ""
	}
	return s.LuaScript
}

// ScriptError is a script that failed: it names the customization and the operation.
type ScriptError struct {
	Customization string
	Operation     Operation
	Err           error
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("ResourceInterpreterCustomization %s, %s: %v", e.Customization, e.Operation, e.Err)
}

func (e *ScriptError) Unwrap() error { return e.Err }

// call runs the script of op for obj's kind, if a customization has one: by names the
// customization that ran ("" when none did), fn the function it called.
func (i *Interpreter) call(obj *unstructured.Unstructured, op Operation, nret int, args ...any) (by, fn string, out []any, err error) {
	if i == nil || i.customizations == nil || obj == nil {
		return "", "", nil, nil
	}
	customs := i.customizations.For(obj.GetAPIVersion(), obj.GetKind())
	slices.SortFunc(customs, func(a, b *federationv1alpha1.ResourceInterpreterCustomization) int {
		return strings.Compare(a.Name, b.Name)
	})
	for _, c := range customs {
		src := ScriptOf(c, op)
		if src == "" {
			continue
		}
		script, err := i.compile(c.Name, op, src)
		if err == nil {
			if fn, out, err = script.Call(context.Background(), Functions[op], nret, args...); err == nil {
				return c.Name, fn, out, nil
			}
		}
		return c.Name, "", nil, &ScriptError{Customization: c.Name, Operation: op, Err: err}
	}
	return "", "", nil, nil
}

func (i *Interpreter) compile(name string, op Operation, src string) (*lua.Script, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.compiled[src]; ok {
		return c.script, c.err
	}
	s, err := lua.Compile(string(op), src, i.limits, helpers)
	if len(i.compiled) > 1000 {
		clear(i.compiled) // scripts of customizations long gone
	}
	i.compiled[src] = compiled{s, err}
	return s, err
}

// Run runs one operation of a customization on the objects a user gives, as the
// pipeline would (kubectl fed interpret): observed is the member's object, desired the
// template or the manifest for a member, replicas the count to set, items the members'
// statuses. It returns what the operation answers, as the pipeline would record it.
func Run(c *federationv1alpha1.ResourceInterpreterCustomization, op Operation, desired, observed *unstructured.Unstructured,
	replicas int32, items []federationv1alpha1.AggregatedStatusItem) (any, error) {
	i := New(single{c}, lua.DefaultLimits)
	obj := desired
	if obj == nil {
		obj = observed
	}
	if obj == nil {
		return nil, fmt.Errorf("%s needs an object", op)
	}
	obj = obj.DeepCopy()
	obj.SetAPIVersion(c.Spec.Target.APIVersion)
	obj.SetKind(c.Spec.Target.Kind)
	switch op {
	case OpReplicaResource:
		n, req, err := i.Replicas(obj)
		return map[string]any{"replicas": n, "replicaRequirements": req}, err
	case OpReplicaRevision:
		return i.ReviseReplica(obj, replicas)
	case OpRetention:
		if desired == nil || observed == nil {
			return nil, fmt.Errorf("retention needs the desired and the observed object")
		}
		return i.Retain(obj, observed)
	case OpStatusReflection:
		return i.ReflectStatus(obj)
	case OpHealthInterpretation:
		return i.Health(obj)
	case OpStatusAggregation:
		status, _, err := i.AggregateStatus(obj, items, false)
		return status, err
	case OpDependencyInterpretation:
		refs, err := i.Dependencies(obj)
		if refs == nil {
			refs = []federationv1alpha1.ObjectReference{}
		}
		return refs, err
	case OpComponentResource:
		components, err := i.Components(obj)
		if components == nil {
			components = []federationv1alpha1.Component{}
		}
		return components, err
	}
	return nil, fmt.Errorf("unknown operation %q: one of %v", op, Operations)
}

// single is the customizations of one object.
type single struct {
	c *federationv1alpha1.ResourceInterpreterCustomization
}

func (s single) For(apiVersion, kind string) []*federationv1alpha1.ResourceInterpreterCustomization {
	if s.c.Spec.Target.APIVersion == apiVersion && s.c.Spec.Target.Kind == kind {
		return []*federationv1alpha1.ResourceInterpreterCustomization{s.c}
	}
	return nil
}

// Replicas reads how many replicas a workload asks for and what one of them needs (0
// and nil for kinds without replicas).
func (i *Interpreter) Replicas(obj *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, error) {
	by, fn, out, err := i.call(obj, OpReplicaResource, 2, obj.Object)
	if err != nil {
		return 0, nil, err
	}
	if by == "" {
		resp, err := i.hook(OpReplicaResource, obj, nil)
		if err != nil || resp != nil {
			return hookReplicas(obj, resp, err)
		}
		n, req := Replicas(obj)
		return n, req, nil
	}
	n, ok := out[0].(int64)
	if !ok || n < 0 || n > 1<<31-1 {
		return 0, nil, wrong(by, OpReplicaResource, "%s returned %v replicas, want a whole number", fn, out[0])
	}
	if out[1] == nil {
		return int32(n), nil, nil
	}
	var req federationv1alpha1.ReplicaRequirements
	if err := fromValue(out[1], &req); err != nil {
		return 0, nil, wrong(by, OpReplicaResource, "%s returned requirements fed cannot read: %v", fn, err)
	}
	if apiequality.Semantic.DeepEqual(req, federationv1alpha1.ReplicaRequirements{}) {
		return int32(n), nil, nil // {}: none
	}
	return int32(n), &req, nil
}

// replicasOf writes a webhook's replicas for an error.
func replicasOf(resp *webhook.Response) string {
	if resp.Replicas == nil {
		return "none"
	}
	return strconv.Itoa(int(*resp.Replicas))
}

// hookReplicas reads a webhook's answer to InterpretReplica.
func hookReplicas(obj *unstructured.Unstructured, resp *webhook.Response, err error) (int32, *federationv1alpha1.ReplicaRequirements, error) {
	if err != nil {
		return 0, nil, err
	}
	if resp.Replicas == nil || *resp.Replicas < 0 {
		return 0, nil, hookWrong(OpReplicaResource, resp, "answered replicas %s, want a whole number", replicasOf(resp))
	}
	req := resp.ReplicaRequirements
	if req != nil && apiequality.Semantic.DeepEqual(*req, federationv1alpha1.ReplicaRequirements{}) {
		req = nil
	}
	return *resp.Replicas, req, nil
}

// ReviseReplica sets a workload's replicas to n (for a cluster's share).
func (i *Interpreter) ReviseReplica(obj *unstructured.Unstructured, n int32) (*unstructured.Unstructured, error) {
	by, fn, out, err := i.call(obj, OpReplicaRevision, 1, obj.Object, int64(n))
	if err != nil {
		return obj, err
	}
	if by == "" {
		resp, err := i.hook(OpReplicaRevision, obj, func(r *webhook.Request) { r.DesiredReplicas = &n })
		switch {
		case err != nil:
			return obj, err
		case resp != nil:
			return patched(OpReplicaRevision, obj, resp)
		}
		reviseReplica(obj, n)
		return obj, nil
	}
	return object(by, OpReplicaRevision, fn, conformLike(out[0], obj.Object))
}

// Retain is the object to apply to a member from desired (fed's manifest) and observed
// (the member's object): built in, desired (server-side apply leaves the fields fed does
// not set to the member); a retention script may copy fields the member owns.
func (i *Interpreter) Retain(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if observed == nil {
		return desired, nil
	}
	by, fn, out, err := i.call(desired, OpRetention, 1, desired.Object, observed.Object)
	if err != nil {
		return desired, err
	}
	if by == "" {
		resp, err := i.hook(OpRetention, desired, func(r *webhook.Request) { r.ObservedObject = &runtime.RawExtension{Object: observed} })
		if err != nil || resp == nil {
			return desired, err
		}
		return patched(OpRetention, desired, resp)
	}
	return object(by, OpRetention, fn, conformLike(out[0], desired.Object, observed.Object))
}

// ReflectStatus is the part of a member object's status to record. A Secret's is none,
// whatever a customization would return: a Secret has no status, and what a script made
// of its data would be recorded in the Work and the binding, which more people may read
// than the Secret.
func (i *Interpreter) ReflectStatus(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	if obj.GroupVersionKind().GroupKind() == secretKind {
		return nil, nil
	}
	by, _, out, err := i.call(obj, OpStatusReflection, 1, obj.Object)
	if err != nil {
		return nil, err
	}
	if by == "" {
		resp, err := i.hook(OpStatusReflection, obj, nil)
		switch {
		case err != nil:
			return nil, err
		case resp != nil:
			return resp.RawStatus, nil
		}
		return ReflectStatus(obj), nil
	}
	if out[0] == nil {
		return nil, nil
	}
	raw, err := json.Marshal(conformLike(out[0], obj.Object["status"]))
	if err != nil {
		return nil, wrong(by, OpStatusReflection, "ReflectStatus returned a status fed cannot encode: %v", err)
	}
	return &runtime.RawExtension{Raw: raw}, nil
}

// Health says whether a member's object works.
func (i *Interpreter) Health(obj *unstructured.Unstructured) (federationv1alpha1.ResourceHealth, error) {
	by, _, out, err := i.call(obj, OpHealthInterpretation, 1, obj.Object)
	if err != nil {
		return unknown, err
	}
	if by == "" {
		resp, err := i.hook(OpHealthInterpretation, obj, nil)
		switch {
		case err != nil:
			return unknown, err
		case resp == nil:
			return Health(obj), nil
		case resp.Healthy == nil:
			return unknown, hookWrong(OpHealthInterpretation, resp, "answered no healthy")
		case *resp.Healthy:
			return federationv1alpha1.ResourceHealthy, nil
		}
		return federationv1alpha1.ResourceUnhealthy, nil
	}
	healthy, ok := out[0].(bool)
	if !ok {
		return unknown, wrong(by, OpHealthInterpretation, "InterpretHealth returned %v, want true or false", out[0])
	}
	if healthy {
		return federationv1alpha1.ResourceHealthy, nil
	}
	return federationv1alpha1.ResourceUnhealthy, nil
}

// AggregateStatus is a template's fleet-wide status from its members' (ok false: the
// kind has none, its status stays per cluster).
func (i *Interpreter) AggregateStatus(template *unstructured.Unstructured, items []federationv1alpha1.AggregatedStatusItem, perCluster bool) (map[string]any, bool, error) {
	var list []any
	if err := fromValue(items, &list); err != nil {
		return nil, false, err
	}
	by, _, out, err := i.call(template, OpStatusAggregation, 1, template.Object, list)
	if err != nil {
		return nil, false, err
	}
	if by == "" {
		resp, err := i.hook(OpStatusAggregation, template, func(r *webhook.Request) { r.AggregatedStatus = items })
		if err != nil {
			return nil, false, err
		}
		if resp == nil {
			status, ok := AggregateStatus(template, items, perCluster)
			return status, ok, nil
		}
		obj, err := patched(OpStatusAggregation, template, resp)
		if err != nil {
			return nil, false, err
		}
		status, _, _ := unstructured.NestedMap(obj.Object, "status")
		if status == nil {
			status = map[string]any{}
		}
		return status, true, nil
	}
	obj, ok := conformLike(out[0], template.Object).(map[string]any)
	if !ok {
		return nil, false, wrong(by, OpStatusAggregation, "AggregateStatus returned %v, want the object with its status", out[0])
	}
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
	}
	return status, true, nil
}

// Dependencies are the objects a template needs in every cluster it goes to.
func (i *Interpreter) Dependencies(obj *unstructured.Unstructured) ([]federationv1alpha1.ObjectReference, error) {
	by, _, out, err := i.call(obj, OpDependencyInterpretation, 1, obj.Object)
	if err != nil {
		return nil, err
	}
	var refs []federationv1alpha1.ObjectReference
	if by == "" {
		resp, err := i.hook(OpDependencyInterpretation, obj, nil)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return Dependencies(obj), nil
		}
		for _, d := range resp.Dependencies {
			if d.LabelSelector != nil || d.Name == "" {
				return nil, hookWrong(OpDependencyInterpretation, resp, "answered a dependency %s without a name: fed follows dependencies by name, not by label selector", d.Kind)
			}
			refs = append(refs, federationv1alpha1.ObjectReference{APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
		}
	} else if out[0] != nil {
		if err := fromValue(out[0], &refs); err != nil {
			return nil, wrong(by, OpDependencyInterpretation, "GetDependencies returned references fed cannot read: %v", err)
		}
	}
	seen := map[federationv1alpha1.ObjectReference]bool{}
	unique := refs[:0]
	for _, ref := range refs {
		if ref.Namespace == "" {
			ref.Namespace = obj.GetNamespace()
		}
		if !seen[ref] {
			// A script that asks kube.getPodDependencies of each pod template of a
			// workload names what two of them share twice.
			seen[ref] = true
			unique = append(unique, ref)
		}
	}
	return unique, nil
}

// object reads what a script of the customization by returned as the object to use.
func object(by string, op Operation, fn string, v any) (*unstructured.Unstructured, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, wrong(by, op, "%s returned %v, want an object", fn, v)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// wrong is a result of the customization by's script that fed cannot use.
func wrong(by string, op Operation, format string, args ...any) error {
	return &ScriptError{Customization: by, Operation: op, Err: fmt.Errorf(format, args...)}
}

// fromValue converts a Go value through JSON; the empty objects and lists of a script's
// result become what into's fields expect (conform).
func fromValue(v, into any) error {
	raw, err := json.Marshal(conform(v, reflect.TypeOf(into)))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

// Listed is the customizations of a lister (an informer's).
type Listed struct {
	Lister fedlisters.ResourceInterpreterCustomizationLister
}

// For lists the customizations whose target is apiVersion and kind.
func (l Listed) For(apiVersion, kind string) []*federationv1alpha1.ResourceInterpreterCustomization {
	all, err := l.Lister.List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*federationv1alpha1.ResourceInterpreterCustomization
	for _, c := range all {
		if c.Spec.Target.APIVersion == apiVersion && c.Spec.Target.Kind == kind && c.DeletionTimestamp == nil {
			out = append(out, c)
		}
	}
	return out
}

// Check is the one check of a customization's scripts, which fed-apiserver makes when one
// is written and kubectl fed interpret --check on files: each script as written
// (validation.ValidateLuaScript), then compiled and its top level run within the limits of
// a call, which must define its operation's function. It lists, for each operation with a
// script, nil or what is wrong with it.
func Check(c *federationv1alpha1.ResourceInterpreterCustomization) map[Operation]error {
	out := map[Operation]error{}
	for _, op := range Operations {
		src := ScriptOf(c, op)
		if src == "" {
			continue
		}
		if errs := validation.ValidateLuaScript(string(op), src, field.NewPath("spec", "customizations", string(op), "luaScript")); len(errs) > 0 {
			out[op] = errs.ToAggregate()
			continue
		}
		s, err := lua.Compile(string(op), src, lua.DefaultLimits, helpers)
		if err == nil {
			var fn string
			if fn, err = s.Defines(context.Background(), Functions[op]); err == nil && fn == "" {
				err = fmt.Errorf("the script defines no function %s", strings.Join(Functions[op], " or "))
			}
		}
		out[op] = err
	}
	return out
}
