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

package agents

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// WorkExists says whether the Work namespace/name exists.
type WorkExists func(ctx context.Context, namespace, name string) (bool, error)

// EventAdmission lets an agent record events in the fleet only about its own objects: its
// Cluster, the Works of its execution namespace, and the templates those Works were made
// from (the template's binding has a Work there); nothing about another tenant's objects
// that its cluster runs nothing of. The authorizer lets agents create events (it cannot see
// what they are about); this sees the event.
func EventAdmission(works WorkExists) admission.ValidationInterface {
	return &eventRestriction{Handler: admission.NewHandler(admission.Create, admission.Update), works: works}
}

type eventRestriction struct {
	*admission.Handler
	works WorkExists
}

var eventResources = map[schema.GroupResource]bool{{Resource: "events"}: true, {Group: "events.k8s.io", Resource: "events"}: true}

// Validate implements admission.ValidationInterface.
func (e *eventRestriction) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !eventResources[a.GetResource().GroupResource()] || a.GetSubresource() != "" {
		return nil
	}
	u := a.GetUserInfo()
	if u == nil {
		return nil
	}
	cluster, isAgent := strings.CutPrefix(u.GetName(), clusterv1alpha1.AgentUserPrefix)
	if !isAgent {
		return nil
	}
	obj, ok := a.GetObject().(*unstructured.Unstructured)
	if !ok {
		return apierrors.NewForbidden(a.GetResource().GroupResource(), a.GetName(), fmt.Errorf("%s may record only events fed can read", u.GetName()))
	}
	field := "involvedObject"
	if a.GetResource().Group == "events.k8s.io" {
		field = "regarding"
	}
	ref, _, _ := unstructured.NestedStringMap(obj.Object, field)
	if why := sameNamespace(a.GetNamespace(), ref); why != "" {
		return apierrors.NewForbidden(a.GetResource().GroupResource(), a.GetName(), fmt.Errorf("%s may record events only about its own objects: %s", u.GetName(), why))
	}
	if why := e.about(ctx, cluster, ref); why != "" {
		return apierrors.NewForbidden(a.GetResource().GroupResource(), a.GetName(), fmt.Errorf("%s may record events only about its own objects: %s", u.GetName(), why))
	}
	return nil
}

// sameNamespace says why an event in namespace may not be about ref, "" when it may: an
// event is in the namespace of its object, or in default for a cluster-scoped one (as
// client-go's recorder puts it), so that no agent's event shows among another namespace's.
func sameNamespace(namespace string, ref map[string]string) string {
	want := ref["namespace"]
	if want == "" {
		want = metav1.NamespaceDefault
	}
	if namespace != want {
		return fmt.Sprintf("an event about %s %s/%s belongs in namespace %s, not %s", ref["kind"], ref["namespace"], ref["name"], want, namespace)
	}
	return ""
}

// about says why an agent of cluster may not record an event about ref; "" when it may.
func (e *eventRestriction) about(ctx context.Context, cluster string, ref map[string]string) string {
	group := schema.FromAPIVersionAndKind(ref["apiVersion"], ref["kind"]).Group
	executionNamespace := federationv1alpha1.ExecutionNamespace(cluster)
	switch {
	case group == clusterv1alpha1.GroupName && ref["kind"] == "Cluster":
		if ref["name"] == cluster {
			return ""
		}
		return "Cluster " + ref["name"] + " is not its cluster"
	case group == federationv1alpha1.GroupName && ref["kind"] == "Work":
		if ref["namespace"] == executionNamespace {
			return ""
		}
		return "Work " + ref["namespace"] + "/" + ref["name"] + " is not of its execution namespace " + executionNamespace
	}
	work := federationv1alpha1.WorkName(ref["namespace"], federationv1alpha1.BindingName(ref["kind"], ref["name"]))
	found, err := e.works(ctx, executionNamespace, work)
	switch {
	case err != nil:
		return fmt.Sprintf("fed could not read its Work %s/%s: %v", executionNamespace, work, err)
	case !found:
		return fmt.Sprintf("%s %s/%s has no Work in %s (its cluster runs nothing of it)", ref["kind"], ref["namespace"], ref["name"], executionNamespace)
	}
	return ""
}
