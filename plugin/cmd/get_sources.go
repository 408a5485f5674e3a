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

package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/plugin/fleet"
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

// source is where objects come from: the fleet API (templates) or a member.
type source struct {
	// Cluster is the member's name, "" for the fleet.
	Cluster string
	Getter  resource.RESTClientGetter
	Args    []string
}

func (s source) template() bool { return s.Cluster == "" }

// label names the source in warnings.
func (s source) label() string {
	if s.template() {
		return "fleet"
	}
	return "cluster " + s.Cluster
}

// sourceResult is what one source answered: Tables (human output) or items.
type sourceResult struct {
	Source   source
	Infos    []*resource.Info
	NotFound []error
	Err      error
}

// sources decides where to look: the fleet for the template kinds among the types, the
// members for the member-only kinds, or for all kinds with --all-clusters or -C. Unknown
// clusters of -C are returned as failures.
func (o *GetOptions) sources(ctx context.Context) ([]source, []string, error) {
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	fleetCfg, err := fleet.FleetConfig(host)
	if err != nil {
		return nil, nil, err
	}
	templates := fleet.NewConfigGetter(o.ConfigFlags, fleetCfg)
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
	all, err := fleet.Members(ctx, o.ConfigFlags)
	if err != nil {
		return nil, nil, err
	}
	names := all
	var failures []string
	if len(o.Clusters.Clusters) > 0 {
		known := map[string]bool{}
		for _, n := range all {
			known[n] = true
		}
		names = nil
		for _, n := range o.Clusters.Clusters {
			if known[n] {
				names = append(names, n)
			} else {
				failures = append(failures, fmt.Sprintf("cluster %s: no member cluster %q (kubectl get clusters lists them)", n, n))
			}
		}
	}
	for _, name := range names {
		cfg, err := fleet.MemberConfig(host, name)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, source{Cluster: name, Getter: fleet.NewConfigGetter(o.ConfigFlags, cfg), Args: memberArgs})
	}
	return sources, failures, nil
}

// splitArgs splits TYPE[,TYPE…] [NAME…] or TYPE/NAME… into the arguments for the fleet (the
// template kinds) and for the members (the other kinds); either may be nil.
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
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return schema.GroupResource{}, err
		}
		return m.Resource.GroupResource(), nil
	}
	fullKind, gk := schema.ParseKindArg(typ)
	if fullKind == nil {
		fullKind = ptr.To(gk.WithVersion(""))
	}
	if !fullKind.Empty() {
		if m, err := mapper.RESTMapping(fullKind.GroupKind(), fullKind.Version); err == nil {
			return m.Resource.GroupResource(), nil
		}
	}
	if resErr == nil {
		resErr = &meta.NoResourceMatchError{PartialResource: gr.WithVersion("")}
	}
	return schema.GroupResource{}, resErr
}

// query lists or gets the objects of one source: Tables for human output, items otherwise.
func (o *GetOptions) query(s source, human bool) sourceResult {
	res := sourceResult{Source: s}
	b := resource.NewBuilder(s.Getter).
		Unstructured().
		NamespaceParam(o.Namespace).DefaultNamespace().AllNamespaces(o.AllNamespaces).
		LabelSelectorParam(o.LabelSelector).
		FieldSelectorParam(o.FieldSelector).
		RequestChunksOf(o.ChunkSize).
		ResourceTypeOrNameArgs(true, s.Args...).
		ContinueOnError()
	if o.Watch {
		// Whole lists, whose resourceVersion the watch starts from.
		b = b.SingleResourceType()
	} else {
		b = b.Flatten()
	}
	if human {
		b = b.TransformRequests(tables.AcceptTable)
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
	for _, info := range infos {
		if human {
			t, err := tables.Decode(info.Object)
			if err != nil {
				res.Err = err
				return res
			}
			info.Object = t
		}
	}
	res.Infos = infos
	return res
}

func flattenErrors(err error) []error {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		return utilerrors.Flatten(agg).Errors()
	}
	return []error{err}
}
