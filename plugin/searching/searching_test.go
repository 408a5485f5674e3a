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

package searching

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

var (
	podGVK    = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deployGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	members   = []string{"member1", "member2", "member3"}
)

// registry is a ResourceRegistry whose status has caches.
func registry(caches ...searchv1alpha1.CacheStatus) searchv1alpha1.ResourceRegistry {
	return searchv1alpha1.ResourceRegistry{Status: searchv1alpha1.ResourceRegistryStatus{Caches: caches}}
}

// pods is a synced cache of the pods of cluster, in namespace ns ("" for all).
func pods(cluster, ns string) searchv1alpha1.CacheStatus {
	return searchv1alpha1.CacheStatus{Cluster: cluster, APIVersion: "v1", Kind: "Pod", Namespace: ns, Synced: true}
}

func TestGaps(t *testing.T) {
	unsynced := pods("member3", "")
	unsynced.Synced, unsynced.Message = false, "listing"
	stale := pods("member2", "")
	stale.Stale, stale.Message = true, "member2 is not Ready"
	oldVersion := searchv1alpha1.CacheStatus{Cluster: "member1", APIVersion: "apps/v1beta2", Kind: "Deployment", Synced: true}
	for _, tc := range []struct {
		name       string
		registries []searchv1alpha1.ResourceRegistry
		gvk        schema.GroupVersionKind
		resource   string
		clusters   []string
		namespace  string
		want       string
	}{
		{name: "every cluster, every namespace", gvk: podGVK, resource: "pods", clusters: members, namespace: "shop",
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""), pods("member2", "")), registry(pods("member3", ""))}},
		{name: "a namespace's cache answers that namespace", gvk: podGVK, resource: "pods", clusters: members[:2], namespace: "shop",
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", "shop"), pods("member2", "shop"))}},
		{name: "one synced cache is enough", gvk: podGVK, resource: "pods", clusters: []string{"member3"},
			registries: []searchv1alpha1.ResourceRegistry{registry(unsynced), registry(pods("member3", ""))}},
		{name: "no registries", gvk: podGVK, resource: "pods", clusters: members,
			want: "no ResourceRegistry caches pods"},
		{name: "another kind cached", gvk: deployGVK, resource: "deployments.apps", clusters: members,
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""))},
			want:       "no ResourceRegistry caches deployments.apps"},
		{name: "a member not selected", gvk: podGVK, resource: "pods", clusters: members,
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""), pods("member2", ""))},
			want:       "no ResourceRegistry caches pods of member3"},
		{name: "not synced", gvk: podGVK, resource: "pods", clusters: members,
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""), pods("member2", ""), unsynced)},
			want:       "the cache of pods of member3 is not synced yet (listing)"},
		{name: "stale", gvk: podGVK, resource: "pods", clusters: members[:2],
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""), stale)},
			want:       "member2 is stale: the cache holds its pods as last seen (member2 is not Ready)"},
		{name: "all namespaces of a namespace's cache", gvk: podGVK, resource: "pods", clusters: members[:1],
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", "shop"), pods("member1", "db"))},
			want:       "pods of member1 are cached in namespace db, shop only"},
		{name: "another namespace", gvk: podGVK, resource: "pods", clusters: members[:1], namespace: "web",
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", "shop"))},
			want:       "pods of member1 are cached in namespace shop, not web"},
		{name: "another version", gvk: deployGVK, resource: "deployments.apps", clusters: members[:1],
			registries: []searchv1alpha1.ResourceRegistry{registry(oldVersion)},
			want:       "deployments.apps of member1 are cached at apps/v1beta2, not apps/v1"},
		{name: "many gaps", gvk: podGVK, resource: "pods", clusters: []string{"a", "b", "c", "d", "e", "member1"},
			registries: []searchv1alpha1.ResourceRegistry{registry(pods("member1", ""))},
			want:       "no ResourceRegistry caches pods of a; no ResourceRegistry caches pods of b; no ResourceRegistry caches pods of c; and 2 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Gaps(tc.registries, tc.gvk, tc.resource, tc.clusters, tc.namespace); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// cacheError is the error client-go makes of the cache's 404 for a kind it does not hold.
func cacheError(t *testing.T, message string) error {
	t.Helper()
	body, err := json.Marshal(metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: message})
	if err != nil {
		t.Fatal(err)
	}
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		t.Fatal(err)
	}
	return &apierrors.StatusError{ErrStatus: status}
}

func TestExplain(t *testing.T) {
	notCached := cacheError(t, "pods is not in the search cache: no ResourceRegistry caches it (kubectl get resourceregistries)")
	got := Explain(notCached, podGVK, "pods").Error()
	want := `pods is not in the search cache: no ResourceRegistry caches it (kubectl get resourceregistries).
kubectl get resourceregistries lists what is cached. To cache pods of every member cluster:
  echo '{"apiVersion":"search.fedhq.io/v1alpha1","kind":"ResourceRegistry","metadata":{"name":"pods"},"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"Pod"}]}}' | kubectl apply -f -
or read the members themselves: kubectl fed get pods --all-clusters`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The registry in the hint is a valid ResourceRegistry of the kind.
	line := strings.Split(got, "\n")[2]
	doc := line[strings.Index(line, "'")+1 : strings.LastIndex(line, "'")]
	var rr searchv1alpha1.ResourceRegistry
	if err := json.Unmarshal([]byte(doc), &rr); err != nil {
		t.Fatal(err)
	}
	if s := rr.Spec.ResourceSelectors; rr.Name != "pods" || len(s) != 1 || s[0].APIVersion != "v1" || s[0].Kind != "Pod" {
		t.Errorf("registry %+v", rr)
	}

	// As resource.Builder returns it.
	builders := cacheError(t, `Unable to list "/v1, Resource=pods": pods is not in the search cache: no ResourceRegistry caches it (kubectl get resourceregistries)`)
	if got := Explain(fmt.Errorf("wrapped: %w", builders), podGVK, "pods").Error(); got != want {
		t.Errorf("from resource.Builder, got\n%s\nwant\n%s", got, want)
	}

	got = Explain(cacheError(t, "deployments.apps is not in the search cache: it is cached at version v1beta2, not v1"), deployGVK, "deployments.apps").Error()
	if !strings.HasPrefix(got, "deployments.apps is not in the search cache: it is cached at version v1beta2, not v1.\n") ||
		!strings.Contains(got, `"apiVersion":"apps/v1","kind":"Deployment"`) || !strings.Contains(got, `"name":"deployments.apps"`) {
		t.Errorf("another version:\n%s", got)
	}

	if got := Explain(cacheError(t, "the server could not find the requested resource"), podGVK, "pods").Error(); !strings.HasPrefix(got,
		"the host does not serve the search cache (kubectl get apiservices v1alpha1.search.fedhq.io)") {
		t.Errorf("a host without the search group: %s", got)
	}
	boom := errors.New("boom")
	if got := Explain(boom, podGVK, "pods"); got != boom {
		t.Errorf("another error: %v", got)
	}
}
