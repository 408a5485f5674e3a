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

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// TestResourceRegistryThroughHost creates a ResourceRegistry through the host as a user
// would, reads it back, prints it, explains its fields, refuses invalid ones and deletes it.
func TestResourceRegistryThroughHost(t *testing.T) {
	ctx := context.Background()
	host := theLab.Host.Kubeconfig
	_, fed := hostClients(t)
	registries := fed.SearchV1alpha1().ResourceRegistries()
	name := fmt.Sprintf("e2e-search-%d", time.Now().UnixNano()%1_000_000_000)
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "resourceregistry", name, "--ignore-not-found") })

	out := kubectlStdin(t, host, `apiVersion: search.fedhq.io/v1alpha1
kind: ResourceRegistry
metadata:
  name: `+name+`
spec:
  targetCluster:
    clusterNames: [member1, member2]
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
  - apiVersion: v1
    kind: Pod
    namespace: default
`, "create", "-f", "-")
	if want := "resourceregistry.search.fedhq.io/" + name + " created"; !strings.Contains(out, want) {
		t.Errorf("kubectl create printed %q, want %q", out, want)
	}

	// Read back through fed's typed client: the spec as written, reused ClusterAffinity included.
	got, err := registries.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSelectors := []searchv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "v1", Kind: "Pod", Namespace: "default"}}
	if strings.Join(got.Spec.TargetCluster.ClusterNames, ",") != "member1,member2" ||
		!slices.Equal(got.Spec.ResourceSelectors, wantSelectors) || got.Generation != 1 {
		t.Errorf("read back: generation %d, spec %+v", got.Generation, got.Spec)
	}

	// The status is the search cache's: one cache per cluster and selector, synced.
	waitFor(t, time.Minute, func() error {
		got, err := registries.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		synced := 0
		for _, c := range got.Status.Caches {
			if c.Synced {
				synced++
			}
		}
		if len(got.Status.Caches) != 4 || synced != 4 {
			return fmt.Errorf("caches %+v, want 4 synced", got.Status.Caches)
		}
		return nil
	})

	t.Run("columns", func(t *testing.T) {
		checkTable(t, kubectl(t, host, "get", "resourceregistries", name),
			[]string{"NAME", "KINDS", "CLUSTERS", "SYNCED", "OBJECTS", "AGE"},
			[]string{name, "Deployment.apps,Pod", "2", "4/4"})
		checkTable(t, kubectl(t, host, "get", "rr", name, "-o", "wide"),
			[]string{"NAME", "KINDS", "CLUSTERS", "SYNCED", "OBJECTS", "AGE", "READY", "STALE"},
			[]string{name, "Deployment.apps,Pod", "2", "4/4"})
		if out := kubectl(t, host, "get", "fed", "-o", "name"); !strings.Contains(out, "resourceregistry.search.fedhq.io/"+name) {
			t.Errorf("kubectl get fed (category) does not list the registry:\n%s", out)
		}
	})

	t.Run("explain", func(t *testing.T) {
		// Compared with runs of white space as one space: explain indents, aligns and wraps.
		out := kubectl(t, host, "explain", "resourceregistry.spec.resourceSelectors")
		words := strings.Join(strings.Fields(out), " ")
		for _, want := range []string{"GROUP: search.fedhq.io", "KIND: ResourceRegistry", "FIELD: resourceSelectors <[]ResourceSelector>",
			"ResourceSelectors are the kinds to cache from each selected cluster. At least one.",
			"apiVersion <string> -required-", "kind <string> -required-", "namespace <string>",
			"Namespace limits the cache of this kind to one namespace."} {
			if !strings.Contains(words, want) {
				t.Errorf("kubectl explain resourceregistry.spec.resourceSelectors lacks %q:\n%s", want, out)
			}
		}
		out = kubectl(t, host, "explain", "resourceregistry.spec.targetCluster")
		for _, want := range []string{"clusterNames", "exclude", "fieldSelector", "labelSelector"} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl explain resourceregistry.spec.targetCluster lacks %q:\n%s", want, out)
			}
		}
		out = kubectl(t, host, "explain", "resourceregistry.status.caches")
		for _, want := range []string{"synced", "objects", "stale", "lastSyncTime"} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl explain resourceregistry.status.caches lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for _, tc := range []struct{ spec, want string }{
			{"  targetCluster:\n    clusterNames: [member1]\n",
				"spec.resourceSelectors: Required value: at least one resource selector is required"},
			{"  resourceSelectors:\n  - apiVersion: apps/v1/deployments\n    kind: Deployment\n",
				`spec.resourceSelectors[0].apiVersion: Invalid value: "apps/v1/deployments": must be a group version such as apps/v1 or v1`},
			{"  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: deployments.apps\n",
				`spec.resourceSelectors[0].kind: Invalid value: "deployments.apps": must be a kind name such as Deployment`},
			{"  resourceSelectors:\n  - apiVersion: v1\n    kind: Pod\n  - apiVersion: v1\n    kind: Pod\n",
				`spec.resourceSelectors[1]: Duplicate value: "v1 Pod"`},
		} {
			doc := "apiVersion: search.fedhq.io/v1alpha1\nkind: ResourceRegistry\nmetadata:\n  name: " + name + "-invalid\nspec:\n" + tc.spec
			_, err := runKubectlWith(host, doc, nil, "create", "-f", "-")
			if err == nil {
				_, _ = runKubectl(host, "delete", "resourceregistry", name+"-invalid")
				t.Errorf("an invalid registry was created:\n%s", doc)
				continue
			}
			// kubectl prints the 422's causes after the kind and name.
			if msg := err.Error(); !strings.Contains(msg, `The ResourceRegistry "`+name+`-invalid" is invalid`) || !strings.Contains(msg, tc.want) {
				t.Errorf("creating\n%s\nfailed with %q, want %q", doc, msg, tc.want)
			}
		}
	})

	t.Run("through the fleet", func(t *testing.T) {
		// The fleet serves fed's groups as they are, search.fedhq.io included, not as templates.
		fleet := fleetKubeconfig(t, host)
		path := "jsonpath={.status.caches[*].cluster}"
		if out, want := kubectl(t, fleet, "get", "resourceregistries", name, "-o", path), kubectl(t, host, "get", "resourceregistries", name, "-o", path); out != want || want == "" {
			t.Errorf("the registry's caches through the fleet: %q; through the host: %q", out, want)
		}
	})

	kubectl(t, host, "delete", "resourceregistry", name)
	if _, err := registries.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
}

// TestSearchRBAC checks that the rule of artifacts/deploy/search-rbac.yaml lets the host
// forward a user's requests to the search endpoints, which RBAC sees as subresources of
// fixed names, and nothing more of the group.
func TestSearchRBAC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	user := fmt.Sprintf("e2e-searcher-%d", time.Now().UnixNano()%1_000_000_000)
	kubeconfig, err := theLab.Host.UserKubeconfig(user)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientConfigFor(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) error {
		_, err := cs.Discovery().RESTClient().Get().AbsPath(path).DoRaw(ctx)
		return err
	}
	paths := []string{
		searchv1alpha1.CachePath + "/apis/apps/v1/deployments",
		searchv1alpha1.CachePath + "/api/v1/namespaces/default/pods",
		searchv1alpha1.ProxyPath + "/apis/apps/v1/deployments",
	}
	for _, p := range paths {
		if err := get(p); !apierrors.IsForbidden(err) {
			t.Fatalf("GET %s without a role: %v, want Forbidden", p, err)
		}
	}

	binding := "e2e-search-view-" + user
	kubectl(t, theLab.Host.Kubeconfig, "create", "clusterrolebinding", binding, "--clusterrole=fed:search-view", "--user="+user)
	t.Cleanup(func() { _, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "clusterrolebinding", binding) })
	// The host lets the request through to fed-apiserver, whatever fed then answers (its
	// own 403 names the kind underneath: the user may not list deployments or pods).
	for _, p := range paths {
		waitFor(t, 10*time.Second, func() error {
			if err := get(p); apierrors.IsForbidden(err) && (strings.Contains(err.Error(), `"search"`) || strings.Contains(err.Error(), `"proxying"`)) {
				return fmt.Errorf("GET %s with fed:search-view: %w", p, err)
			}
			return nil
		})
	}
	for _, p := range []string{
		"/apis/search.fedhq.io/v1alpha1/search/other/apis/apps/v1/deployments",
		"/apis/search.fedhq.io/v1alpha1/proxying/other/proxy/api/v1/pods",
	} {
		if err := get(p); !apierrors.IsForbidden(err) {
			t.Errorf("GET %s with fed:search-view: %v, want Forbidden", p, err)
		}
	}
	_, err = cs.Discovery().RESTClient().Post().AbsPath(searchv1alpha1.ProxyPath + "/api/v1/namespaces/default/configmaps").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)).DoRaw(ctx)
	if !apierrors.IsForbidden(err) {
		t.Errorf("POST through the proxy with fed:search-view: %v, want Forbidden", err)
	}
}

// checkTable checks the header of `kubectl get` output and the first cells of its one row.
func checkTable(t *testing.T, out string, header, row []string) {
	t.Helper()
	ls := lines(out)
	if len(ls) != 2 {
		t.Fatalf("want a header and one row, got:\n%s", out)
	}
	if got := strings.Fields(ls[0]); strings.Join(got, " ") != strings.Join(header, " ") {
		t.Errorf("columns %q, want %q", got, header)
	}
	if got := strings.Fields(ls[1]); len(got) < len(row) || strings.Join(got[:len(row)], " ") != strings.Join(row, " ") {
		t.Errorf("row %q, want it to start with %q", got, row)
	}
}
