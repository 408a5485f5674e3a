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

package ingest

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/search/store"
)

// AnnotationCluster names, on every object the search cache returns, the member it came
// from.
const AnnotationCluster = "search.fedhq.io/cluster"

// Converter turns a member's objects of one kind into what the cache stores.
type Converter struct {
	Cluster  string
	Resource schema.GroupResource
	// APIVersion and Kind are set on objects read as metadata only.
	APIVersion, Kind string
	// Fields are the kind's selectable fields beyond metadata.name and
	// metadata.namespace, each with its path in the object.
	Fields map[string][]string
	// MetadataOnly keeps nothing but apiVersion, kind and the metadata that cannot hold a
	// value (Secrets: searchv1alpha1.MetadataOnly).
	MetadataOnly bool
}

// keptSecretMetadata are the fields of a Secret's metadata the cache keeps, an allow-list
// (a field of a later Kubernetes is dropped until it is named here); annotations only as
// searchv1alpha1.KeptSecretAnnotation allows. Changing either is a new valueFormat in
// search/store, so that a cache on disk drops what it kept before.
var keptSecretMetadata = map[string]bool{"name": true, "namespace": true, "generateName": true, "uid": true, "generation": true,
	"creationTimestamp": true, "deletionTimestamp": true, "deletionGracePeriodSeconds": true, "labels": true, "ownerReferences": true,
	"finalizers": true, "annotations": true}

// Object is what the cache stores of u: its metadata without resourceVersion and
// managedFields and with the cluster annotation, the rest, its labels and the values of
// its selectable fields.
func (c *Converter) Object(u *unstructured.Unstructured) (*store.Object, error) {
	meta := map[string]any{}
	if m, ok := u.Object["metadata"].(map[string]any); ok {
		for k, v := range m {
			if k != "resourceVersion" && k != "managedFields" && (!c.MetadataOnly || keptSecretMetadata[k]) {
				meta[k] = v
			}
		}
	}
	annotations := map[string]any{}
	if a, ok := meta["annotations"].(map[string]any); ok {
		for k, v := range a {
			if !c.MetadataOnly || searchv1alpha1.KeptSecretAnnotation(k) {
				annotations[k] = v
			}
		}
	}
	annotations[AnnotationCluster] = c.Cluster
	meta["annotations"] = annotations

	var body map[string]any
	if c.MetadataOnly {
		body = map[string]any{"apiVersion": c.APIVersion, "kind": c.Kind}
	} else {
		body = make(map[string]any, len(u.Object))
		for k, v := range u.Object {
			if k != "metadata" {
				body[k] = v
			}
		}
	}
	o := &store.Object{
		Cluster:   c.Cluster,
		Resource:  c.Resource,
		Namespace: u.GetNamespace(),
		Name:      u.GetName(),
		Labels:    u.GetLabels(),
		Fields:    map[string]string{"metadata.name": u.GetName(), "metadata.namespace": u.GetNamespace()},
	}
	if !c.MetadataOnly {
		for field, path := range c.Fields {
			v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
			switch {
			case err != nil || !found || v == nil:
				o.Fields[field] = ""
			default:
				o.Fields[field] = fmt.Sprint(v)
			}
		}
	}
	var err error
	if o.Meta, err = json.Marshal(meta); err != nil {
		return nil, err
	}
	if o.Body, err = json.Marshal(body); err != nil {
		return nil, err
	}
	return o, nil
}
