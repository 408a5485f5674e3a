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

package quota

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	"github.com/fedhq/fed/controllers/internal/bindings"
)

// deployment is a template of a namespace whose replicas each request cpu; the test's
// interpreter reads them from its fields.
func deployment(name string, replicas int64, cpu string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace("team")
	u.SetName(name)
	_ = unstructured.SetNestedField(u.Object, replicas, "spec", "replicas")
	_ = unstructured.SetNestedField(u.Object, cpu, "cpu")
	return u
}

func interpret(u *unstructured.Unstructured) (int32, *federationv1alpha1.ReplicaRequirements, []federationv1alpha1.Component, error) {
	n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	cpu, _, _ := unstructured.NestedString(u.Object, "cpu")
	return int32(n), &federationv1alpha1.ReplicaRequirements{ResourceRequest: list("cpu", cpu)}, nil, nil
}

// placed is the binding of deployment(name) with clusters, each replica requesting cpu.
func placed(name, cpu string, divided bool, clusters ...federationv1alpha1.TargetCluster) *federationv1alpha1.ResourceBinding {
	b := &federationv1alpha1.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: federationv1alpha1.BindingName("Deployment", name)}}
	b.Spec.Resource = federationv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team", Name: name}
	b.Spec.ReplicaRequirements = &federationv1alpha1.ReplicaRequirements{ResourceRequest: list("cpu", cpu)}
	b.Spec.Clusters = clusters
	b.Spec.Placement = &federationv1alpha1.Placement{}
	if divided {
		b.Spec.Placement.ReplicaScheduling = &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided}
	}
	for _, c := range clusters {
		if divided {
			b.Spec.Replicas += c.Replicas
		} else {
			b.Spec.Replicas = c.Replicas
		}
	}
	return b
}

func newGuard(t *testing.T, objs ...runtime.Object) *Guard {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client := fake.NewSimpleClientset(objs...)
	factory := fedinformers.NewSharedInformerFactory(client, 0)
	fed := factory.Federation().V1alpha1()
	access, err := bindings.NewAccess(client, fed.ResourceBindings(), fed.ClusterResourceBindings())
	if err != nil {
		t.Fatal(err)
	}
	quotas := fed.FederatedResourceQuotas()
	synced := quotas.Informer().HasSynced
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), access.HasSynced, synced) {
		t.Fatal("the informers did not sync")
	}
	return &Guard{Quotas: FromInformer(quotas), Bindings: access, Interpret: interpret}
}

func TestGuard(t *testing.T) {
	frq := &federationv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "compute"}}
	frq.Spec.Overall = list("cpu", "8")
	at := func(name string, replicas int32) federationv1alpha1.TargetCluster {
		return federationv1alpha1.TargetCluster{Name: name, Replicas: replicas}
	}
	g := newGuard(t, frq,
		placed("web", "1", true, at("member1", 3), at("member2", 1)),    // 4 CPU
		placed("db", "500m", false, at("member1", 2), at("member2", 2)), // 2 CPU
		placed("new", "1", true)) // not placed
	for _, tc := range []struct {
		name    string
		updated *unstructured.Unstructured
		refused string
	}{
		{name: "unchanged", updated: deployment("web", 4, "1")},
		{name: "fewer requests", updated: deployment("web", 4, "500m")},
		{name: "scaled up: the scheduler's", updated: deployment("web", 9, "1")},
		{name: "requests grow over the quota", updated: deployment("web", 4, "2"),
			refused: "FederatedResourceQuota team/compute exceeded for cpu: the workload needs 8, 6 of 8 is left (2 used by the namespace's other workloads); its replicas already run on member1, member2"},
		{name: "requests grow within it", updated: deployment("db", 2, "1")},
		{name: "requests grow, replicas fewer, within it", updated: deployment("web", 2, "2")},
		{name: "requests grow, replicas fewer, over it", updated: deployment("web", 3, "3"), refused: "the workload needs 9, 6 of 8 is left"},
		{name: "duplicated, fewer replicas", updated: deployment("db", 1, "2")},
		{name: "not placed: the scheduler's", updated: deployment("new", 4, "8")},
		{name: "no binding", updated: deployment("other", 4, "8")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := g.Check(tc.updated)
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("got %v, want it refused: %s", err, tc.refused)
			}
		})
	}
	// A namespace without quotas is not checked.
	other := deployment("web", 4, "100")
	other.SetNamespace("elsewhere")
	if err := g.Check(other); err != nil {
		t.Errorf("a namespace without quotas: %v", err)
	}
}
