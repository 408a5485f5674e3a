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

package membernamespaces

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TestMemberNamespace: an agent (or fed-apiserver) makes a member's namespace from the fleet's Namespace of that
// name (its labels and annotations, not its spec or status, labelled as fed's), a bare one
// labelled as fed's when the fleet has none or does not let the agent read it (a host of
// an older fed), and none when the fleet cannot be reached.
func TestMemberNamespace(t *testing.T) {
	fleet := map[string]*unstructured.Unstructured{
		"apps": {Object: map[string]any{
			"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": "apps", "uid": "u-1", "resourceVersion": "7",
				"labels":      map[string]any{"pod-security.kubernetes.io/enforce": "restricted"},
				"annotations": map[string]any{"team": "edge"}},
			"spec":   map[string]any{"finalizers": []any{"kubernetes"}},
			"status": map[string]any{"phase": "Active"},
		}},
	}
	unreachable := errors.New("connection refused")
	get := func(_ context.Context, name string) (*unstructured.Unstructured, error) {
		switch name {
		case "down":
			return nil, unreachable
		case "locked":
			return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, name, errors.New("an older fed"))
		}
		if ns, ok := fleet[name]; ok {
			return ns.DeepCopy(), nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	c := New(get)
	ctx := context.Background()

	got, err := c.memberNamespace(ctx, "apps")
	if err != nil {
		t.Fatal(err)
	}
	if got.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" || got.GetLabels()[federationv1alpha1.LabelManaged] != "true" {
		t.Errorf("labels %v, want the fleet's and fed's", got.GetLabels())
	}
	if got.GetAnnotations()["team"] != "edge" {
		t.Errorf("annotations %v, want the fleet's", got.GetAnnotations())
	}
	for _, field := range []string{"spec", "status"} {
		if _, ok := got.Object[field]; ok {
			t.Errorf("%s kept: %v; the member's are its own", field, got.Object[field])
		}
	}
	if got.GetUID() != "" || got.GetResourceVersion() != "" {
		t.Errorf("uid %q, resourceVersion %q kept from the fleet's", got.GetUID(), got.GetResourceVersion())
	}

	bare, err := c.memberNamespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if bare.GetName() != "other" || len(bare.GetLabels()) != 1 || bare.GetLabels()[federationv1alpha1.LabelManaged] != "true" {
		t.Errorf("without a fleet namespace: %v, want a bare one labelled as fed's", bare.Object)
	}

	if locked, err := c.memberNamespace(ctx, "locked"); err != nil || locked.GetLabels()[federationv1alpha1.LabelManaged] != "true" {
		t.Errorf("the fleet refusing the agent: %v, %v; want a bare namespace", locked, err)
	}
	if _, err := c.memberNamespace(ctx, "down"); !errors.Is(err, unreachable) || !strings.Contains(err.Error(), "the fleet's namespace down") {
		t.Errorf("the fleet unreadable: %v, want its error, saying which namespace", err)
	}
}
