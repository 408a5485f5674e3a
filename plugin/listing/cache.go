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
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/resource"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/searching"
	"github.com/fedhq/fed/plugin/tables"
)

// cacheSource is the search cache standing for members: its one answer holds the objects
// of all of them, each annotated with its cluster, and is split by cluster into the shape
// of the members' own answers (tableParts, memberItems) for printing.
type cacheSource struct {
	// Clusters is the clusters parameter of the requests; nil asks for every cached cluster.
	Clusters []string
	// Members are the members the answer stands for, in the order to show them.
	Members []string
	// Queries are the requests the arguments make.
	Queries []cacheQuery
	// Fallback are the members' own sources, queried instead when the cache fails.
	Fallback []source
}

// cacheQuery is one request to the cache. The cache answers lists and watches only, so a
// NAME is a field selector on metadata.name.
type cacheQuery struct {
	// Type is the TYPE of the command line; Mapping is what it resolved to.
	Type    string
	Mapping *meta.RESTMapping
	// Name is the NAME asked for, "" for every object of the type.
	Name string
}

// resourceName is how messages name the resource of a mapping: pods, deployments.apps.
func resourceName(m *meta.RESTMapping) string {
	return m.Resource.GroupResource().String()
}

// fieldSelector is the field selector of the query's request, with the user's.
func (q cacheQuery) fieldSelector(user string) string {
	if q.Name == "" {
		return user
	}
	s := fields.OneTermEqualSelector("metadata.name", q.Name).String()
	if user != "" {
		s += "," + user
	}
	return s
}

// cacheQueries are the requests for TYPE[,TYPE…] [NAME…] or TYPE/NAME…: one per type, or
// per type and name. The types resolve with mapper.
func cacheQueries(args []string, mapper meta.RESTMapper) ([]cacheQuery, error) {
	type pair struct{ typ, name string }
	var pairs []pair
	if len(args) > 0 && strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, name, _ := strings.Cut(a, "/")
			if typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name")
			}
			pairs = append(pairs, pair{typ, name})
		}
	} else if len(args) > 0 {
		for _, typ := range strings.Split(args[0], ",") {
			if typ == "" {
				continue
			}
			if len(args) == 1 {
				pairs = append(pairs, pair{typ, ""})
			}
			for _, name := range args[1:] {
				if strings.Contains(name, "/") {
					return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form")
				}
				pairs = append(pairs, pair{typ, name})
			}
		}
	}
	resolved := map[string]*meta.RESTMapping{}
	var queries []cacheQuery
	for _, p := range pairs {
		m, ok := resolved[p.typ]
		if !ok {
			var err error
			if m, err = resolveMapping(mapper, p.typ); meta.IsNoMatchError(err) {
				return nil, fmt.Errorf("the server doesn't have a resource type %q", p.typ)
			} else if err != nil {
				return nil, err
			}
			resolved[p.typ] = m
		}
		queries = append(queries, cacheQuery{Type: p.typ, Mapping: m, Name: p.name})
	}
	if len(queries) == 0 {
		return nil, fmt.Errorf("you must specify the type of resource to get")
	}
	return queries, nil
}

// transforms are what the cache's requests add: the clusters, and the Table for human
// output.
func (c *cacheSource) transforms(human bool) []resource.RequestTransform {
	var ts []resource.RequestTransform
	if len(c.Clusters) > 0 {
		clusters := strings.Join(c.Clusters, ",")
		ts = append(ts, func(req *rest.Request) { req.Param("clusters", clusters) })
	}
	if human {
		ts = append(ts, tables.AcceptTable)
	}
	return ts
}

// cacheBuilder is the builder of one query of a cache source.
func (o *Options) cacheBuilder(s source, q cacheQuery, human bool) *resource.Builder {
	return o.newBuilder(s.Getter, []string{q.Type}, q.fieldSelector(o.FieldSelector), s.Cache.transforms(human)...)
}

// queryCache lists what the queries of a cache source ask for: a NAME found in no cluster
// is NotFound, as kubectl says it; the cache's refusal of a kind says what to do.
func (o *Options) queryCache(s source, human bool) sourceResult {
	res := sourceResult{Source: s}
	if o.Watch && len(s.Cache.Queries) > 1 {
		res.Err = fmt.Errorf("watch is only supported on individual resources and resource collections, but %d resources were found", len(s.Cache.Queries))
		return res
	}
	for _, q := range s.Cache.Queries {
		infos, err := o.listCache(s, q, human)
		if err != nil {
			res.Err = searching.Explain(err, q.Mapping.GroupVersionKind, resourceName(q.Mapping))
			return res
		}
		if q.Name != "" && countObjects(infos) == 0 {
			res.NotFound = append(res.NotFound, apierrors.NewNotFound(q.Mapping.Resource.GroupResource(), q.Name))
		}
		res.Infos = append(res.Infos, infos...)
	}
	return res
}

func (o *Options) listCache(s source, q cacheQuery, human bool) ([]*resource.Info, error) {
	if human && !o.Watch {
		return o.listCacheTables(s, q)
	}
	b := o.cacheBuilder(s, q, human)
	if o.Watch {
		b = b.SingleResourceType()
	} else {
		b = b.Flatten()
	}
	r := b.Do()
	if err := r.Err(); err != nil {
		return nil, err
	}
	infos, err := r.Infos()
	if err != nil {
		return nil, err
	}
	if human {
		if err := decodeTables(infos); err != nil {
			return nil, err
		}
	}
	return infos, nil
}

// listCacheTables lists the Tables of a query: one paged stream per member, in parallel
// (the cache answers each from its own key range), each page decoded once, straight into a
// Table. A resource.Builder decodes a Table three times (into a map, into the Table, each
// row's object again): most of the plugin's time on thousands of rows.
func (o *Options) listCacheTables(s source, q cacheQuery) ([]*resource.Info, error) {
	cfg, err := s.Getter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	streams := s.Cache.Clusters
	if len(streams) == 0 {
		streams = s.Cache.Members
	}
	cfg = rest.CopyConfig(cfg)
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	// A stream per member, all at once: client-go's default of 5 requests a second (a burst
	// of 10) held 30 members' first pages back for 4 s.
	cfg.QPS, cfg.Burst = 50, max(300, 2*len(streams))
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	gvr := q.Mapping.Resource
	path := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		path = "/api/" + gvr.Version
	}
	if q.Mapping.Scope.Name() == meta.RESTScopeNameNamespace && !o.AllNamespaces {
		path += "/namespaces/" + o.Namespace
	}
	path += "/" + gvr.Resource
	fieldSelector := q.fieldSelector(o.FieldSelector)
	parts := make([][]*metav1.Table, len(streams))
	g, ctx := errgroup.WithContext(context.Background())
	for i, cluster := range streams {
		g.Go(func() error {
			cont := ""
			for {
				req := client.Get().AbsPath(path).Param("clusters", cluster)
				if o.LabelSelector != "" {
					req.Param("labelSelector", o.LabelSelector)
				}
				if fieldSelector != "" {
					req.Param("fieldSelector", fieldSelector)
				}
				if o.ChunkSize > 0 {
					req.Param("limit", strconv.FormatInt(o.ChunkSize, 10))
				}
				if cont != "" {
					req.Param("continue", cont)
				}
				tables.AcceptTable(req)
				res := req.Do(ctx)
				// Error, not Raw's: the server's Status, decoded.
				if err := res.Error(); err != nil {
					return err
				}
				raw, _ := res.Raw()
				t, err := tables.DecodeJSON(raw)
				if err != nil {
					return err
				}
				parts[i] = append(parts[i], t)
				if cont = t.Continue; cont == "" {
					return nil
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var infos []*resource.Info
	for _, ts := range parts {
		for _, t := range ts {
			infos = append(infos, &resource.Info{Mapping: q.Mapping, Namespace: o.Namespace, Object: t})
		}
	}
	return infos, nil
}

// objectsOf are the objects of an answer: a Table's rows' (those it carries), a list's
// items, or the object.
func objectsOf(obj runtime.Object) []runtime.Object {
	switch {
	case obj == nil:
		return nil
	case isTable(obj):
		var out []runtime.Object
		for _, row := range obj.(*metav1.Table).Rows {
			out = append(out, row.Object.Object)
		}
		return out
	case meta.IsListType(obj):
		items, _ := meta.ExtractList(obj)
		return items
	}
	return []runtime.Object{obj}
}

func isTable(obj runtime.Object) bool {
	_, ok := obj.(*metav1.Table)
	return ok
}

// countObjects counts the objects of infos (the rows of Tables).
func countObjects(infos []*resource.Info) int {
	n := 0
	for _, info := range infos {
		n += len(objectsOf(info.Object))
	}
	return n
}

// staleWarnings are the warnings about the members whose objects the search cache
// answered as it last saw them (annotation search.fedhq.io/stale): it cannot reach them.
func staleWarnings(results []sourceResult) []string {
	counts := map[string]int{}
	var order []string
	for _, r := range results {
		if r.Err != nil || r.Source.Cache == nil {
			continue
		}
		for _, info := range r.Infos {
			for _, obj := range objectsOf(info.Object) {
				if obj == nil {
					continue
				}
				acc, err := meta.Accessor(obj)
				if err != nil || acc.GetAnnotations()[searchv1alpha1.AnnotationStale] != "true" {
					continue
				}
				c := acc.GetAnnotations()[searchv1alpha1.AnnotationCluster]
				if counts[c] == 0 {
					order = append(order, c)
				}
				counts[c]++
			}
		}
	}
	var out []string
	for _, c := range order {
		out = append(out, fmt.Sprintf("the search cache cannot reach %s: its %d objects shown are as last seen (annotation %s)",
			c, counts[c], searchv1alpha1.AnnotationStale))
	}
	return out
}

// cacheOrMembers is where the member objects of args come from: the search cache, in one
// request per type, for the types it holds for every member queried (synced, not stale, in
// the namespace asked for), the members themselves for the others. The notes say which,
// and why, for -v=1.
func (o *Options) cacheOrMembers(members []source, args []string, registries []searchv1alpha1.ResourceRegistry, regErr error) (sources []source, notes []string) {
	if len(members) == 0 {
		return nil, nil
	}
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Cluster
	}
	if regErr != nil {
		return members, membersNotes(typesOf(args), names, regErr.Error())
	}
	mapper, err := members[0].Getter.ToRESTMapper()
	if err != nil {
		return members, membersNotes(typesOf(args), names, fmt.Sprintf("the discovery of %s failed: %v", names[0], err))
	}
	resources, gaps := map[string]string{}, map[string]string{}
	cached, rest, _ := splitArgs(args, func(typ string) (bool, error) {
		resources[typ], gaps[typ] = o.cacheGap(mapper, typ, registries, names)
		return gaps[typ] == "", nil
	})
	if len(cached) > 0 {
		queries, err := cacheQueries(cached, mapper)
		if err != nil {
			return members, membersNotes(typesOf(args), names, err.Error())
		}
		var clusters []string
		if len(o.Clusters.Clusters) > 0 {
			clusters = names
		}
		var fallback []source
		for _, m := range members {
			m.Args = cached
			fallback = append(fallback, m)
		}
		sources = append(sources, source{Getter: fleet.NewCacheGetter(o.ConfigFlags, members[0].Getter), Args: cached,
			Cache: &cacheSource{Clusters: clusters, Members: names, Queries: queries, Fallback: fallback}})
		for _, typ := range typesOf(cached) {
			notes = append(notes, fmt.Sprintf("reading %s of %s from the search cache", resources[typ], clusterList(names)))
		}
	}
	for _, typ := range typesOf(rest) {
		notes = append(notes, membersNotes([]string{resources[typ]}, names, gaps[typ])...)
	}
	if len(rest) > 0 {
		for _, m := range members {
			m.Args = rest
			sources = append(sources, m)
		}
	}
	return sources, notes
}

// cacheGap is the resource TYPE names and what the search cache lacks to answer the query
// of it in clusters ("" when nothing), from the registries' status.
func (o *Options) cacheGap(mapper meta.RESTMapper, typ string, registries []searchv1alpha1.ResourceRegistry, clusters []string) (resource, gap string) {
	m, err := resolveMapping(mapper, typ)
	if err != nil {
		return typ, fmt.Sprintf("%s does not resolve in %s: %v", typ, clusters[0], err)
	}
	resource = resourceName(m)
	if gr := m.Resource.GroupResource(); searchv1alpha1.MetadataOnly(gr.Group, gr.Resource) {
		return resource, "the search cache keeps only the metadata of " + resource + ", not their data"
	}
	ns := o.Namespace
	if o.AllNamespaces || m.Scope.Name() == meta.RESTScopeNameRoot {
		ns = ""
	}
	return resource, searching.Gaps(registries, m.GroupVersionKind, resource, clusters, ns)
}

// membersNotes say that the members are asked for types, and why.
func membersNotes(types, clusters []string, why string) []string {
	var notes []string
	for _, typ := range types {
		notes = append(notes, fmt.Sprintf("reading %s from the members (%s): %s", typ, clusterList(clusters), why))
	}
	return notes
}

// logNotes logs notes at -v=1.
func logNotes(notes []string) {
	for _, n := range notes {
		klog.V(1).InfoDepth(1, n)
	}
}

// typesOf are the types of TYPE[,TYPE…] [NAME…] or TYPE/NAME…, each once.
func typesOf(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	var types []string
	if strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, _, _ := strings.Cut(a, "/")
			types = append(types, typ)
		}
	} else {
		types = strings.Split(args[0], ",")
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range types {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// maxClustersNamed is how many clusters a message names before "and N more".
const maxClustersNamed = 5

// clusterList names clusters in a message.
func clusterList(clusters []string) string {
	if len(clusters) > maxClustersNamed {
		return fmt.Sprintf("%s and %d more", strings.Join(clusters[:maxClustersNamed], ", "), len(clusters)-maxClustersNamed)
	}
	return strings.Join(clusters, ", ")
}
