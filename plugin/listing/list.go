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

// Package listing is what kubectl fed get and kubectl fed search do, outside their cobra
// glue: kubectl get's flags and arguments, where to look for each type (the fleet API for
// templates, the members, or fed's search cache where it holds their objects), the sources
// queried in parallel, their tables merged with CLUSTER and ADOPTION columns or their objects
// printed with kubectl's printers, and -w.
package listing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/tables"
)

// Options are the inputs kubectl fed get and kubectl fed search share: the host, -C and
// --all-clusters, kubectl get's output, selector, namespace and watch flags, and the
// arguments.
type Options struct {
	genericiooptions.IOStreams
	// ConfigFlags select the host cluster.
	ConfigFlags *genericclioptions.ConfigFlags
	Clusters    fleet.ClusterFlags
	PrintFlags  *kubectlget.PrintFlags

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

// NewOptions are the defaults of kubectl get's flags, on the host configFlags select.
func NewOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) Options {
	o := Options{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: kubectlget.NewGetPrintFlags(), ChunkSize: 500}
	// Sorting would need the full objects of every cluster; the merged table is sorted by
	// namespace, name and cluster instead.
	o.PrintFlags.HumanReadableFlags.SortBy = nil
	return o
}

// AddFlags adds kubectl get's flags; watch says what -w watches. The caller adds -C.
func (o *Options) AddFlags(cmd *cobra.Command, watch string) {
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	cmd.Flags().StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List the requested objects across all namespaces.")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "After listing the requested objects, "+watch)
	cmd.Flags().BoolVar(&o.WatchOnly, "watch-only", false, "Watch for changes to the requested objects, without listing them first.")
	cmd.Flags().BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If the requested object does not exist the command will return exit code 0.")
	cmd.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "Return large lists in chunks rather than all at once. Pass 0 to disable.")
}

// Complete takes the arguments and reads the namespace of the kubeconfig.
func (o *Options) Complete(args []string) error {
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
func (o *Options) Validate() error {
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

// Get queries the fleet for the template kinds among the types and the members (or the
// search cache, when cache and it holds them) for the others, in parallel, and prints what
// they answer.
func (o *Options) Get(ctx context.Context, cache bool) error {
	sources, failures, err := o.sources(ctx, cache)
	if err != nil {
		return err
	}
	return o.show(ctx, sources, failures)
}

// humanReadable tells whether the output is a table (the default or -o wide).
func (o *Options) humanReadable() bool {
	f := *o.PrintFlags.OutputFormat
	tmpl := o.PrintFlags.TemplateFlags.TemplateArgument
	return (f == "" || f == "wide") && (tmpl == nil || *tmpl == "")
}

// queryAll queries the sources in parallel.
func (o *Options) queryAll(sources []source, human bool) []sourceResult {
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
	return results
}

// withFallbacks replaces the result of a source that failed and has fallbacks (the search
// cache, for the members it stands for) by theirs.
func (o *Options) withFallbacks(results []sourceResult, human bool) []sourceResult {
	var out []sourceResult
	for _, r := range results {
		if r.Err == nil || r.Source.Cache == nil || len(r.Source.Cache.Fallback) == 0 {
			out = append(out, r)
			continue
		}
		var resources []string
		for _, q := range r.Source.Cache.Queries {
			if !slices.Contains(resources, resourceName(q.Mapping)) {
				resources = append(resources, resourceName(q.Mapping))
			}
		}
		logNotes(membersNotes([]string{strings.Join(resources, ", ")}, r.Source.Cache.Members, fmt.Sprintf("the search cache failed: %v", r.Err)))
		out = append(out, o.queryAll(r.Source.Cache.Fallback, human)...)
	}
	return out
}

// show queries the sources in parallel and prints what they answer; failures are clusters
// that could not be queried at all, reported as warnings.
func (o *Options) show(ctx context.Context, sources []source, failures []string) error {
	human := o.humanReadable()
	results := o.withFallbacks(o.queryAll(sources, human), human)

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
	for _, w := range staleWarnings(results) {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", w)
	}

	if o.Watch {
		if err := o.watch(ctx, results, human); err != nil {
			return err
		}
		return clustersFailed(failures, failed)
	}
	printed, err := o.print(results, human)
	if err != nil {
		return err
	}
	found := printed || countInfos(results) > 0
	if !found && len(notFound) > 0 && !o.IgnoreNotFound {
		// Nowhere found: kubectl's NotFound, once per name.
		errs := notFoundErrors(notFound)
		for _, err := range errs[:len(errs)-1] {
			fmt.Fprintln(o.ErrOut, cmdline.ErrorMessage(err))
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
	return clustersFailed(failures, failed)
}

// print prints the results: one merged table per kind, or the objects; it tells whether
// it printed any.
func (o *Options) print(results []sourceResult, human bool) (bool, error) {
	if !human {
		return o.printObjects(o.Out, results)
	}
	parts, err := tableParts(results)
	if err != nil {
		return false, err
	}
	return tables.Print(o.Out, tables.Merge(parts), o.PrintFlags, o.AllNamespaces)
}

// clustersFailed is the command's error when some clusters failed, nil otherwise.
func clustersFailed(failures []string, failed []sourceResult) error {
	var names []string
	for _, f := range failures {
		names = append(names, strings.SplitN(strings.TrimPrefix(f, "cluster "), ":", 2)[0])
	}
	for _, r := range failed {
		switch {
		case r.Source.template():
			names = append(names, "fleet")
		case r.Source.Cache != nil:
			names = append(names, r.Source.Cache.Members...)
		default:
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
