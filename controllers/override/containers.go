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

package override

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// podSpecPointer is the JSON pointer of the pod spec of a built-in workload, and false for
// other kinds, whose containers the container overriders leave alone.
func podSpecPointer(obj *unstructured.Unstructured) (string, bool) {
	gv, err := schema.ParseGroupVersion(obj.GetAPIVersion())
	if err != nil {
		return "", false
	}
	switch gk := (schema.GroupKind{Group: gv.Group, Kind: obj.GetKind()}); gk {
	case schema.GroupKind{Kind: "Pod"}:
		return "/spec", true
	case schema.GroupKind{Group: "apps", Kind: "Deployment"},
		schema.GroupKind{Group: "apps", Kind: "StatefulSet"},
		schema.GroupKind{Group: "apps", Kind: "DaemonSet"},
		schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
		schema.GroupKind{Group: "extensions", Kind: "Deployment"},
		schema.GroupKind{Group: "extensions", Kind: "DaemonSet"},
		schema.GroupKind{Group: "extensions", Kind: "ReplicaSet"},
		schema.GroupKind{Group: "batch", Kind: "Job"}:
		return "/spec/template/spec", true
	case schema.GroupKind{Group: "batch", Kind: "CronJob"}:
		return "/spec/jobTemplate/spec/template/spec", true
	}
	return "", false
}

// container is one container of a pod spec with the JSON pointer of its object.
type container struct {
	pointer string
	fields  map[string]interface{}
}

// containers lists the init containers and containers of obj's pod spec; none for kinds
// without one, or when the pod spec is absent.
func containers(obj *unstructured.Unstructured) ([]container, error) {
	specPointer, ok := podSpecPointer(obj)
	if !ok {
		return nil, nil
	}
	var out []container
	for _, list := range []string{"initContainers", "containers"} {
		pointer := specPointer + "/" + list
		value, found, err := getPointer(obj.Object, pointer)
		if err != nil || !found || value == nil {
			continue
		}
		items, ok := value.([]interface{})
		if !ok {
			return nil, fmt.Errorf("%s is a %T, not a list", pointer, value)
		}
		for i, item := range items {
			fields, ok := item.(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("%s/%d is a %T, not an object", pointer, i, item)
			}
			out = append(out, container{pointer: fmt.Sprintf("%s/%d", pointer, i), fields: fields})
		}
	}
	return out, nil
}

// namedContainers are the containers of obj called name. A name no container has matches
// nothing, as in Karmada: the policy may select workloads that lack the container.
func namedContainers(obj *unstructured.Unstructured, name string) ([]container, error) {
	all, err := containers(obj)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(c container) bool { return c.fields["name"] != name }), nil
}

// applyImage runs an imageOverrider: on the image at its predicate's path, or else on every
// container and init container of a built-in workload.
func applyImage(obj *unstructured.Unstructured, o federationv1alpha1.ImageOverrider) error {
	if o.Predicate != nil {
		value, found, err := getPointer(obj.Object, o.Predicate.Path)
		if err != nil {
			return fmt.Errorf("predicate: %w", err)
		}
		if !found {
			return fmt.Errorf("predicate: path %q does not exist", o.Predicate.Path)
		}
		ref, ok := value.(string)
		if !ok {
			return fmt.Errorf("predicate: path %q holds a %T, not an image string", o.Predicate.Path, value)
		}
		out, err := overrideImage(ref, o)
		if err != nil {
			return err
		}
		_, err = patchPointer(obj.Object, federationv1alpha1.OverriderOpReplace, o.Predicate.Path, out)
		return err
	}
	list, err := containers(obj)
	if err != nil {
		return err
	}
	for _, c := range list {
		value, found := c.fields["image"]
		if !found {
			continue
		}
		ref, ok := value.(string)
		if !ok {
			return fmt.Errorf("%s/image is a %T, not a string", c.pointer, value)
		}
		out, err := overrideImage(ref, o)
		if err != nil {
			return fmt.Errorf("%s/image: %w", c.pointer, err)
		}
		c.fields["image"] = out
	}
	return nil
}

// applyCommandArgs runs a commandOverrider (field "command") or argsOverrider (field
// "args"): add appends the values, remove drops every entry equal to one of them.
func applyCommandArgs(obj *unstructured.Unstructured, field string, o federationv1alpha1.CommandArgsOverrider) error {
	if o.Operator != federationv1alpha1.OverriderOpAdd && o.Operator != federationv1alpha1.OverriderOpRemove {
		return fmt.Errorf("operator %q is not add or remove", o.Operator)
	}
	list, err := namedContainers(obj, o.ContainerName)
	if err != nil {
		return err
	}
	for _, c := range list {
		var current []interface{}
		if value := c.fields[field]; value != nil {
			var ok bool
			if current, ok = value.([]interface{}); !ok {
				return fmt.Errorf("%s/%s is a %T, not a list", c.pointer, field, value)
			}
		}
		var out []interface{}
		if o.Operator == federationv1alpha1.OverriderOpAdd {
			out = slices.Clip(current)
			for _, v := range o.Value {
				out = append(out, v)
			}
		} else {
			out = slices.DeleteFunc(slices.Clone(current), func(v interface{}) bool {
				s, ok := v.(string)
				return ok && slices.Contains(o.Value, s)
			})
		}
		if len(out) == 0 {
			delete(c.fields, field)
			continue
		}
		c.fields[field] = out
	}
	return nil
}

// applyResources runs a resourcesOverrider: each request and limit it names replaces the
// container's entry for that resource; claims, when given, replace the container's claims.
func applyResources(obj *unstructured.Unstructured, o federationv1alpha1.ResourcesOverrider) error {
	raw, err := json.Marshal(o.Value)
	if err != nil {
		return err
	}
	var want map[string]interface{}
	if err := utiljson.Unmarshal(raw, &want); err != nil {
		return err
	}
	list, err := namedContainers(obj, o.ContainerName)
	if err != nil {
		return err
	}
	for _, c := range list {
		resources := map[string]interface{}{}
		if value := c.fields["resources"]; value != nil {
			current, ok := value.(map[string]interface{})
			if !ok {
				return fmt.Errorf("%s/resources is a %T, not an object", c.pointer, value)
			}
			resources = current
		}
		for key, value := range want {
			newEntries, ok := value.(map[string]interface{})
			if !ok || key != "limits" && key != "requests" {
				// claims is a list, replaced whole.
				resources[key] = copyJSON(value)
				continue
			}
			entries := map[string]interface{}{}
			if current := resources[key]; current != nil {
				m, ok := current.(map[string]interface{})
				if !ok {
					return fmt.Errorf("%s/resources/%s is a %T, not an object", c.pointer, key, current)
				}
				entries = m
			}
			for name, quantity := range newEntries {
				entries[name] = quantity
			}
			resources[key] = entries
		}
		c.fields["resources"] = resources
	}
	return nil
}

// copyJSON copies a decoded JSON value so it is not shared between containers.
func copyJSON(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(v))
		for k, e := range v {
			out[k] = copyJSON(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, e := range v {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}
