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

package listing

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fedhq/fed/internal/golden"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/tables"
)

var members = []string{"member1", "member2", "member3"}

// asCacheAnswer is the search cache's answer for what the members answered: one Table
// with the cluster first, each row's object annotated with its cluster.
func asCacheAnswer(results []sourceResult) sourceResult {
	var cols []metav1.TableColumnDefinition
	var rows []metav1.TableRow
	var mapping *meta.RESTMapping
	for _, r := range results {
		t := r.Infos[0].Object.(*metav1.Table)
		mapping = r.Infos[0].Mapping
		cols = append([]metav1.TableColumnDefinition{{Name: "Cluster", Type: "string"}}, t.ColumnDefinitions...)
		for _, row := range t.Rows {
			obj := row.Object.Object.DeepCopyObject().(*unstructured.Unstructured)
			obj.SetAnnotations(map[string]string{searchv1alpha1.AnnotationCluster: r.Source.Cluster})
			rows = append(rows, metav1.TableRow{Cells: append([]any{r.Source.Cluster}, row.Cells...), Object: runtime.RawExtension{Object: obj}})
		}
	}
	return sourceResult{
		Source: source{Cache: &cacheSource{Members: members}},
		Infos:  []*resource.Info{{Mapping: mapping, Object: &metav1.Table{ColumnDefinitions: cols, Rows: rows}}},
	}
}

// The cache's one answer, split by cluster, prints as the members' answers do.
func TestCacheAnswerPrintsLikeMembers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output string
		mutate func(*kubectlget.PrintFlags, *Options)
	}{
		{name: "pods", mutate: func(pf *kubectlget.PrintFlags, _ *Options) { *pf.HumanReadableFlags.ColumnLabels = []string{"app"} }},
		{name: "pods-wide", output: "wide"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions(tc.output, tc.mutate)
			parts, err := tableParts([]sourceResult{asCacheAnswer(podResults())})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := tables.Print(&out, tables.Merge(parts), o.PrintFlags, o.AllNamespaces); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "get-"+tc.name+".txt", out.Bytes())
		})
	}
}

// cacheItems are the items of a cache list, annotated with their clusters.
func cacheItems() []sourceResult {
	r := sourceResult{Source: source{Cache: &cacheSource{Members: members}}}
	for _, c := range []struct{ cluster, name string }{{"member1", "web"}, {"member2", "api"}, {"member2", "web"}} {
		u := fullObject("apps/v1", "Deployment", "shop", c.name)
		u.SetAnnotations(map[string]string{searchv1alpha1.AnnotationCluster: c.cluster})
		r.Infos = append(r.Infos, &resource.Info{Mapping: deployMapping, Object: u})
	}
	return []sourceResult{r}
}

func TestSearchObjectsGolden(t *testing.T) {
	for _, output := range []string{"yaml", "name"} {
		t.Run(output, func(t *testing.T) {
			o := newTestOptions(output, nil)
			var out bytes.Buffer
			if _, err := o.printObjects(&out, cacheItems()); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "search-objects-"+output+".txt", out.Bytes())
		})
	}
}

// staticGetter resolves types with a fixed mapper; it makes no client.
type staticGetter struct{ mapper meta.RESTMapper }

func (g staticGetter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://host.example"}, nil
}
func (g staticGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return nil, errors.New("no discovery")
}
func (g staticGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }

func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Node"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	return m
}

func TestCacheQueries(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		err  string
	}{
		{args: []string{"pods"}, want: "pods:"},
		{args: []string{"pods,replicasets.apps"}, want: "pods: replicasets.apps:"},
		{args: []string{"pod", "a", "b"}, want: "pods:a pods:b"},
		{args: []string{"pods,nodes", "a"}, want: "pods:a nodes:a"},
		{args: []string{"pods/a", "replicasets/b"}, want: "pods:a replicasets.apps:b"},
		{args: []string{"pods/a", "b"}, err: "arguments in resource/name form must have a single resource and name"},
		{args: []string{"pods", "x/b"}, err: "there is no need to specify a resource type"},
		{args: []string{"nothing"}, err: `the server doesn't have a resource type "nothing"`},
	} {
		queries, err := cacheQueries(tc.args, testMapper())
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		var got []string
		for _, q := range queries {
			got = append(got, resourceName(q.Mapping)+":"+q.Name)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%v: queries %v, want %s", tc.args, got, tc.want)
		}
	}
	q := cacheQuery{Name: "web-0"}
	if got, want := q.fieldSelector("status.phase=Running"), "metadata.name=web-0,status.phase=Running"; got != want {
		t.Errorf("field selector %q, want %q", got, want)
	}
	if got := (cacheQuery{}).fieldSelector("spec.nodeName=n"); got != "spec.nodeName=n" {
		t.Errorf("field selector without a name %q", got)
	}
}

// caches are registries' statuses: pods and secrets synced in every member, replicasets
// nowhere, nodes of member1 only.
func caches() []searchv1alpha1.ResourceRegistry {
	var rr searchv1alpha1.ResourceRegistry
	for _, m := range members {
		rr.Status.Caches = append(rr.Status.Caches, searchv1alpha1.CacheStatus{Cluster: m, APIVersion: "v1", Kind: "Pod", Synced: true},
			searchv1alpha1.CacheStatus{Cluster: m, APIVersion: "v1", Kind: "Secret", Synced: true})
	}
	rr.Status.Caches = append(rr.Status.Caches, searchv1alpha1.CacheStatus{Cluster: "member1", APIVersion: "v1", Kind: "Node", Synced: true})
	return []searchv1alpha1.ResourceRegistry{rr}
}

func TestCacheOrMembers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		clusters []string
		regErr   error
		want     []string // the sources: "cache ARGS" or "CLUSTER ARGS"
		notes    []string
	}{
		{name: "cached everywhere", args: []string{"pods"},
			want:  []string{"cache pods"},
			notes: []string{"reading pods of member1, member2, member3 from the search cache"}},
		{name: "names go to the cache too", args: []string{"pod", "web-0"}, clusters: []string{"member2"},
			want:  []string{"cache pod web-0 clusters=member2"},
			notes: []string{"reading pods of member2 from the search cache"}},
		{name: "some types cached", args: []string{"pods,replicasets"},
			want: []string{"cache pods", "member1 replicasets", "member2 replicasets", "member3 replicasets"},
			notes: []string{"reading pods of member1, member2, member3 from the search cache",
				"reading replicasets.apps from the members (member1, member2, member3): no ResourceRegistry caches replicasets.apps"}},
		{name: "not every member cached", args: []string{"nodes"},
			want:  []string{"member1 nodes", "member2 nodes", "member3 nodes"},
			notes: []string{"reading nodes from the members (member1, member2, member3): no ResourceRegistry caches nodes of member2; no ResourceRegistry caches nodes of member3"}},
		{name: "the members cached", args: []string{"nodes"}, clusters: []string{"member1"},
			want:  []string{"cache nodes clusters=member1"},
			notes: []string{"reading nodes of member1 from the search cache"}},
		{name: "secrets are cached without their data", args: []string{"pods,secrets"},
			want: []string{"cache pods", "member1 secrets", "member2 secrets", "member3 secrets"},
			notes: []string{"reading pods of member1, member2, member3 from the search cache",
				"reading secrets from the members (member1, member2, member3): the search cache keeps only the metadata of secrets, not their data"}},
		{name: "no registries to read", args: []string{"pods"}, regErr: errors.New("the host does not serve search.fedhq.io"),
			want:  []string{"member1 pods", "member2 pods", "member3 pods"},
			notes: []string{"reading pods from the members (member1, member2, member3): the host does not serve search.fedhq.io"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOptions("", nil)
			o.Clusters.Clusters = tc.clusters
			names := members
			if tc.clusters != nil {
				names = tc.clusters
			}
			var in []source
			for _, n := range names {
				in = append(in, source{Cluster: n, Getter: staticGetter{testMapper()}, Args: tc.args})
			}
			sources, notes := o.cacheOrMembers(in, tc.args, caches(), tc.regErr)
			var got []string
			for _, s := range sources {
				switch {
				case s.Cache == nil:
					got = append(got, s.Cluster+" "+strings.Join(s.Args, " "))
				case len(s.Cache.Clusters) > 0:
					got = append(got, "cache "+strings.Join(s.Args, " ")+" clusters="+strings.Join(s.Cache.Clusters, ","))
				default:
					got = append(got, "cache "+strings.Join(s.Args, " "))
				}
				if s.Cache != nil && (len(s.Cache.Fallback) != len(names) || !reflect.DeepEqual(s.Cache.Fallback[0].Args, s.Args)) {
					t.Errorf("fallback %+v: want the members' sources of %v", s.Cache.Fallback, s.Args)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("sources %q\nwant %q", got, tc.want)
			}
			if !reflect.DeepEqual(notes, tc.notes) {
				t.Errorf("notes %q\nwant %q", notes, tc.notes)
			}
		})
	}
}

func TestCacheOrMembersNamespace(t *testing.T) {
	rr := searchv1alpha1.ResourceRegistry{}
	for _, m := range members {
		rr.Status.Caches = append(rr.Status.Caches, searchv1alpha1.CacheStatus{Cluster: m, APIVersion: "v1", Kind: "Pod", Namespace: "shop", Synced: true})
	}
	for _, tc := range []struct {
		all    bool
		ns     string
		cached bool
	}{{ns: "shop", cached: true}, {ns: "web"}, {ns: "shop", all: true}} {
		o := newTestOptions("", nil)
		o.Namespace, o.AllNamespaces = tc.ns, tc.all
		var in []source
		for _, n := range members {
			in = append(in, source{Cluster: n, Getter: staticGetter{testMapper()}, Args: []string{"pods"}})
		}
		sources, notes := o.cacheOrMembers(in, []string{"pods"}, []searchv1alpha1.ResourceRegistry{rr}, nil)
		if cached := sources[0].Cache != nil; cached != tc.cached {
			t.Errorf("-n %s -A=%v: from the cache %v, want %v (%v)", tc.ns, tc.all, cached, tc.cached, notes)
		}
	}
}

func TestStaleWarnings(t *testing.T) {
	stale := func(cluster, name string) metav1.TableRow {
		obj := metaObject("shop", name, nil).(*unstructured.Unstructured)
		obj.SetAnnotations(map[string]string{searchv1alpha1.AnnotationCluster: cluster, searchv1alpha1.AnnotationStale: "true"})
		return row(obj, cluster, name)
	}
	results := []sourceResult{
		{Source: source{Cache: &cacheSource{}}, Infos: []*resource.Info{{Object: &metav1.Table{Rows: []metav1.TableRow{
			stale("member3", "a"), row(metaObject("shop", "b", nil), "member1", "b"), stale("member3", "c"), {Cells: []any{"member2", "d"}},
		}}}}},
		// A member's own answer is never stale.
		tableResult("member3", podMapping, podColumns, stale("member3", "x")),
	}
	got := staleWarnings(results)
	want := []string{"the search cache cannot reach member3: its 2 objects shown are as last seen (annotation search.fedhq.io/stale)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestTypesOfAndClusterList(t *testing.T) {
	if got := typesOf([]string{"pods,deploy,pods", "a"}); !reflect.DeepEqual(got, []string{"pods", "deploy"}) {
		t.Errorf("typesOf: %v", got)
	}
	if got := typesOf([]string{"po/a", "deploy/b", "po/c"}); !reflect.DeepEqual(got, []string{"po", "deploy"}) {
		t.Errorf("typesOf: %v", got)
	}
	var many []string
	for i := range 8 {
		many = append(many, fmt.Sprintf("m%d", i))
	}
	if got, want := clusterList(many), "m0, m1, m2, m3, m4 and 3 more"; got != want {
		t.Errorf("clusterList %q, want %q", got, want)
	}
}
