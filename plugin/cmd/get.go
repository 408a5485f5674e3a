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
	"sync"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/tables"
)

// GetOptions are the inputs of `kubectl fed get`.
type GetOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *kubectlget.PrintFlags
	Clusters    fleet.ClusterFlags

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
error; found nowhere, it is NotFound.`, tables.TemplateCluster, federationv1alpha1.LabelManaged, tables.TemplateCluster, fleet.AnnotationCluster),
		Example: `  # Deployment templates of the current namespace
  kubectl fed get deployments

  # The templates and the Deployments of every member, in all namespaces
  kubectl fed get deploy --all-clusters -A

  # The pods of member1 and member2, as YAML
  kubectl fed get pods -C member1,member2 -o yaml

  # Watch the pods of every member
  kubectl fed get pods -w`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return usageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	o.PrintFlags.AddFlags(cmd)
	o.Clusters.AddFlags(cmd.Flags(), "Show the objects of every member cluster too.")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
	cmd.Flags().StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List the requested objects across all namespaces.")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "After listing the requested objects, watch for changes in every cluster queried.")
	cmd.Flags().BoolVar(&o.WatchOnly, "watch-only", false, "Watch for changes to the requested objects, without listing them first.")
	cmd.Flags().BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If the requested object does not exist the command will return exit code 0.")
	cmd.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "Return large lists in chunks rather than all at once. Pass 0 to disable.")
	return cmd
}

// Complete takes the arguments and reads the namespace of the kubeconfig.
func (o *GetOptions) Complete(_ *cobra.Command, args []string) error {
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
			parts, err := tableParts(results)
			if err != nil {
				return err
			}
			printed, err = tables.Print(o.Out, tables.Merge(parts), o.PrintFlags, o.AllNamespaces)
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
