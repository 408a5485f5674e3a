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

package fleet

import (
	"bytes"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// typedParents are, per native kind, the fields the zero value of its Go type holds (spec,
// spec.template, its metadata and spec, containers, …): kube-apiserver's field manager
// compares a new object with that value, so an Update never owns these as such, only what
// is set under them. The fleet's live object of a create is empty, which would own them
// ("." under f:spec); withoutTypedParents takes that ownership back.
var typedParents sync.Map // schema.GroupVersionKind → *fieldpath.Set (nil: not a native kind)

// typedKinds are the Go types of the native kinds and of CustomResourceDefinitions.
var typedKinds = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return s
}()

func typedParentsOf(gvk schema.GroupVersionKind) *fieldpath.Set {
	if s, ok := typedParents.Load(gvk); ok {
		return s.(*fieldpath.Set)
	}
	var set *fieldpath.Set
	if typed, err := typedKinds.New(gvk); err == nil {
		if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err == nil {
			set = &fieldpath.Set{}
			var walk func(path fieldpath.Path, m map[string]any)
			walk = func(path fieldpath.Path, m map[string]any) {
				for k, v := range m {
					name := k
					p := append(path.Copy(), fieldpath.PathElement{FieldName: &name})
					set.Insert(p)
					if child, ok := v.(map[string]any); ok {
						walk(p, child)
					}
				}
			}
			walk(nil, m)
		}
	}
	typedParents.Store(gvk, set)
	return set
}

// withoutTypedParents drops, from the Update entries of a native object's (or a CRD's)
// managedFields,
// the ownership of a typed parent a manager also owns fields under: what kube-apiserver's
// field manager records for the same write.
func withoutTypedParents(u *unstructured.Unstructured) {
	parents := typedParentsOf(u.GroupVersionKind())
	if parents == nil {
		return
	}
	entries := u.GetManagedFields()
	changed := false
	for i, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationUpdate || e.FieldsV1 == nil {
			continue
		}
		owned := &fieldpath.Set{}
		if err := owned.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			continue
		}
		drop := &fieldpath.Set{}
		parents.Iterate(func(p fieldpath.Path) {
			if owned.Has(p) && !under(owned, p).Empty() {
				drop.Insert(p)
			}
		})
		if drop.Empty() {
			continue
		}
		raw, err := owned.Difference(drop).ToJSON()
		if err != nil {
			continue
		}
		entries[i].FieldsV1 = &metav1.FieldsV1{Raw: raw}
		changed = true
	}
	if changed {
		u.SetManagedFields(entries)
	}
}

// under is what s holds below path p.
func under(s *fieldpath.Set, p fieldpath.Path) *fieldpath.Set {
	for _, pe := range p {
		s = s.WithPrefix(pe)
	}
	return s
}
