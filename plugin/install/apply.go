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

package install

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Operations a Result reports, as kubectl prints them.
const (
	Created    = "created"
	Configured = "configured"
	Unchanged  = "unchanged"
	Deleted    = "deleted"
)

// checkNamespace is where a server dry run checks the objects of a namespace that the
// install creates and that does not exist yet (a dry-run create in a missing namespace is
// refused): the objects are the same in every namespace.
const checkNamespace = "default"

// Host reaches the host cluster.
type Host struct {
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
	Client  kubernetes.Interface
}

// Result is what happened, or in a dry run would happen, to one object.
type Result struct {
	// Object is the server's answer: the object as stored, or as it would be.
	Object    *unstructured.Unstructured
	Operation string
}

// Ref names an object as kubectl does: kind.group/name, lower case.
func Ref(obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + obj.GetName()
}

// resource is the client of obj's resource in namespace ns (ignored for a cluster-scoped
// kind).
func (h *Host) resource(obj *unstructured.Unstructured, ns string) (dynamic.ResourceInterface, bool, error) {
	gvk := obj.GroupVersionKind()
	m, err := h.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, false, fmt.Errorf("%s: the host does not serve %s: %w", Ref(obj), gvk, err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return h.Dynamic.Resource(m.Resource).Namespace(ns), true, nil
	}
	return h.Dynamic.Resource(m.Resource), false, nil
}

// get returns the object as it is in the host, or nil.
func (h *Host) get(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, _, err := h.resource(obj, obj.GetNamespace())
	if err != nil {
		return nil, err
	}
	got, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return got, err
}

// Applier installs objects with server-side apply, as the field manager kubectl-fed.
type Applier struct {
	*Host
	// ForceConflicts takes over fields another manager set to other values (an install by
	// helm, kubectl or hand edits); without it such fields make Apply fail.
	ForceConflicts bool
	// Warn receives what the user should know: fields taken over, objects checked in
	// another namespace.
	Warn func(msg string)
}

// ErrConflicts is in Apply's error when another manager owns fields of an object.
var ErrConflicts = errors.New("fields are owned by another manager")

// refusal is the host's refusal of some objects: every one, and whether another manager's
// fields are among the reasons (errors.Is ErrConflicts).
type refusal struct {
	msg       string
	conflicts bool
}

func (r *refusal) Error() string { return r.msg }

func (r *refusal) Is(target error) bool { return target == ErrConflicts && r.conflicts }

// planned is an object and what its server dry run said.
type planned struct {
	obj, before, after *unstructured.Unstructured
	force              bool
}

// Apply applies objs in their order. It first applies each with a server dry run, so
// that nothing is changed unless the host accepts every object; with dryRun it stops
// there and reports what would happen.
func (a *Applier) Apply(ctx context.Context, objs []*unstructured.Unstructured, dryRun bool) ([]Result, error) {
	plan, err := a.check(ctx, objs)
	if err != nil {
		return nil, err
	}
	var results []Result
	for _, p := range plan {
		after := p.after
		if !dryRun {
			ri, _, err := a.resource(p.obj, p.obj.GetNamespace())
			if err != nil {
				return results, err
			}
			if after, err = ri.Apply(ctx, p.obj.GetName(), p.obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: p.force}); err != nil {
				return results, fmt.Errorf("%s: %w", Ref(p.obj), err)
			}
		}
		results = append(results, Result{Object: after, Operation: operation(p.before, after)})
	}
	return results, nil
}

// check applies each object with a server dry run and reports every refusal at once.
func (a *Applier) check(ctx context.Context, objs []*unstructured.Unstructured) ([]planned, error) {
	created := map[string]bool{} // namespaces objs create
	for _, o := range objs {
		if o.GetKind() == "Namespace" && o.GetAPIVersion() == "v1" {
			created[o.GetName()] = true
		}
	}
	exists := map[string]bool{}
	var plan []planned
	var errs []error
	for _, obj := range objs {
		p := planned{obj: obj}
		before, err := a.get(ctx, obj)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.before = before
		ns := obj.GetNamespace()
		_, namespaced, err := a.resource(obj, ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if namespaced && ns != "" {
			ok, seen := exists[ns]
			if !seen {
				if ok, err = a.namespaceExists(ctx, ns); err != nil {
					errs = append(errs, err)
					continue
				}
				exists[ns] = ok
				if !ok && created[ns] {
					a.warn(fmt.Sprintf("namespace %s does not exist yet: the server dry run checks its objects in namespace %s", ns, checkNamespace))
				}
			}
			if !ok {
				if !created[ns] {
					errs = append(errs, fmt.Errorf("%s: namespace %s does not exist", Ref(obj), ns))
					continue
				}
				ns = checkNamespace
			}
		}
		p.after, p.force, err = a.dryRun(ctx, obj, ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.after.SetNamespace(obj.GetNamespace())
		plan = append(plan, p)
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, err := range errs {
			msgs[i] = "  " + strings.ReplaceAll(err.Error(), "\n", "\n  ")
		}
		return nil, &refusal{msg: fmt.Sprintf("the host refuses %d of the %d objects (nothing was changed):\n%s", len(errs), len(objs), strings.Join(msgs, "\n")),
			conflicts: slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, ErrConflicts) })}
	}
	return plan, nil
}

// dryRun applies obj in namespace ns with a server dry run. A conflict with another
// manager is taken over with ForceConflicts (and reported), else it is the error.
func (a *Applier) dryRun(ctx context.Context, obj *unstructured.Unstructured, ns string) (*unstructured.Unstructured, bool, error) {
	target := obj
	if ns != obj.GetNamespace() {
		target = obj.DeepCopy()
		target.SetNamespace(ns)
	}
	ri, _, err := a.resource(target, ns)
	if err != nil {
		return nil, false, err
	}
	opts := metav1.ApplyOptions{FieldManager: FieldManager, DryRun: []string{metav1.DryRunAll}}
	after, err := ri.Apply(ctx, obj.GetName(), target, opts)
	if err == nil {
		return after, false, nil
	}
	fields := conflicts(err)
	if len(fields) == 0 {
		return nil, false, fmt.Errorf("%s: %w", Ref(obj), err)
	}
	if !a.ForceConflicts {
		return nil, false, fmt.Errorf("%s: %w: %s", Ref(obj), ErrConflicts, strings.Join(fields, ", "))
	}
	a.warn(fmt.Sprintf("%s: taking over fields another manager set differently: %s", Ref(obj), strings.Join(fields, ", ")))
	opts.Force = true
	if after, err = ri.Apply(ctx, obj.GetName(), target, opts); err != nil {
		return nil, false, fmt.Errorf("%s: %w", Ref(obj), err)
	}
	return after, true, nil
}

func (a *Applier) namespaceExists(ctx context.Context, name string) (bool, error) {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	got, err := a.get(ctx, ns)
	return got != nil, err
}

func (a *Applier) warn(msg string) {
	if a.Warn != nil {
		a.Warn(msg)
	}
}

// conflicts are the fields of a server-side apply conflict, each with its manager.
func conflicts(err error) []string {
	status, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsConflict(err) || status.Status().Details == nil {
		return nil
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			fields = append(fields, fmt.Sprintf("%s (%s)", c.Field, c.Message))
		}
	}
	return fields
}

// operation is kubectl's word for the change from before to after: created, configured,
// or unchanged when nothing but bookkeeping (managed fields, resourceVersion, status)
// differs.
func operation(before, after *unstructured.Unstructured) string {
	if before == nil {
		return Created
	}
	if apiequality.Semantic.DeepEqual(content(before), content(after)) {
		return Unchanged
	}
	return Configured
}

func content(obj *unstructured.Unstructured) map[string]any {
	c := obj.DeepCopy().Object
	unstructured.RemoveNestedField(c, "status")
	for _, f := range []string{"managedFields", "resourceVersion", "generation"} {
		unstructured.RemoveNestedField(c, "metadata", f)
	}
	return c
}
