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
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/searching"
	"github.com/fedhq/fed/plugin/tables"
)

// memberOnlyResources are the kinds that members make for themselves and fed does not
// propagate, so that `kubectl fed get` queries the members for them by default even though
// the fleet API serves them: pods, nodes, events, endpoints and endpoint slices, replica
// sets, controller revisions and leases.
var memberOnlyResources = map[schema.GroupResource]bool{
	{Resource: "pods"}:                                      true,
	{Resource: "nodes"}:                                     true,
	{Resource: "events"}:                                    true,
	{Group: "events.k8s.io", Resource: "events"}:            true,
	{Resource: "endpoints"}:                                 true,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}: true,
	{Group: "apps", Resource: "replicasets"}:                true,
	{Group: "apps", Resource: "controllerrevisions"}:        true,
	{Group: "coordination.k8s.io", Resource: "leases"}:      true,
}

// source is where objects come from: the fleet API (templates), a member, or the search
// cache for several members.
type source struct {
	// Cluster is the member's name, "" for the fleet and the cache.
	Cluster string
	Getter  resource.RESTClientGetter
	Args    []string
	// Cache is set for the search cache, whose one answer holds the objects of members.
	Cache *cacheSource
}

func (s source) template() bool { return s.Cluster == "" && s.Cache == nil }

// label names the source in warnings.
func (s source) label() string {
	switch {
	case s.Cache != nil:
		return "the search cache"
	case s.template():
		return "fleet"
	}
	return "cluster " + s.Cluster
}

// clusterOf is the member an object the source answered comes from, "" for a template.
func (s source) clusterOf(obj metav1.Object) string {
	if s.Cache != nil {
		return obj.GetAnnotations()[searchv1alpha1.AnnotationCluster]
	}
	return s.Cluster
}

// sourceResult is what one source answered: Tables (human output) or items.
type sourceResult struct {
	Source   source
	Infos    []*resource.Info
	NotFound []error
	Err      error
}

// sources decides where to look: the fleet for the template kinds among the types, the
// members for the member-only kinds, or for all kinds with --all-clusters or -C; and for
// the members, the search cache where it holds their objects. Unknown clusters of -C are
// returned as failures.
func (o *Options) sources(ctx context.Context, cache bool) ([]source, []string, error) {
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	fleetCfg, err := fleet.FleetConfig(host)
	if err != nil {
		return nil, nil, err
	}
	templates := fleet.NewConfigGetter(o.ConfigFlags, fleetCfg)
	if mayUse, err := fleet.MayUseFleet(ctx, host); err == nil && !mayUse {
		// Without the fleet's gate, its discovery fails, as many times as kinds are resolved:
		// the members alone are read, and the host's refusal of them, if any, is the answer.
		klog.V(1).Infof("you may not read the fleet (get fleets/proxy default in %s): reading the members only", federationv1alpha1.GroupName)
		return o.memberSources(ctx, host, o.Args, nil, cache)
	}
	mapper, err := templates.ToRESTMapper()
	if err != nil {
		return nil, nil, err
	}
	templateArgs, memberArgs, err := splitArgs(o.Args, func(typ string) (bool, error) {
		gr, err := resolveResource(mapper, typ)
		if meta.IsNoMatchError(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return !memberOnlyResources[gr], nil
	})
	if err != nil {
		return nil, nil, err
	}
	if o.Clusters.Selected() {
		memberArgs = o.Args
	}
	var sources []source
	if len(templateArgs) > 0 {
		sources = append(sources, source{Getter: templates, Args: templateArgs})
	}
	if len(memberArgs) == 0 {
		return sources, nil, nil
	}
	return o.memberSources(ctx, host, memberArgs, sources, cache)
}

// memberSources adds to sources those of the members for memberArgs.
func (o *Options) memberSources(ctx context.Context, host *rest.Config, memberArgs []string, sources []source, cache bool) ([]source, []string, error) {
	st, err := readHost(ctx, o.ConfigFlags, cache)
	if err != nil {
		return nil, nil, err
	}
	names, failures := selectMembers(st.Members, o.Clusters.Clusters)
	var members []source
	for _, name := range names {
		cfg, err := fleet.MemberConfig(host, name)
		if err != nil {
			return nil, nil, err
		}
		members = append(members, source{Cluster: name, Getter: fleet.NewConfigGetter(o.ConfigFlags, cfg), Args: memberArgs})
	}
	if !cache {
		logNotes(membersNotes(typesOf(memberArgs), names, "--cache=false"))
		return append(sources, members...), failures, nil
	}
	fromMembers, notes := o.cacheOrMembers(members, memberArgs, st.Registries, st.RegistriesErr)
	logNotes(notes)
	return append(sources, fromMembers...), failures, nil
}

// hostState is what kubectl fed get and search read of the host before they query: the
// joined members and the ResourceRegistries, or why the registries could not be read.
type hostState struct {
	Members       []string
	Registries    []searchv1alpha1.ResourceRegistry
	RegistriesErr error
}

// readHost lists the joined members and, with registries, the ResourceRegistries, in
// parallel. Only the members' list failing is an error.
func readHost(ctx context.Context, configFlags *genericclioptions.ConfigFlags, registries bool) (hostState, error) {
	st := hostState{RegistriesErr: errors.New("not read")}
	var wg sync.WaitGroup
	if registries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fed, err := fleet.FedClient(configFlags)
			if err != nil {
				st.RegistriesErr = err
				return
			}
			st.Registries, st.RegistriesErr = searching.Registries(ctx, fed)
		}()
	}
	all, err := fleet.Members(ctx, configFlags)
	wg.Wait()
	st.Members = all
	return st, err
}

// selectMembers is the members -C names among the joined ones (all of them without -C),
// and a failure for each name that is not a member.
func selectMembers(all, requested []string) (names []string, failures []string) {
	if len(requested) == 0 {
		return all, nil
	}
	known := map[string]bool{}
	for _, n := range all {
		known[n] = true
	}
	for _, n := range requested {
		if known[n] {
			names = append(names, n)
		} else {
			failures = append(failures, fmt.Sprintf("cluster %s: no member cluster %q (kubectl get clusters lists them)", n, n))
		}
	}
	return names, failures
}

// splitArgs splits TYPE[,TYPE…] [NAME…] or TYPE/NAME… into the arguments of the types
// isTemplate holds for and those of the others (the fleet's template kinds and the
// members', or the kinds the search cache holds and the others); either may be nil.
func splitArgs(args []string, isTemplate func(typ string) (bool, error)) (templateArgs, memberArgs []string, err error) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	if strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, _, _ := strings.Cut(a, "/")
			t, err := isTemplate(typ)
			if err != nil {
				return nil, nil, err
			}
			if t {
				templateArgs = append(templateArgs, a)
			} else {
				memberArgs = append(memberArgs, a)
			}
		}
		return templateArgs, memberArgs, nil
	}
	var tmpl, member []string
	for _, typ := range strings.Split(args[0], ",") {
		if typ == "" {
			continue
		}
		t, err := isTemplate(typ)
		if err != nil {
			return nil, nil, err
		}
		if t {
			tmpl = append(tmpl, typ)
		} else {
			member = append(member, typ)
		}
	}
	if len(tmpl) > 0 {
		templateArgs = append([]string{strings.Join(tmpl, ",")}, args[1:]...)
	}
	if len(member) > 0 {
		memberArgs = append([]string{strings.Join(member, ",")}, args[1:]...)
	}
	return templateArgs, memberArgs, nil
}

// resolveResource maps a TYPE of the command line (resource, short name, kind, with or
// without version and group) to its group and resource, as resource.Builder does.
func resolveResource(mapper meta.RESTMapper, typ string) (schema.GroupResource, error) {
	m, err := resolveMapping(mapper, typ)
	if err != nil {
		return schema.GroupResource{}, err
	}
	return m.Resource.GroupResource(), nil
}

// resolveMapping maps a TYPE of the command line to its mapping, as resource.Builder does.
func resolveMapping(mapper meta.RESTMapper, typ string) (*meta.RESTMapping, error) {
	full, gr := schema.ParseResourceArg(typ)
	var gvk schema.GroupVersionKind
	if full != nil {
		gvk, _ = mapper.KindFor(*full)
	}
	var resErr error
	if gvk.Empty() {
		gvk, resErr = mapper.KindFor(gr.WithVersion(""))
	}
	if !gvk.Empty() {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	fullKind, gk := schema.ParseKindArg(typ)
	if fullKind == nil {
		fullKind = ptr.To(gk.WithVersion(""))
	}
	if !fullKind.Empty() {
		if m, err := mapper.RESTMapping(fullKind.GroupKind(), fullKind.Version); err == nil {
			return m, nil
		}
	}
	if resErr == nil {
		resErr = &meta.NoResourceMatchError{PartialResource: gr.WithVersion("")}
	}
	return nil, resErr
}

// newBuilder is a resource.Builder of the objects args name, with the options' namespace,
// selectors (fieldSelector as given) and chunks.
func (o *Options) newBuilder(getter resource.RESTClientGetter, args []string, fieldSelector string, transforms ...resource.RequestTransform) *resource.Builder {
	return resource.NewBuilder(getter).
		Unstructured().
		NamespaceParam(o.Namespace).DefaultNamespace().AllNamespaces(o.AllNamespaces).
		LabelSelectorParam(o.LabelSelector).
		FieldSelectorParam(fieldSelector).
		RequestChunksOf(o.ChunkSize).
		ResourceTypeOrNameArgs(true, args...).
		TransformRequests(transforms...)
}

// query lists or gets the objects of one source: Tables for human output, items otherwise.
func (o *Options) query(s source, human bool) sourceResult {
	if s.Cache != nil {
		return o.queryCache(s, human)
	}
	res := sourceResult{Source: s}
	var transforms []resource.RequestTransform
	if human {
		transforms = append(transforms, tables.AcceptTable)
	}
	b := o.newBuilder(s.Getter, s.Args, o.FieldSelector, transforms...).ContinueOnError()
	if o.Watch {
		// Whole lists, whose resourceVersion the watch starts from.
		b = b.SingleResourceType()
	} else {
		b = b.Flatten()
	}
	r := b.Do()
	if err := r.Err(); err != nil {
		res.Err = err
		return res
	}
	infos, err := r.Infos()
	if err != nil {
		var rest []error
		for _, e := range flattenErrors(err) {
			if apierrors.IsNotFound(e) {
				res.NotFound = append(res.NotFound, e)
			} else {
				rest = append(rest, e)
			}
		}
		if len(rest) > 0 {
			res.Err = utilerrors.Reduce(utilerrors.NewAggregate(rest))
			return res
		}
	}
	if human {
		if res.Err = decodeTables(infos); res.Err != nil {
			return res
		}
	}
	res.Infos = infos
	return res
}

// decodeTables turns the servers' answers into Tables.
func decodeTables(infos []*resource.Info) error {
	for _, info := range infos {
		t, err := tables.Decode(info.Object)
		if err != nil {
			return err
		}
		info.Object = t
	}
	return nil
}

func flattenErrors(err error) []error {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		return utilerrors.Flatten(agg).Errors()
	}
	return []error{err}
}
