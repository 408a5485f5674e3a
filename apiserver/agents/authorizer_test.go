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
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/tools/cache"

	clusterapi "github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
)

// lister lists clusters.
func lister(t *testing.T, clusters ...*clusterv1alpha1.Cluster) clusterlisters.ClusterLister {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range clusters {
		if err := indexer.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return clusterlisters.NewClusterLister(indexer)
}

// cluster is a Cluster; a pull one is of registration "r-<name>".
func cluster(name string, mode clusterv1alpha1.ClusterSyncMode) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.SyncMode = mode
	if mode == clusterv1alpha1.Pull {
		c.Annotations = map[string]string{clusterv1alpha1.AnnotationRegistration: "r-" + name}
	}
	return c
}

func TestAuthorize(t *testing.T) {
	agent := &user.DefaultInfo{Name: "system:fed:agent:member3", Groups: []string{"system:fed:agents", "system:fed:registration:r-member3", "system:authenticated"}}
	earlier := &user.DefaultInfo{Name: "system:fed:agent:member3", Groups: []string{"system:fed:agents", "system:fed:registration:r-old", "system:authenticated"}}
	unregistered := &user.DefaultInfo{Name: "system:fed:agent:member3", Groups: []string{"system:fed:agents", "system:authenticated"}}
	resource := func(u user.Info, verb, group, resource, sub, ns, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, APIVersion: "v1alpha1", Resource: resource,
			Subresource: sub, Namespace: ns, Name: name, ResourceRequest: true}
	}
	const clusters, federation = "cluster.fedhq.io", "federation.fedhq.io"
	tests := []struct {
		name string
		a    authorizer.AttributesRecord
		want authorizer.Decision
	}{
		{"its Cluster", resource(agent, "get", clusters, "clusters", "", "", "member3"), authorizer.DecisionNoOpinion},
		{"its Cluster, as an earlier registration's agent", resource(earlier, "get", clusters, "clusters", "", "", "member3"), authorizer.DecisionDeny},
		{"its Cluster, with no registration", resource(unregistered, "get", clusters, "clusters", "", "", "member3"), authorizer.DecisionDeny},
		{"its Works, as an earlier registration's agent", resource(earlier, "watch", federation, "works", "", "fed-es-member3", ""), authorizer.DecisionDeny},
		{"watch its Cluster by name", resource(agent, "watch", clusters, "clusters", "", "", "member3"), authorizer.DecisionNoOpinion},
		{"its Cluster's status", resource(agent, "update", clusters, "clusters", "status", "", "member3"), authorizer.DecisionNoOpinion},
		{"its Cluster's spec", resource(agent, "update", clusters, "clusters", "", "", "member3"), authorizer.DecisionDeny},
		{"its Cluster's proxy", resource(agent, "get", clusters, "clusters", "proxy", "", "member3"), authorizer.DecisionDeny},
		{"another Cluster", resource(agent, "get", clusters, "clusters", "", "", "member1"), authorizer.DecisionDeny},
		{"every Cluster", resource(agent, "list", clusters, "clusters", "", "", ""), authorizer.DecisionDeny},
		{"its Works", resource(agent, "watch", federation, "works", "", "fed-es-member3", ""), authorizer.DecisionNoOpinion},
		{"its Work's status", resource(agent, "update", federation, "works", "status", "fed-es-member3", "w"), authorizer.DecisionNoOpinion},
		{"another cluster's Works", resource(agent, "list", federation, "works", "", "fed-es-member1", ""), authorizer.DecisionDeny},
		{"every Work", resource(agent, "list", federation, "works", "", "", ""), authorizer.DecisionDeny},
		{"customizations", resource(agent, "list", federation, "resourceinterpretercustomizations", "", "", ""), authorizer.DecisionNoOpinion},
		{"writing customizations", resource(agent, "create", federation, "resourceinterpretercustomizations", "", "", ""), authorizer.DecisionDeny},
		{"webhook configurations", resource(agent, "watch", federation, "resourceinterpreterwebhookconfigurations", "", "", ""), authorizer.DecisionNoOpinion},
		{"writing webhook configurations", resource(agent, "update", federation, "resourceinterpreterwebhookconfigurations", "", "", ""), authorizer.DecisionDeny},
		{"bindings", resource(agent, "list", federation, "resourcebindings", "", "", ""), authorizer.DecisionDeny},
		{"the fleet", resource(agent, "get", federation, "fleets", "proxy", "", "default"), authorizer.DecisionDeny},
		{"a namespace of the fleet", resource(agent, "get", "", "namespaces", "", "", "apps"), authorizer.DecisionAllow},
		{"the fleet's namespaces", resource(agent, "list", "", "namespaces", "", "", ""), authorizer.DecisionDeny},
		{"watching a namespace of the fleet", resource(agent, "watch", "", "namespaces", "", "", "apps"), authorizer.DecisionDeny},
		{"a namespace's status", resource(agent, "get", "", "namespaces", "status", "", "apps"), authorizer.DecisionDeny},
		{"a template of the fleet", resource(agent, "get", "apps", "deployments", "", "apps", "web"), authorizer.DecisionDeny},
		{"an event in the fleet", resource(agent, "create", "", "events", "", "apps", ""), authorizer.DecisionAllow},
		{"an event's series", resource(agent, "patch", "", "events", "", "apps", "web.1"), authorizer.DecisionAllow},
		{"the fleet's events", resource(agent, "list", "", "events", "", "apps", ""), authorizer.DecisionDeny},
		{"deleting an event", resource(agent, "delete", "", "events", "", "apps", "web.1"), authorizer.DecisionDeny},
		{"discovery", authorizer.AttributesRecord{User: agent, Verb: "get", Path: "/apis"}, authorizer.DecisionNoOpinion},
		{"a user", resource(&user.DefaultInfo{Name: "alice"}, "list", federation, "works", "", "", ""), authorizer.DecisionNoOpinion},
		{"in the group, no cluster", resource(&user.DefaultInfo{Name: "mallory", Groups: []string{"system:fed:agents"}}, "get", "", "pods", "", "a", "b"),
			authorizer.DecisionDeny},
	}
	az := New()
	az.SetClusters(lister(t, cluster("member3", clusterv1alpha1.Pull), cluster("member1", clusterv1alpha1.Push)))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := az.Authorizer().Authorize(context.Background(), tt.a)
			if err != nil || got != tt.want {
				t.Fatalf("Authorize = %v, %q, %v; want %v", got, reason, err, tt.want)
			}
			if got == authorizer.DecisionDeny && reason == "" {
				t.Fatal("a denial without a reason")
			}
		})
	}
}

// TestAuthorizeNotPull: the agent of a cluster that is not a pull cluster of the fleet may
// do nothing, not even with its own cluster; nor may any agent before fed knows its
// clusters.
func TestAuthorizeNotPull(t *testing.T) {
	works := func(cluster string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "system:fed:agent:" + cluster,
			Groups: []string{"system:fed:agents", "system:fed:registration:r-" + cluster}},
			Verb: "list", APIGroup: "federation.fedhq.io", Resource: "works", Namespace: "fed-es-" + cluster, ResourceRequest: true}
	}
	leaving := cluster("leaving", clusterv1alpha1.Pull)
	leaving.DeletionTimestamp = &metav1.Time{}
	az := New()
	if got, _, _ := az.Authorizer().Authorize(context.Background(), works("edge")); got != authorizer.DecisionDeny {
		t.Errorf("before fed knows its clusters: %v, want Deny", got)
	}
	az.SetClusters(lister(t, cluster("edge", clusterv1alpha1.Pull), cluster("pushed", clusterv1alpha1.Push), leaving))
	for name, want := range map[string]authorizer.Decision{
		"edge": authorizer.DecisionNoOpinion, "pushed": authorizer.DecisionDeny, "leaving": authorizer.DecisionDeny, "gone": authorizer.DecisionDeny,
	} {
		if got, reason, _ := az.Authorizer().Authorize(context.Background(), works(name)); got != want {
			t.Errorf("the agent of %s: %v (%s), want %v", name, got, reason, want)
		}
	}
}

// TestWorkRestriction: an agent may add or remove its Works' finalizers and nothing else of
// them; anyone else is not this plugin's business.
func TestWorkRestriction(t *testing.T) {
	old := &federation.Work{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "fed-es-edge", ResourceVersion: "5",
		Annotations: map[string]string{"federation.fedhq.io/binding": "ns/app"}}}
	finalized := old.DeepCopy()
	finalized.Finalizers, finalized.ResourceVersion = []string{"federation.fedhq.io/execution"}, "6"
	moved := old.DeepCopy()
	moved.Annotations["federation.fedhq.io/binding"] = "other/app"
	rewritten := old.DeepCopy()
	rewritten.Spec.Workload.Manifests = []runtime.RawExtension{{Raw: []byte(`{"kind":"Secret"}`)}}
	agent := &user.DefaultInfo{Name: "system:fed:agent:edge", Groups: []string{"system:fed:agents"}}
	update := func(obj *federation.Work, u user.Info, sub string) admission.Attributes {
		return admission.NewAttributesRecord(obj, old, federation.Kind("Work").WithVersion(""), obj.Namespace, obj.Name,
			federation.Resource("works").WithVersion(""), sub, admission.Update, nil, false, u)
	}
	for _, tc := range []struct {
		name  string
		attrs admission.Attributes
		ok    bool
	}{
		{"the agent adds its finalizer", update(finalized, agent, ""), true},
		{"the agent moves its Work to another binding", update(moved, agent, ""), false},
		{"the agent rewrites the manifests", update(rewritten, agent, ""), false},
		{"the agent writes the status", update(rewritten, agent, "status"), true},
		{"fed's controllers", update(moved, &user.DefaultInfo{Name: "system:apiserver"}, ""), true},
	} {
		err := Admission().Validate(context.Background(), tc.attrs, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want allowed %v", tc.name, err, tc.ok)
		}
	}
}

// TestRemedyActionsKept: an agent's write of its Cluster's status keeps the remedy actions
// stored (an agent older than the field writes none); fed's own writes set them.
func TestRemedyActionsKept(t *testing.T) {
	old := &clusterapi.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "edge"}, Status: clusterapi.ClusterStatus{RemedyActions: []string{"TrafficControl"}}}
	for _, tc := range []struct {
		name string
		u    user.Info
		want []string
	}{
		{"an agent", &user.DefaultInfo{Name: "system:fed:agent:edge", Groups: []string{"system:fed:agents"}}, []string{"TrafficControl"}},
		{"fed's remedy controller", &user.DefaultInfo{Name: "system:apiserver"}, nil},
	} {
		obj := old.DeepCopy()
		obj.Status.RemedyActions = nil
		attrs := admission.NewAttributesRecord(obj, old, clusterapi.Kind("Cluster").WithVersion(""), "", "edge",
			clusterapi.Resource("clusters").WithVersion(""), "status", admission.Update, nil, false, tc.u)
		if err := Admission().Admit(context.Background(), attrs, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(obj.Status.RemedyActions, tc.want) {
			t.Errorf("%s writes no remedy actions: stored %v, want %v", tc.name, obj.Status.RemedyActions, tc.want)
		}
	}
}
