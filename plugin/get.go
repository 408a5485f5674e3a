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

package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	diskcached "k8s.io/client-go/discovery/cached/disk"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// LabelManagedBy, with the value "true", marks an object in a member cluster as managed by
// fed (propagation sets it); `kubectl fed get` shows it as ADOPTION Y.
const LabelManagedBy = federationv1alpha1.LabelManaged

// templateCluster is the CLUSTER of a template, which lives in the fleet API, not a member.
const templateCluster = "-"

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

// GetOptions are the inputs of `kubectl fed get`.
type GetOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *kubectlget.PrintFlags
	Clusters    clusterFlags

	LabelSelector  string
	FieldSelector  string
	AllNamespaces  bool
	Watch          bool
	WatchOnly      bool
	IgnoreNotFound bool
	ChunkSize      int64

	Namespace         string
	ExplicitNamespace bool
	Args              []string
}

// NewCmdGet is `kubectl fed get TYPE [NAME...]`.
func NewCmdGet(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &GetOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: kubectlget.NewGetPrintFlags(), ChunkSize: 500}
	// Sorting would need the full objects of every cluster; the merged table is sorted by
	// namespace, name and cluster instead.
	o.PrintFlags.HumanReadableFlags.SortBy = nil
	cmd := &cobra.Command{
		Use:   "get TYPE[.VERSION][.GROUP] [NAME...] [flags]",
		Short: "Display templates of the fleet and objects of member clusters",
		Long: fmt.Sprintf(`Display templates of the fleet API and the objects of member clusters in one table,
with a CLUSTER column after NAME (%q for a template) and an ADOPTION column: Y when the
member object is managed by fed (label %s=true), N when it is not, %q for a template.

For a kind that has templates, kubectl fed get shows the templates; --all-clusters or
-C/--clusters adds the objects of those members. For a kind that has no template, it
queries the members only, every joined member unless -C says which: a kind the fleet API
does not serve, or one the members make for themselves (pods, nodes, events, endpoints,
endpointslices, replicasets, controllerrevisions, leases).

The clusters are queried in parallel. The output formats are kubectl's; with -o json, yaml,
name, jsonpath, go-template or custom-columns the items of a member carry the annotation
%s naming their cluster (templates carry none).

A cluster that fails is reported as "Warning: cluster NAME: ..." on standard error and the
others are still shown; the exit code is then 1, as kubectl get exits 1 when one of the
objects it was asked for could not be read. A NAME found in some clusters only is not an
error; found nowhere, it is NotFound.`, templateCluster, LabelManagedBy, templateCluster, AnnotationCluster),
		Example: `  # Deployment templates of the current namespace
  kubectl fed get deployments

  # The templates and the Deployments of every member, in all namespaces
  kubectl fed get deploy --all-clusters -A

  # The pods of member1 and member2, as YAML
  kubectl fed get pods -C member1,member2 -o yaml

  # Watch the pods of every member
  kubectl fed get pods -w`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return usageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	o.PrintFlags.AddFlags(cmd)
	o.Clusters.addFlags(cmd, "Show the objects of every member cluster too.")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	cmd.Flags().StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List the requested objects across all namespaces.")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "After listing the requested objects, watch for changes in every cluster queried.")
	cmd.Flags().BoolVar(&o.WatchOnly, "watch-only", false, "Watch for changes to the requested objects, without listing them first.")
	cmd.Flags().BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If the requested object does not exist the command will return exit code 0.")
	cmd.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "Return large lists in chunks rather than all at once. Pass 0 to disable.")
	return cmd
}

// Complete reads the namespace of the kubeconfig.
func (o *GetOptions) Complete(args []string) error {
	o.Args = args
	var err error
	o.Namespace, o.ExplicitNamespace, err = o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	if o.AllNamespaces {
		o.ExplicitNamespace = false
	}
	if o.WatchOnly {
		o.Watch = true
	}
	return nil
}

// Validate needs a TYPE and, with -w, one kind.
func (o *GetOptions) Validate() error {
	if len(o.Args) == 0 {
		return fmt.Errorf("you must specify the type of resource to get")
	}
	if _, err := o.PrintFlags.ToPrinter(); err != nil {
		return err
	}
	if o.Watch && (strings.Contains(o.Args[0], ",") || strings.Contains(o.Args[0], "/") && len(o.Args) > 1) {
		return fmt.Errorf("watch is only supported on individual resources and resource collections")
	}
	return nil
}

// humanReadable tells whether the output is a table (the default or -o wide).
func (o *GetOptions) humanReadable() bool {
	f := *o.PrintFlags.OutputFormat
	tmpl := o.PrintFlags.TemplateFlags.TemplateArgument
	return (f == "" || f == "wide") && (tmpl == nil || *tmpl == "")
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

// Run queries the sources in parallel and prints what they answer.
func (o *GetOptions) Run(ctx context.Context) error {
	sources, failures, err := o.sources(ctx)
	if err != nil {
		return err
	}
	human := o.humanReadable()
	results := make([]sourceResult, len(sources))
	var wg sync.WaitGroup
	for i := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = o.query(sources[i], human)
		}()
	}
	wg.Wait()

	var ok int
	var failed []sourceResult
	var notFound []error
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, r)
			continue
		}
		ok++
		notFound = append(notFound, r.NotFound...)
	}
	// The same error everywhere (an unknown type, say) is the command's error.
	if ok == 0 && len(failures) == 0 && len(failed) > 0 {
		same := true
		for _, r := range failed {
			same = same && r.Err.Error() == failed[0].Err.Error()
		}
		if same {
			return failed[0].Err
		}
	}
	for _, f := range failures {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", f)
	}
	for _, r := range failed {
		fmt.Fprintf(o.ErrOut, "Warning: %s: %v\n", r.Source.label(), r.Err)
	}

	if o.Watch {
		if err := o.watch(ctx, results, human); err != nil {
			return err
		}
		return clustersFailed(failures, failed)
	}
	{
		var printed bool
		if human {
			groups, err := mergeResults(results)
			if err != nil {
				return err
			}
			printed, err = o.printTables(o.Out, groups)
			if err != nil {
				return err
			}
		} else {
			printed, err = o.printObjects(o.Out, results)
			if err != nil {
				return err
			}
		}
		found := printed || countInfos(results) > 0
		if !found && len(notFound) > 0 && !o.IgnoreNotFound {
			// Nowhere found: kubectl's NotFound, once per name.
			errs := notFoundErrors(notFound)
			for _, err := range errs[:len(errs)-1] {
				fmt.Fprintln(o.ErrOut, ErrorMessage(err))
			}
			return errs[len(errs)-1]
		}
		if !found && len(notFound) == 0 && len(failed)+len(failures) == 0 && human {
			if o.AllNamespaces || !namespacedResults(results) {
				fmt.Fprintln(o.ErrOut, "No resources found")
			} else {
				fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.Namespace)
			}
		}
	}
	return clustersFailed(failures, failed)
}

// clustersFailed is the command's error when some clusters failed, nil otherwise.
func clustersFailed(failures []string, failed []sourceResult) error {
	var names []string
	for _, f := range failures {
		names = append(names, strings.SplitN(strings.TrimPrefix(f, "cluster "), ":", 2)[0])
	}
	for _, r := range failed {
		if r.Source.template() {
			names = append(names, "fleet")
		} else {
			names = append(names, r.Source.Cluster)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("clusters not shown (see the warnings above): %s", strings.Join(names, ", "))
}

func countInfos(results []sourceResult) int {
	n := 0
	for _, r := range results {
		if r.Err == nil {
			n += len(r.Infos)
		}
	}
	n -= countEmptyTables(results)
	return n
}

// countEmptyTables counts the Tables without rows, which found nothing.
func countEmptyTables(results []sourceResult) int {
	n := 0
	for _, r := range results {
		for _, info := range r.Infos {
			if t, ok := info.Object.(*metav1.Table); ok && len(t.Rows) == 0 {
				n++
			}
		}
	}
	return n
}

func namespacedResults(results []sourceResult) bool {
	for _, r := range results {
		for _, info := range r.Infos {
			if info.Mapping != nil && info.Mapping.Scope.Name() == meta.RESTScopeNameRoot {
				return false
			}
		}
	}
	return true
}

// notFoundErrors are the distinct NotFound errors about the objects asked for; those about
// a namespace missing in some cluster only when there is no other.
func notFoundErrors(errs []error) []error {
	var objects []error
	for _, err := range errs {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			if d := status.Status().Details; d != nil && d.Kind == "namespaces" {
				continue
			}
		}
		objects = append(objects, err)
	}
	if len(objects) == 0 {
		objects = errs
	}
	return dedupErrors(objects)
}

func dedupErrors(errs []error) []error {
	seen := map[string]bool{}
	var out []error
	for _, err := range errs {
		if !seen[err.Error()] {
			seen[err.Error()] = true
			out = append(out, err)
		}
	}
	return out
}

// sources decides where to look: the fleet for the template kinds among the types, the
// members for the member-only kinds, or for all kinds with --all-clusters or -C. Unknown
// clusters of -C are returned as failures.
func (o *GetOptions) sources(ctx context.Context) ([]source, []string, error) {
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	fleetCfg, err := fleetConfig(host)
	if err != nil {
		return nil, nil, err
	}
	fleet := newSourceGetter(o.ConfigFlags, fleetCfg)
	mapper, err := fleet.ToRESTMapper()
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
	if o.Clusters.selected() {
		memberArgs = o.Args
	}
	var sources []source
	if len(templateArgs) > 0 {
		sources = append(sources, source{Getter: fleet, Args: templateArgs})
	}
	if len(memberArgs) == 0 {
		return sources, nil, nil
	}
	all, err := (&clusterFlags{all: true}).resolve(ctx, o.ConfigFlags, true)
	if err != nil {
		return nil, nil, err
	}
	names := all
	var failures []string
	if len(o.Clusters.clusters) > 0 {
		known := map[string]bool{}
		for _, n := range all {
			known[n] = true
		}
		names = nil
		for _, n := range o.Clusters.clusters {
			if known[n] {
				names = append(names, n)
			} else {
				failures = append(failures, fmt.Sprintf("cluster %s: no member cluster %q (kubectl get clusters lists them)", n, n))
			}
		}
	}
	for _, name := range names {
		cfg, err := memberConfig(host, name)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, source{Cluster: name, Getter: newSourceGetter(o.ConfigFlags, cfg), Args: memberArgs})
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
		k := gk.WithVersion("")
		fullKind = &k
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
		b = b.TransformRequests(tableRequest)
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
			t, err := decodeTable(info.Object)
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

// tableRequest asks the server for a Table, as kubectl get does.
func tableRequest(req *rest.Request) {
	req.SetHeader("Accept", strings.Join([]string{
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1.SchemeGroupVersion.Version, metav1.GroupName),
		fmt.Sprintf("application/json;as=Table;v=%s;g=%s", metav1beta1.SchemeGroupVersion.Version, metav1beta1.GroupName),
		"application/json",
	}, ","))
}

// decodeTable turns a server's answer into a Table whose rows carry their objects
// (metadata only, by default). An answer that is no Table gets one with the names.
func decodeTable(obj runtime.Object) (*metav1.Table, error) {
	if t, ok := obj.(*metav1.Table); ok {
		return t, nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	gvk := obj.GetObjectKind().GroupVersionKind()
	if ok && gvk.Kind == "Table" && (gvk.GroupVersion() == metav1.SchemeGroupVersion || gvk.GroupVersion() == metav1beta1.SchemeGroupVersion) {
		t := &metav1.Table{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, t); err != nil {
			return nil, err
		}
		for i := range t.Rows {
			row := &t.Rows[i]
			if row.Object.Raw == nil || row.Object.Object != nil {
				continue
			}
			o, err := runtime.Decode(unstructured.UnstructuredJSONScheme, row.Object.Raw)
			if err != nil {
				return nil, err
			}
			row.Object.Object = o
		}
		return t, nil
	}
	// No Table from this server: the objects' names and ages.
	var items []runtime.Object
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
	} else {
		items = []runtime.Object{obj}
	}
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Age", Type: "string"},
	}}
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{m.GetName(), translateAge(m.GetCreationTimestamp())},
			Object: runtime.RawExtension{Object: item},
		})
	}
	return t, nil
}

func translateAge(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

// tableGroup is the merged table of one kind.
type tableGroup struct {
	Mapping *meta.RESTMapping
	Table   *metav1.Table
	// Merger maps the rows of each source into Table's columns.
	Merger *tableMerger
}

// mergeResults merges the Tables of every source, one table per kind in the order the
// kinds first appear.
func mergeResults(results []sourceResult) ([]*tableGroup, error) {
	type part struct {
		template bool
		cluster  string
		order    int
		table    *metav1.Table
	}
	var order []schema.GroupResource
	mappings := map[schema.GroupResource]*meta.RESTMapping{}
	parts := map[schema.GroupResource][]part{}
	for i, r := range results {
		if r.Err != nil {
			continue
		}
		for _, info := range r.Infos {
			t, ok := info.Object.(*metav1.Table)
			if !ok {
				return nil, fmt.Errorf("%s: not a Table: %T", r.Source.label(), info.Object)
			}
			gr := info.Mapping.Resource.GroupResource()
			if _, seen := mappings[gr]; !seen {
				order = append(order, gr)
				mappings[gr] = info.Mapping
			}
			parts[gr] = append(parts[gr], part{r.Source.template(), r.Source.Cluster, i, t})
		}
	}
	var groups []*tableGroup
	for _, gr := range order {
		var tables []*metav1.Table
		for _, p := range parts[gr] {
			tables = append(tables, p.table)
		}
		m := newTableMerger(tables)
		merged := &metav1.Table{ColumnDefinitions: m.Columns}
		type keyed struct {
			ns, name string
			order    int
			row      metav1.TableRow
		}
		var rows []keyed
		for _, p := range parts[gr] {
			for _, row := range p.table.Rows {
				ns, name := rowKey(p.table, row)
				rows = append(rows, keyed{ns, name, p.order, m.Row(p.cluster, p.table.ColumnDefinitions, row)})
			}
		}
		sort.SliceStable(rows, func(i, j int) bool {
			a, b := rows[i], rows[j]
			if a.ns != b.ns {
				return a.ns < b.ns
			}
			if a.name != b.name {
				return a.name < b.name
			}
			return a.order < b.order
		})
		for _, r := range rows {
			merged.Rows = append(merged.Rows, r.row)
		}
		groups = append(groups, &tableGroup{Mapping: mappings[gr], Table: merged, Merger: m})
	}
	return groups, nil
}

// rowKey is the namespace and name of a row, from its object or else its name cell.
func rowKey(t *metav1.Table, row metav1.TableRow) (string, string) {
	if row.Object.Object != nil {
		if m, err := meta.Accessor(row.Object.Object); err == nil {
			return m.GetNamespace(), m.GetName()
		}
	}
	if i := nameColumn(t.ColumnDefinitions); i >= 0 && i < len(row.Cells) {
		return "", fmt.Sprint(row.Cells[i])
	}
	return "", ""
}

// nameColumn is the index of the name column, -1 if none.
func nameColumn(cols []metav1.TableColumnDefinition) int {
	for i, c := range cols {
		if c.Format == "name" {
			return i
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, "name") {
			return i
		}
	}
	return -1
}

// tableMerger holds the columns of a merged table: the union of the sources' columns, by
// name, in their order, with CLUSTER after the name column and ADOPTION last.
type tableMerger struct {
	Columns []metav1.TableColumnDefinition
	index   map[string]int
	cluster int
}

// newTableMerger merges the columns of tables.
func newTableMerger(tables []*metav1.Table) *tableMerger {
	var cols []metav1.TableColumnDefinition
	pos := map[string]int{}
	for _, t := range tables {
		prev := -1 // position in cols of this table's previous column
		for _, c := range t.ColumnDefinitions {
			if p, ok := pos[c.Name]; ok {
				prev = p
				continue
			}
			at := prev + 1
			cols = append(cols[:at], append([]metav1.TableColumnDefinition{c}, cols[at:]...)...)
			for n, p := range pos {
				if p >= at {
					pos[n] = p + 1
				}
			}
			pos[c.Name] = at
			prev = at
		}
	}
	name := nameColumn(cols)
	if name < 0 {
		cols = append([]metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}}, cols...)
		name = 0
	}
	m := &tableMerger{cluster: name + 1}
	m.Columns = append(m.Columns, cols[:name+1]...)
	m.Columns = append(m.Columns, metav1.TableColumnDefinition{Name: "Cluster", Type: "string",
		Description: "The member cluster of the object, - for a template of the fleet."})
	m.Columns = append(m.Columns, cols[name+1:]...)
	m.Columns = append(m.Columns, metav1.TableColumnDefinition{Name: "Adoption", Type: "string",
		Description: "Y when fed manages the member object, N when it does not, - for a template."})
	m.index = map[string]int{}
	for i, c := range m.Columns[:len(m.Columns)-1] {
		if i != m.cluster {
			m.index[c.Name] = i
		}
	}
	return m
}

// Row maps a row of a source (cluster "" for the fleet) whose table has cols into the
// merged columns. Cells of columns the source lacks are empty.
func (m *tableMerger) Row(cluster string, cols []metav1.TableColumnDefinition, row metav1.TableRow) metav1.TableRow {
	cells := make([]any, len(m.Columns))
	for i := range cells {
		cells[i] = ""
	}
	nameIdx := nameColumn(cols)
	for i, c := range cols {
		if i >= len(row.Cells) {
			break
		}
		if j, ok := m.index[c.Name]; ok {
			cells[j] = row.Cells[i]
		}
	}
	if nameIdx < 0 && row.Object.Object != nil {
		if acc, err := meta.Accessor(row.Object.Object); err == nil {
			cells[m.cluster-1] = acc.GetName()
		}
	}
	adoption := templateCluster
	if cluster == "" {
		cells[m.cluster] = templateCluster
	} else {
		cells[m.cluster] = cluster
		adoption = "N"
		if row.Object.Object != nil {
			if acc, err := meta.Accessor(row.Object.Object); err == nil && acc.GetLabels()[LabelManagedBy] == "true" {
				adoption = "Y"
			}
		}
	}
	cells[len(cells)-1] = adoption
	return metav1.TableRow{Cells: cells, Conditions: row.Conditions, Object: row.Object}
}

// printTables prints the merged tables with kubectl's table printer, a blank line between
// kinds, and tells whether it printed a row.
func (o *GetOptions) printTables(out io.Writer, groups []*tableGroup) (bool, error) {
	withKind := len(groups) > 1
	w := printers.GetNewTabWriter(out)
	defer w.Flush()
	printed := false
	for _, g := range groups {
		if len(g.Table.Rows) == 0 {
			continue
		}
		p, err := o.tablePrinter(g.Mapping, withKind)
		if err != nil {
			return printed, err
		}
		if printed {
			w.Flush()
			w.SetRememberedWidths(nil)
			if !*o.PrintFlags.NoHeaders {
				fmt.Fprintln(w)
			}
		}
		if err := p.PrintObj(g.Table, w); err != nil {
			return printed, err
		}
		printed = true
	}
	return printed, nil
}

// tablePrinter is kubectl's table printer for a kind.
func (o *GetOptions) tablePrinter(mapping *meta.RESTMapping, withKind bool) (printers.ResourcePrinter, error) {
	pf := o.PrintFlags.Copy()
	human := *pf.HumanReadableFlags
	pf.HumanReadableFlags = &human
	if mapping != nil {
		pf.SetKind(mapping.GroupVersionKind.GroupKind())
	}
	if o.AllNamespaces && (mapping == nil || mapping.Scope.Name() != meta.RESTScopeNameRoot) {
		if err := pf.EnsureWithNamespace(); err != nil {
			return nil, err
		}
	}
	if withKind {
		if err := pf.EnsureWithKind(); err != nil {
			return nil, err
		}
	}
	return pf.ToPrinter()
}

// memberItems returns the items of the results, each member item annotated with its
// cluster, sorted by namespace, name and cluster (templates first).
func memberItems(results []sourceResult) ([]*unstructured.Unstructured, error) {
	type keyed struct {
		ns, name string
		order    int
		obj      *unstructured.Unstructured
	}
	var items []keyed
	for i, r := range results {
		if r.Err != nil {
			continue
		}
		for _, info := range r.Infos {
			var objs []runtime.Object
			if meta.IsListType(info.Object) {
				var err error
				if objs, err = meta.ExtractList(info.Object); err != nil {
					return nil, err
				}
			} else {
				objs = []runtime.Object{info.Object}
			}
			for _, obj := range objs {
				u, ok := obj.(*unstructured.Unstructured)
				if !ok {
					m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
					if err != nil {
						return nil, err
					}
					u = &unstructured.Unstructured{Object: m}
				}
				annotate(u, r.Source.Cluster)
				items = append(items, keyed{u.GetNamespace(), u.GetName(), i, u})
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.order < b.order
	})
	out := make([]*unstructured.Unstructured, len(items))
	for i, k := range items {
		out[i] = k.obj
	}
	return out, nil
}

// annotate sets AnnotationCluster on an object of a member; a template gets none.
func annotate(u *unstructured.Unstructured, cluster string) {
	if cluster == "" {
		return
	}
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[AnnotationCluster] = cluster
	u.SetAnnotations(a)
}

// printObjects prints the items of every source as one v1 List, as kubectl get -o does, or
// the single object asked for by name.
func (o *GetOptions) printObjects(out io.Writer, results []sourceResult) (bool, error) {
	items, err := memberItems(results)
	if err != nil {
		return false, err
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return false, err
	}
	if len(items) == 0 && o.IgnoreNotFound {
		return false, nil
	}
	if len(items) == 1 && o.singleItem() {
		return true, p.PrintObj(items[0], out)
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": ""},
	}}
	for _, u := range items {
		list.Items = append(list.Items, *u)
	}
	return len(items) > 0, p.PrintObj(list, out)
}

// singleItem tells whether the arguments name one object (TYPE NAME or TYPE/NAME), which
// kubectl prints alone rather than in a List.
func (o *GetOptions) singleItem() bool {
	if strings.Contains(o.Args[0], "/") {
		return len(o.Args) == 1
	}
	return len(o.Args) == 2 && !strings.Contains(o.Args[0], ",")
}

// watch watches every source that answered and prints the changes as they come.
func (o *GetOptions) watch(ctx context.Context, results []sourceResult, human bool) error {
	var mu sync.Mutex
	w := printers.GetNewTabWriter(o.Out)
	var printTable func(cluster string, cols []metav1.TableColumnDefinition, t *metav1.Table) error
	var printer printers.ResourcePrinter
	if human {
		groups, err := mergeResults(results)
		if err != nil {
			return err
		}
		if len(groups) == 0 {
			return nil
		}
		g := groups[0]
		if printer, err = o.tablePrinter(g.Mapping, false); err != nil {
			return err
		}
		if !o.WatchOnly {
			if err := printer.PrintObj(g.Table, w); err != nil {
				return err
			}
			w.Flush()
		}
		printTable = func(cluster string, cols []metav1.TableColumnDefinition, t *metav1.Table) error {
			if len(t.ColumnDefinitions) > 0 {
				cols = t.ColumnDefinitions
			}
			merged := &metav1.Table{ColumnDefinitions: g.Merger.Columns}
			for _, row := range t.Rows {
				merged.Rows = append(merged.Rows, g.Merger.Row(cluster, cols, row))
			}
			return printer.PrintObj(merged, w)
		}
	} else {
		var err error
		if printer, err = o.PrintFlags.ToPrinter(); err != nil {
			return err
		}
		if !o.WatchOnly {
			items, err := memberItems(results)
			if err != nil {
				return err
			}
			for _, u := range items {
				if err := printer.PrintObj(u, w); err != nil {
					return err
				}
			}
			w.Flush()
		}
	}

	var wg sync.WaitGroup
	errs := make([]error, len(results))
	for i, r := range results {
		if r.Err != nil || len(r.Infos) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = o.watchSource(ctx, r, human, func(obj runtime.Object) error {
				mu.Lock()
				defer mu.Unlock()
				defer w.Flush()
				if human {
					t, err := decodeTable(obj)
					if err != nil {
						return err
					}
					var cols []metav1.TableColumnDefinition
					if first, ok := r.Infos[0].Object.(*metav1.Table); ok {
						cols = first.ColumnDefinitions
					}
					return printTable(r.Source.Cluster, cols, t)
				}
				u, ok := obj.(*unstructured.Unstructured)
				if ok {
					annotate(u, r.Source.Cluster)
				}
				return printer.PrintObj(obj, w)
			})
			if errs[i] != nil {
				mu.Lock()
				fmt.Fprintf(o.ErrOut, "Warning: %s: %v\n", r.Source.label(), errs[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var names []string
	for i, err := range errs {
		if err != nil {
			names = append(names, results[i].Source.label())
		}
	}
	if len(names) > 0 {
		return fmt.Errorf("watch ended with errors: %s", strings.Join(names, ", "))
	}
	return nil
}

// watchSource watches one source from the resourceVersion of its list.
func (o *GetOptions) watchSource(ctx context.Context, r sourceResult, human bool, print func(runtime.Object) error) error {
	rv := watchFrom(r.Infos[0].Object)
	b := resource.NewBuilder(r.Source.Getter).
		Unstructured().
		NamespaceParam(o.Namespace).DefaultNamespace().AllNamespaces(o.AllNamespaces).
		LabelSelectorParam(o.LabelSelector).
		FieldSelectorParam(o.FieldSelector).
		ResourceTypeOrNameArgs(true, r.Source.Args...).
		SingleResourceType()
	if human {
		b = b.TransformRequests(tableRequest)
	}
	res := b.Do()
	if err := res.Err(); err != nil {
		return err
	}
	wi, err := res.Watch(rv)
	if err != nil {
		return err
	}
	defer wi.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			if e.Type == watch.Error {
				return apierrors.FromObject(e.Object)
			}
			if e.Type == watch.Bookmark {
				continue
			}
			if err := print(e.Object); err != nil {
				return err
			}
		}
	}
}

// watchFrom is the resourceVersion to watch from after a list or get: the list's, or the
// object's; "0" (now, with synthetic ADDED events) when there is none.
func watchFrom(obj runtime.Object) string {
	if t, ok := obj.(*metav1.Table); ok {
		if t.ResourceVersion != "" {
			return t.ResourceVersion
		}
		if len(t.Rows) == 1 && t.Rows[0].Object.Object != nil {
			obj = t.Rows[0].Object.Object
		} else {
			return "0"
		}
	}
	if meta.IsListType(obj) {
		if acc, err := meta.ListAccessor(obj); err == nil && acc.GetResourceVersion() != "" {
			return acc.GetResourceVersion()
		}
		return "0"
	}
	if acc, err := meta.Accessor(obj); err == nil && acc.GetResourceVersion() != "" {
		return acc.GetResourceVersion()
	}
	return "0"
}

// sourceGetter is the RESTClientGetter of one source: the host's kubeconfig, pointed at the
// fleet API or a member's proxy, with a discovery cache of its own.
type sourceGetter struct {
	host   *genericclioptions.ConfigFlags
	config *rest.Config

	once   sync.Once
	disc   discovery.CachedDiscoveryInterface
	mapper meta.RESTMapper
	err    error
}

func newSourceGetter(host *genericclioptions.ConfigFlags, cfg *rest.Config) *sourceGetter {
	return &sourceGetter{host: host, config: cfg}
}

func (g *sourceGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.config), nil }

func (g *sourceGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.host.ToRawKubeConfigLoader()
}

func (g *sourceGetter) init() {
	g.once.Do(func() {
		cfg := rest.CopyConfig(g.config)
		cfg.Burst, cfg.QPS = 300, 50 // as kubectl's discovery
		cacheDir := os.Getenv("KUBECACHEDIR")
		if cacheDir == "" {
			cacheDir = filepath.Join(homedir.HomeDir(), ".kube", "cache")
		}
		if g.host != nil && g.host.CacheDir != nil && *g.host.CacheDir != "" {
			cacheDir = *g.host.CacheDir
		}
		discoveryDir := filepath.Join(cacheDir, "discovery", unsafeFileChars.ReplaceAllString(
			strings.TrimPrefix(strings.TrimPrefix(cfg.Host, "https://"), "http://"), "_"))
		g.disc, g.err = diskcached.NewCachedDiscoveryClientForConfig(cfg, discoveryDir, filepath.Join(cacheDir, "http"), 6*time.Hour)
		if g.err != nil {
			return
		}
		mapper := restmapper.NewDeferredDiscoveryRESTMapper(g.disc)
		g.mapper = restmapper.NewShortcutExpander(mapper, g.disc, func(string) {})
	})
}

var unsafeFileChars = regexp.MustCompile(`[^(\w/.)]`)

func (g *sourceGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	g.init()
	return g.disc, g.err
}

func (g *sourceGetter) ToRESTMapper() (meta.RESTMapper, error) {
	g.init()
	return g.mapper, g.err
}
