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

package search

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericfilters "k8s.io/apiserver/pkg/endpoints/filters"

	"github.com/fedhq/fed/apis/native"
	"github.com/fedhq/fed/search/ingest"
	"github.com/fedhq/fed/search/store"
)

var podsGR = schema.GroupResource{Resource: "pods"}

// cacheWith returns a Cache over an in-memory store holding pod i of each cluster, i < n.
func cacheWith(t *testing.T, clusters []string, n int) *Cache {
	t.Helper()
	opts := store.DefaultOptions("")
	opts.InMemory = true
	s, err := store.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	for _, c := range clusters {
		conv := &ingest.Converter{Cluster: c, Resource: podsGR, Fields: native.FieldLabels(podsGR)}
		for i := range n {
			o, err := conv.Object(benchPod(c, i))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Put(ctx, store.Source{Cluster: c, Resource: podsGR}, o, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	s.SetKinds(map[schema.GroupResource]store.Kind{podsGR: {Version: "v1", Kind: "Pod", Namespaced: true}})
	return &Cache{Store: s, MinRequestTimeout: time.Minute}
}

func serve(c http.Handler, path, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	return rec
}

func TestCacheList(t *testing.T) {
	c := cacheWith(t, []string{"member2", "member3"}, 250)
	rec := serve(c, "/api/v1/namespaces/ns-07/pods?labelSelector=tier%3Dweb", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	list := &unstructured.UnstructuredList{}
	if err := list.UnmarshalJSON(rec.Body.Bytes()); err != nil {
		t.Fatal(err)
	}
	// ns-07 holds pods 7, 107, 207 of each cluster; none of them is tier=db.
	if list.GetKind() != "PodList" || list.GetAPIVersion() != "v1" || len(list.Items) != 6 || list.GetResourceVersion() == "" {
		t.Fatalf("list %s %s of %d items at %q", list.GetAPIVersion(), list.GetKind(), len(list.Items), list.GetResourceVersion())
	}
	if a := list.Items[0].GetAnnotations()["search.fedhq.io/cluster"]; a != "member2" {
		t.Errorf("first item from %q, want member2", a)
	}

	// Pages of 100 over 500 pods, each from the first page's snapshot.
	var names []string
	cont := ""
	for pages := 0; ; pages++ {
		rec := serve(c, "/api/v1/pods?limit=100&continue="+cont, "")
		page := &unstructured.UnstructuredList{}
		if err := page.UnmarshalJSON(rec.Body.Bytes()); err != nil {
			t.Fatalf("page %d: %v: %s", pages, err, rec.Body)
		}
		for _, o := range page.Items {
			names = append(names, o.GetName())
		}
		if cont = page.GetContinue(); cont == "" {
			break
		}
	}
	if len(names) != 500 {
		t.Errorf("%d pods over the pages, want 500", len(names))
	}
	// An empty answer is a list too.
	rec = serve(c, "/api/v1/namespaces/nothing-here/pods", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"items":[]`) {
		t.Errorf("an empty list: %d %s", rec.Code, rec.Body)
	}
}

func TestCacheErrors(t *testing.T) {
	c := cacheWith(t, []string{"member1"}, 3)
	for path, want := range map[string]struct {
		code int
		msg  string
	}{
		"/apis/apps/v1/deployments":                   {http.StatusNotFound, "deployments.apps is not in the search cache: no ResourceRegistry caches it"},
		"/api/v2/pods":                                {http.StatusNotFound, "cached at version v1, not v2"},
		"/api/v1/namespaces/a/pods/x":                 {http.StatusMethodNotAllowed, "the search cache answers lists and watches"},
		"/api/v1/pods?fieldSelector=spec.bogus%3Dx":   {http.StatusBadRequest, "field label not supported: spec.bogus"},
		"/api/v1/pods?labelSelector=a%3D%3D%3Db":      {http.StatusBadRequest, "unable to parse labelSelector"},
		"/api/v1/pods?limit=-1":                       {http.StatusBadRequest, "limit"},
		"/api/v1/pods?limit=1&continue=nonsense":      {http.StatusBadRequest, "not a continue token"},
		"/api/v1/pods?watch=true&resourceVersion=abc": {http.StatusBadRequest, "not a resourceVersion"},
	} {
		rec := serve(c, path, "")
		var status metav1.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &status)
		if rec.Code != want.code || !strings.Contains(status.Message, want.msg) {
			t.Errorf("GET %s: %d %q, want %d with %q", path, rec.Code, status.Message, want.code, want.msg)
		}
	}
}

func TestCacheTable(t *testing.T) {
	c := cacheWith(t, []string{"member1", "member2"}, 3)
	rec := serve(c, "/api/v1/pods", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	var table metav1.Table
	if err := json.Unmarshal(rec.Body.Bytes(), &table); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	if len(table.ColumnDefinitions) < 3 || table.ColumnDefinitions[0].Name != "Cluster" || table.ColumnDefinitions[1].Name != "Name" {
		t.Fatalf("columns %+v", table.ColumnDefinitions)
	}
	if len(table.Rows) != 6 || table.Rows[0].Cells[0] != "member1" || table.Rows[5].Cells[0] != "member2" {
		t.Fatalf("rows %+v", table.Rows)
	}
	var meta metav1.PartialObjectMetadata
	if err := json.Unmarshal(table.Rows[0].Object.Raw, &meta); err != nil || meta.Kind != "PartialObjectMetadata" || meta.Name == "" {
		t.Errorf("row object %s: %v", table.Rows[0].Object.Raw, err)
	}
}

func TestCacheWatch(t *testing.T) {
	c := cacheWith(t, []string{"member2"}, 3)
	srv := httptest.NewServer(c)
	defer srv.Close()
	rv := c.Store.Revision()
	resp, err := http.Get(srv.URL + "/api/v1/namespaces/ns-01/pods?watch=true&allowWatchBookmarks=true&resourceVersion=" + strings.TrimSpace(jsonNumber(rv)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ctx := context.Background()
	src := store.Source{Cluster: "member2", Resource: podsGR}
	conv := &ingest.Converter{Cluster: "member2", Resource: podsGR, Fields: native.FieldLabels(podsGR)}
	o, _ := conv.Object(benchPod("member2", 101)) // in ns-01
	_ = c.Store.Put(ctx, src, o, "")
	_ = c.Store.Delete(ctx, src, "ns-01", benchPod("member2", 1).GetName(), "")
	lines := bufio.NewScanner(resp.Body)
	var got []string
	for len(got) < 2 && lines.Scan() {
		var ev struct {
			Type   string
			Object struct {
				Metadata struct{ Name, ResourceVersion string }
			}
		}
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("%v: %s", err, lines.Bytes())
		}
		if ev.Type == "BOOKMARK" {
			continue
		}
		got = append(got, ev.Type+" "+ev.Object.Metadata.Name)
	}
	want := []string{"ADDED " + benchPod("member2", 101).GetName(), "DELETED " + benchPod("member2", 1).GetName()}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %v, want %v", got, want)
	}
}

func jsonNumber(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func TestCacheListByName(t *testing.T) {
	c := cacheWith(t, []string{"member2", "member3"}, 3)
	name := benchPod("member2", 1).GetName()
	rec := serve(c, "/api/v1/namespaces/ns-01/pods?fieldSelector=metadata.name%3D"+name, "")
	list := &unstructured.UnstructuredList{}
	if err := list.UnmarshalJSON(rec.Body.Bytes()); err != nil || len(list.Items) != 2 {
		t.Fatalf("a list by name: %d %s", rec.Code, rec.Body)
	}
}

// TestCacheSecrets: a kind cached as metadata only is printed by name and age (not as a
// Secret of type Opaque holding nothing), and every answer warns that data is left out.
func TestCacheSecrets(t *testing.T) {
	c := cacheWith(t, []string{"member1"}, 1)
	secrets := schema.GroupResource{Resource: "secrets"}
	conv := &ingest.Converter{Cluster: "member1", Resource: secrets, APIVersion: "v1", Kind: "Secret", MetadataOnly: true}
	o, err := conv.Object(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s", "namespace": "a", "creationTimestamp": "2026-01-01T00:00:00Z"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Store.Put(ctx, store.Source{Cluster: "member1", Resource: secrets}, o, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.Store.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	c.Store.SetKinds(map[schema.GroupResource]store.Kind{podsGR: {Version: "v1", Kind: "Pod", Namespaced: true},
		secrets: {Version: "v1", Kind: "Secret", Namespaced: true}})
	h := genericfilters.WithWarningRecorder(c)
	for _, accept := range []string{"application/json;as=Table;v=v1;g=meta.k8s.io", "application/json"} {
		rec := serve(h, "/api/v1/namespaces/a/secrets", accept)
		if w := rec.Header().Get("Warning"); !strings.Contains(w, "the search cache keeps only the metadata of secrets, not their data") {
			t.Errorf("Accept %s: warning %q", accept, w)
		}
		if accept == "application/json" {
			continue
		}
		var table metav1.Table
		if err := json.Unmarshal(rec.Body.Bytes(), &table); err != nil {
			t.Fatalf("%v: %s", err, rec.Body)
		}
		var columns []string
		for _, col := range table.ColumnDefinitions {
			columns = append(columns, col.Name)
		}
		if strings.Join(columns, ",") != "Cluster,Name,Created At" || len(table.Rows) != 1 || table.Rows[0].Cells[1] != "s" {
			t.Errorf("a Secret's table: columns %v, rows %+v", columns, table.Rows)
		}
	}
	if w := serve(h, "/api/v1/pods", "").Header().Get("Warning"); w != "" {
		t.Errorf("a kind cached whole warns %q", w)
	}
}

// TestKindOf: the refusal of a kind nothing caches names what to add to a registry.
func TestKindOf(t *testing.T) {
	for gr, want := range map[schema.GroupResource]string{
		{Resource: "nodes"}:                         "Node",
		{Group: "apps", Resource: "deployments"}:    "Deployment",
		{Group: "example.com", Resource: "widgets"}: "<the kind of widgets>",
	} {
		apiVersion := schema.GroupVersion{Group: gr.Group, Version: "v1"}.String()
		if got := kindOf(gr, apiVersion); got != want {
			t.Errorf("kindOf(%s, %s) = %q, want %q", gr, apiVersion, got, want)
		}
	}
}
