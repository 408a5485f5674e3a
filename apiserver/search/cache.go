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

// Package search serves the search group's endpoints beside its ResourceRegistries: under
// searchv1alpha1.CachePath, any Kubernetes list or watch path answered from the search
// cache (search/store) across the fleet's members, each object annotated with its cluster.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/apis/native"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/apiserver/fleet/tables"
	"github.com/fedhq/fed/apiserver/internal/subtree"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/search/store"
)

// RequestInfoResolver resolves a request to the search cache by its inner path, so that
// fed-apiserver's authorization asks the host what it would ask of the same request to a
// member (list pods in namespace a), and watches are long-running. Other requests go to
// the delegate.
func RequestInfoResolver(delegate request.RequestInfoResolver) request.RequestInfoResolver {
	return subtree.Resolver(searchv1alpha1.CachePath, delegate)
}

// Route sends requests to the search cache, with CachePath removed, to the cache's
// handler and the others to next.
func Route(next http.Handler, cache func() http.Handler) http.Handler {
	return subtree.Route(searchv1alpha1.CachePath, next, cache, "the search cache is not running: fed-apiserver runs without a host cluster")
}

// Cache answers list and watch requests from the search cache.
type Cache struct {
	Store *store.Store
	// MinRequestTimeout is the shortest a watch lasts without a timeoutSeconds (it lasts
	// up to twice as long), as --min-request-timeout says for fed-apiserver's own watches.
	MinRequestTimeout time.Duration
}

// request is a parsed request to the cache.
type cacheRequest struct {
	gr        schema.GroupResource
	kind      store.Kind
	query     store.Query
	limit     int64
	cont      string
	watch     bool
	from      uint64
	bookmarks bool
	timeout   time.Duration
	table     bool
	include   metav1.IncludeObjectPolicy
}

func (c *Cache) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r, err := c.parse(req)
	if err != nil {
		writeError(w, req, err)
		return
	}
	if searchv1alpha1.MetadataOnly(r.gr.Group, r.gr.Resource) {
		warning.AddWarning(req.Context(), "", metadataOnlyWarning(r.gr))
	}
	if r.watch {
		c.serveWatch(w, req, r)
		return
	}
	if r.table {
		c.serveTable(w, req, r)
		return
	}
	c.serveList(w, req, r)
}

// warnUncached warns, for each cluster asked for (clusters=), that the cache holds nothing
// of gr from it, when it does not: a cluster not in the fleet, or one no ResourceRegistry
// caches the kind of, answers an empty list, which says so.
func (c *Cache) warnUncached(req *http.Request, gr schema.GroupResource, clusters []string) {
	if len(clusters) == 0 {
		return
	}
	sources, err := c.Store.Sources()
	if err != nil {
		return
	}
	cached := map[string]bool{}
	for _, s := range sources {
		if s.Resource == gr {
			cached[s.Cluster] = true
		}
	}
	for _, cl := range clusters {
		if !cached[cl] {
			warning.AddWarning(req.Context(), "", fmt.Sprintf("the search cache holds no %s of cluster %q: it is not in the fleet, or no ResourceRegistry caches %s of it", gr, cl, gr))
		}
	}
}

// metadataOnlyWarning tells a client that the objects of gr it lists carry no data, so
// that kubectl and client-go print it: a Secret without data would read as an empty one.
func metadataOnlyWarning(gr schema.GroupResource) string {
	return fmt.Sprintf("the search cache keeps only the metadata of %s, not their data or type: get one by name "+
		"through the fleet proxy or clusters/NAME/proxy (or kubectl fed get %s) for all of it", gr, gr)
}

func writeError(w http.ResponseWriter, req *http.Request, err error) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		err = apierrors.NewInternalError(err)
	}
	responsewriters.ErrorNegotiated(err, scheme.Codecs, schema.GroupVersion{}, w, req)
}

// parse reads what a request asks of the cache, or the error that answers it.
func (c *Cache) parse(req *http.Request) (*cacheRequest, error) {
	info, err := subtree.RequestInfoFactory.NewRequestInfo(req)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if !info.IsResourceRequest {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, req.URL.Path)
	}
	gr := schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	// A list with fieldSelector metadata.name=X has info.Name X (for authorization): only
	// a name in the path makes a request for one object.
	if len(info.Parts) > 1 || (info.Verb != "list" && info.Verb != "watch") {
		return nil, apierrors.NewMethodNotSupported(gr, info.Verb+" of one object; the search cache answers lists and watches "+
			"(read or change one object through "+searchv1alpha1.ProxyPath+" or the clusters/NAME/proxy subresource)")
	}
	kind, ok := c.Store.Kind(gr)
	if !ok {
		return nil, notCached(gr, fmt.Sprintf("no ResourceRegistry caches it; add {apiVersion: %s, kind: %s} to a registry's resourceSelectors (kubectl get resourceregistries)",
			info.APIVersion, kindOf(gr, info.APIVersion)))
	}
	if kind.Version != info.APIVersion {
		return nil, notCached(gr, fmt.Sprintf("it is cached at version %s, not %s", kind.Version, info.APIVersion))
	}
	if info.Namespace != "" && !kind.Namespaced {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s is not namespaced", gr))
	}
	q := req.URL.Query()
	r := &cacheRequest{gr: gr, kind: kind, watch: info.Verb == "watch", cont: q.Get("continue")}
	r.query = store.Query{Resource: gr, Namespace: info.Namespace}
	if r.query.Labels, err = labels.Parse(q.Get("labelSelector")); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to parse labelSelector %q: %v", q.Get("labelSelector"), err))
	}
	if r.query.Fields, err = fieldSelector(gr, q.Get("fieldSelector")); err != nil {
		return nil, err
	}
	for _, cl := range strings.Split(q.Get("clusters"), ",") {
		if cl = strings.TrimSpace(cl); cl != "" {
			r.query.Clusters = append(r.query.Clusters, cl)
		}
	}
	c.warnUncached(req, gr, r.query.Clusters)
	if s := q.Get("limit"); s != "" {
		if r.limit, err = strconv.ParseInt(s, 10, 64); err != nil || r.limit < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("limit %q is not a non-negative number", s))
		}
	}
	if rv := q.Get("resourceVersion"); r.watch && rv != "" && rv != "0" {
		if r.from, err = strconv.ParseUint(rv, 10, 64); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("resourceVersion %q is not a resourceVersion of the search cache", rv))
		}
	}
	r.bookmarks = q.Get("allowWatchBookmarks") == "true"
	r.timeout = c.MinRequestTimeout + time.Duration(rand.Float64()*float64(c.MinRequestTimeout))
	if s := q.Get("timeoutSeconds"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil || secs < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("timeoutSeconds %q is not a non-negative number", s))
		}
		r.timeout = time.Duration(secs) * time.Second
	}
	r.table = wantsTable(req.Header.Get("Accept"))
	r.include = metav1.IncludeMetadata
	if s := q.Get("includeObject"); s != "" {
		r.include = metav1.IncludeObjectPolicy(s)
	}
	return r, nil
}

// kindOf is the kind of a built-in resource of apiVersion, for messages; for another
// resource, a placeholder saying so.
func kindOf(gr schema.GroupResource, apiVersion string) string {
	for gvk := range clientgoscheme.Scheme.AllKnownTypes() {
		if gvk.GroupVersion().String() == apiVersion && gvk.Group == gr.Group && !strings.HasSuffix(gvk.Kind, "List") {
			if plural, _ := meta.UnsafeGuessKindToResource(gvk); plural.Resource == gr.Resource {
				return gvk.Kind
			}
		}
	}
	return "<the kind of " + gr.Resource + ">"
}

func notCached(gr schema.GroupResource, why string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource},
		Message: fmt.Sprintf("%s is not in the search cache: %s", gr, why),
	}}
}

// fieldSelector parses a field selector and refuses fields the kind cannot be selected
// by, as kube-apiserver does.
func fieldSelector(gr schema.GroupResource, s string) (fields.Selector, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to parse fieldSelector %q: %v", s, err))
	}
	known := native.FieldLabels(gr)
	for _, req := range sel.Requirements() {
		if _, ok := known[req.Field]; ok || req.Field == "metadata.name" || req.Field == "metadata.namespace" {
			continue
		}
		return nil, apierrors.NewBadRequest(field.Invalid(field.NewPath("fieldSelector"), req.Field, "field label not supported: "+req.Field).Error())
	}
	return sel, nil
}

// wantsTable tells whether the first media type of an Accept header that the cache
// serves is a Table (kubectl get asks for one).
func wantsTable(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || (mt != "application/json" && mt != "*/*" && mt != "application/*") {
			continue
		}
		switch {
		case params["as"] == "":
			return false
		case params["as"] == "Table" && params["g"] == metav1.GroupName && params["v"] == "v1":
			return true
		}
	}
	return false
}

// serveList streams the list as JSON, items first, so that no list is held in memory.
func (c *Cache) serveList(w http.ResponseWriter, req *http.Request, r *cacheRequest) {
	gv := schema.GroupVersion{Group: r.gr.Group, Version: r.kind.Version}
	started := false
	start := func() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, `{"kind":%q,"apiVersion":%q,"items":[`, r.kind.Kind+"List", gv.String())
		started = true
	}
	page, err := c.Store.List(req.Context(), r.query, r.limit, r.cont, func(obj []byte) error {
		if !started {
			start()
		} else if _, err := w.Write([]byte{','}); err != nil {
			return err
		}
		_, err := w.Write(obj)
		return err
	})
	if err != nil {
		if started {
			klog.FromContext(req.Context()).Error(err, "Listing from the search cache failed midway", "resource", r.gr)
			panic(http.ErrAbortHandler)
		}
		writeError(w, req, listError(err))
		return
	}
	if !started {
		start()
	}
	meta, _ := json.Marshal(metav1.ListMeta{ResourceVersion: strconv.FormatUint(page.Revision, 10), Continue: page.Continue})
	fmt.Fprintf(w, `],"metadata":%s}`, meta)
}

// listError is the API error of a failed list.
func listError(err error) error {
	switch {
	case errors.Is(err, store.ErrExpired):
		return apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter.")
	case errors.Is(err, store.ErrInvalid):
		return apierrors.NewBadRequest(err.Error())
	}
	return err
}

// serveTable answers a list as the Table kubectl prints, with the cluster first.
func (c *Cache) serveTable(w http.ResponseWriter, req *http.Request, r *cacheRequest) {
	var objs [][]byte
	page, err := c.Store.List(req.Context(), r.query, r.limit, r.cont, func(obj []byte) error {
		objs = append(objs, obj)
		return nil
	})
	if err != nil {
		writeError(w, req, listError(err))
		return
	}
	table, err := c.toTable(req.Context(), r, objs, false)
	if err != nil {
		writeError(w, req, err)
		return
	}
	table.ResourceVersion = strconv.FormatUint(page.Revision, 10)
	table.Continue = page.Continue
	writeJSON(w, http.StatusOK, table)
}

// toTable prints objs (each an object's JSON) as a Table of their kind with a CLUSTER
// column first, each row's object as includeObject asks. A kind cached as metadata only
// prints its name and age: its own columns (a Secret's TYPE and DATA) would be wrong.
func (c *Cache) toTable(ctx context.Context, r *cacheRequest, objs [][]byte, noHeaders bool) (*metav1.Table, error) {
	gk := schema.GroupKind{Group: r.gr.Group, Kind: r.kind.Kind}
	metadataOnly := searchv1alpha1.MetadataOnly(r.gr.Group, r.gr.Resource)
	var table *metav1.Table
	var metas []*metav1.ObjectMeta
	if printer := tables.ForJSON(gk); printer != nil && !metadataOnly {
		table = &metav1.Table{Rows: make([]metav1.TableRow, len(objs))}
		metas = make([]*metav1.ObjectMeta, len(objs))
		for i, obj := range objs {
			row, m, err := printer.PrintJSON(obj)
			if err != nil {
				return nil, err
			}
			table.Rows[i], metas[i] = row, m
		}
		if !noHeaders {
			table.ColumnDefinitions = printer.Columns()
		}
	} else {
		convertor := tables.For(gk)
		if convertor == nil || metadataOnly {
			convertor = rest.NewDefaultTableConvertor(r.gr)
		}
		list := &unstructured.UnstructuredList{Object: map[string]any{}, Items: make([]unstructured.Unstructured, len(objs))}
		for i, obj := range objs {
			if err := list.Items[i].UnmarshalJSON(obj); err != nil {
				return nil, err
			}
		}
		var err error
		if table, err = convertor.ConvertToTable(ctx, list, &metav1.TableOptions{NoHeaders: noHeaders}); err != nil {
			return nil, err
		}
		metas = make([]*metav1.ObjectMeta, len(objs))
		for i := range list.Items {
			metas[i] = &metav1.ObjectMeta{}
			if md, ok := list.Items[i].Object["metadata"].(map[string]any); ok {
				_ = runtime.DefaultUnstructuredConverter.FromUnstructured(md, metas[i])
			}
		}
	}
	table.APIVersion, table.Kind = metav1.SchemeGroupVersion.String(), "Table"
	if !noHeaders {
		table.ColumnDefinitions = append([]metav1.TableColumnDefinition{{
			Name: "Cluster", Type: "string", Description: "The member cluster the object is in.",
		}}, table.ColumnDefinitions...)
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		m := metas[i]
		if m == nil {
			m = &metav1.ObjectMeta{}
		}
		row.Cells = append([]any{m.Annotations[searchv1alpha1.AnnotationCluster]}, row.Cells...)
		row.Object = rowObject(objs[i], m, r.include)
	}
	return table, nil
}

// rowObject is what a Table row carries of its object: obj is its JSON, m its metadata.
func rowObject(obj []byte, m *metav1.ObjectMeta, include metav1.IncludeObjectPolicy) runtime.RawExtension {
	switch include {
	case metav1.IncludeNone:
		return runtime.RawExtension{}
	case metav1.IncludeObject:
		return runtime.RawExtension{Raw: obj}
	}
	return runtime.RawExtension{Object: &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "PartialObjectMetadata"},
		ObjectMeta: *m,
	}}
}

func writeJSON(w http.ResponseWriter, code int, obj any) {
	data, err := json.Marshal(obj)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// serveWatch streams the watch as kube-apiserver does: one JSON event per line, flushed
// as it goes; a Table per event (the first with its columns) when a Table was asked for.
func (c *Cache) serveWatch(w http.ResponseWriter, req *http.Request, r *cacheRequest) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, req, apierrors.NewInternalError(errors.New("the connection cannot stream a watch")))
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), r.timeout)
	defer cancel()
	events := make(chan store.Event)
	failed := make(chan error, 1)
	go func() {
		failed <- c.Store.Watch(ctx, r.query, r.from, r.bookmarks, events)
		cancel()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	enc := json.NewEncoder(w)
	headers := true
	gv := schema.GroupVersion{Group: r.gr.Group, Version: r.kind.Version}
	for {
		var ev store.Event
		select {
		case ev = <-events:
		case <-ctx.Done():
			if err := <-failed; err != nil && ctx.Err() == nil || errors.Is(err, store.ErrExpired) {
				status := apierrors.NewInternalError(err).ErrStatus
				if errors.Is(err, store.ErrExpired) {
					status = apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", r.from)).ErrStatus
				}
				status.APIVersion, status.Kind = "v1", "Status"
				_ = enc.Encode(metav1.WatchEvent{Type: string(watch.Error), Object: runtime.RawExtension{Object: &status}})
			}
			return
		}
		var object json.RawMessage
		switch {
		case ev.Type == watch.Bookmark:
			object, _ = json.Marshal(map[string]any{"kind": r.kind.Kind, "apiVersion": gv.String(),
				"metadata": map[string]any{"resourceVersion": strconv.FormatUint(ev.Revision, 10)}})
		case r.table:
			table, err := c.toTable(ctx, r, [][]byte{ev.Object}, !headers)
			if err != nil {
				return
			}
			headers = false
			if object, err = json.Marshal(table); err != nil {
				return
			}
		default:
			object = ev.Object
		}
		if err := enc.Encode(struct {
			Type   watch.EventType `json:"type"`
			Object json.RawMessage `json:"object"`
		}{ev.Type, object}); err != nil {
			return
		}
		flusher.Flush()
	}
}
