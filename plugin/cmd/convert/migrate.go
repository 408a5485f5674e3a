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

package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/portable"
)

// karmadaKinds are the resources of a Karmada control plane that migrate reads, in the
// order it applies them: what the policies need first.
var karmadaKinds = []schema.GroupResource{
	{Group: "config.karmada.io", Resource: "resourceinterpretercustomizations"},
	{Group: "config.karmada.io", Resource: "resourceinterpreterwebhookconfigurations"},
	{Group: "policy.karmada.io", Resource: "overridepolicies"},
	{Group: "policy.karmada.io", Resource: "clusteroverridepolicies"},
	{Group: "policy.karmada.io", Resource: "propagationpolicies"},
	{Group: "policy.karmada.io", Resource: "clusterpropagationpolicies"},
	{Group: "policy.karmada.io", Resource: "federatedresourcequotas"},
	{Group: "policy.karmada.io", Resource: "clustertaintpolicies"},
	{Group: "autoscaling.karmada.io", Resource: "federatedhpas"},
	{Group: "autoscaling.karmada.io", Resource: "cronfederatedhpas"},
	{Group: "networking.karmada.io", Resource: "multiclusterservices"},
	{Group: "networking.karmada.io", Resource: "multiclusteringresses"},
	{Group: "remedy.karmada.io", Resource: "remedies"},
}

// MigrateOptions are the options of `kubectl fed migrate`.
type MigrateOptions struct {
	genericiooptions.IOStreams
	configFlags *genericclioptions.ConfigFlags
	// FromKarmada is the kubeconfig of Karmada's API server; KarmadaContext its context.
	FromKarmada, KarmadaContext string
	// DryRun is client (report only), server (fed-apiserver checks each object, nothing
	// stored) or none (applied).
	DryRun string
}

// NewCmdMigrate is `kubectl fed migrate --from-karmada KUBECONFIG`.
func NewCmdMigrate(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &MigrateOptions{IOStreams: streams, configFlags: configFlags, DryRun: "client"}
	cmd := &cobra.Command{
		Use:                   "migrate --from-karmada KUBECONFIG [--dry-run=client|server|none]",
		DisableFlagsInUseLine: true,
		Short:                 "Carry a running Karmada's policies and templates to the fleet",
		Long: `Read a running Karmada's policies (Propagation, ClusterPropagation, Override and
ClusterOverride policies, ResourceInterpreterCustomizations, FederatedResourceQuotas,
ClusterTaintPolicies, FederatedHPAs, CronFederatedHPAs, MultiClusterServices and
MultiClusterIngresses) and the templates its propagation policies select, rewrite them as
kubectl fed convert does, and apply them to the fleet with server-side apply (field manager
kubectl-fed-migrate), each namespace made first.

By default nothing is written (--dry-run=client): the report says what would be applied
and what fed cannot carry. --dry-run=server has fed-apiserver check every object without
storing it; --dry-run=none applies. Karmada is only read. Its member clusters are not
joined: join them with kubectl fed join first, under the same names, so that the policies'
cluster names mean the same clusters.`,
		Example: `  # What would be carried, and what cannot be
  kubectl fed migrate --from-karmada ~/.kube/karmada.config

  # Checked by fed-apiserver, then applied
  kubectl fed migrate --from-karmada ~/.kube/karmada.config --dry-run=server
  kubectl fed migrate --from-karmada ~/.kube/karmada.config --dry-run=none`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.FromKarmada == "" {
				return cmdline.UsageError(cmd, "--from-karmada KUBECONFIG is required: the kubeconfig of Karmada's API server")
			}
			if !slices.Contains([]string{"client", "server", "none"}, o.DryRun) {
				return cmdline.UsageError(cmd, "--dry-run must be client, server or none, not %q", o.DryRun)
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&o.FromKarmada, "from-karmada", "", "The kubeconfig of the Karmada API server to read.")
	cmd.Flags().StringVar(&o.KarmadaContext, "karmada-context", "", "The context of --from-karmada to use (its current context by default).")
	cmd.Flags().StringVar(&o.DryRun, "dry-run", o.DryRun, `"client" reports only, "server" has fed-apiserver check each object without storing it, "none" applies.`)
	return cmd
}

// source is a Karmada API server: a dynamic client and a mapper.
type source struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

func newSource(cfg *rest.Config) (*source, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &source{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// Run reads Karmada, converts what it read, and applies it (or says what it would).
func (o *MigrateOptions) Run(ctx context.Context) error {
	kcfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.FromKarmada},
		&clientcmd.ConfigOverrides{CurrentContext: o.KarmadaContext}).ClientConfig()
	if err != nil {
		return fmt.Errorf("--from-karmada %s: %w", o.FromKarmada, err)
	}
	src, err := newSource(kcfg)
	if err != nil {
		return err
	}
	objects, notes, err := src.read(ctx)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", n)
	}
	var carried []*unstructured.Unstructured
	left := 0
	for _, u := range objects {
		warnings, err := Convert(u)
		for _, w := range warnings {
			fmt.Fprintf(o.ErrOut, "Warning: %s %s: %s\n", u.GetKind(), qualified(u), w)
		}
		if err != nil {
			fmt.Fprintf(o.ErrOut, "Warning: %s %s: %v\n", u.GetKind(), qualified(u), err)
			left++
			continue
		}
		carried = append(carried, u)
	}
	if o.DryRun == "client" {
		for _, u := range carried {
			fmt.Fprintf(o.Out, "%s %s would be applied\n", kindOf(u), qualified(u))
		}
		fmt.Fprintf(o.Out, "%d object(s) would be applied to the fleet, %d left out (dry run: --dry-run=server to check them with fed-apiserver, --dry-run=none to apply)\n", len(carried), left)
		return nil
	}
	return o.apply(ctx, carried, left)
}

// kindOf is a kind with its group, as kubectl prints it: deployment.apps.
func kindOf(u *unstructured.Unstructured) string {
	gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
	if gv.Group == "" {
		return strings.ToLower(u.GetKind())
	}
	return strings.ToLower(u.GetKind()) + "." + gv.Group
}

// read lists Karmada's policies and the templates its propagation policies select; notes
// say what it could not read.
func (s *source) read(ctx context.Context) (objects []*unstructured.Unstructured, notes []string, err error) {
	var policies, templates []*unstructured.Unstructured
	seen := map[string]bool{}
	for _, gr := range karmadaKinds {
		gvr, err := s.mapper.ResourceFor(gr.WithVersion(""))
		if meta.IsNoMatchError(err) {
			continue // this Karmada does not serve it
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading Karmada's %s: %w", gr, err)
		}
		list, err := s.client.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("listing Karmada's %s: %w", gr, err)
		}
		for i := range list.Items {
			policies = append(policies, &list.Items[i])
		}
	}
	for _, p := range policies {
		if p.GetKind() != "PropagationPolicy" && p.GetKind() != "ClusterPropagationPolicy" {
			continue
		}
		selectors, _, _ := unstructured.NestedSlice(p.Object, "spec", "resourceSelectors")
		for _, raw := range selectors {
			sel, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			found, note, err := s.selected(ctx, p, sel)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
			for _, t := range found {
				key := t.GetAPIVersion() + "/" + t.GetKind() + "/" + t.GetNamespace() + "/" + t.GetName()
				if !seen[key] {
					seen[key] = true
					templates = append(templates, t)
				}
			}
		}
	}
	for _, u := range append(templates, policies...) {
		clean(u)
	}
	return append(templates, policies...), notes, nil
}

// selected are the objects of Karmada's API server a resource selector of policy p picks.
func (s *source) selected(ctx context.Context, p *unstructured.Unstructured, sel map[string]any) ([]*unstructured.Unstructured, string, error) {
	apiVersion, _ := sel["apiVersion"].(string)
	kind, _ := sel["kind"].(string)
	name, _ := sel["name"].(string)
	namespace, _ := sel["namespace"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" {
		return nil, fmt.Sprintf("%s %s: a resource selector without a valid apiVersion and kind: skipped", p.GetKind(), qualified(p)), nil
	}
	mapping, err := s.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if err != nil {
		return nil, fmt.Sprintf("%s %s: Karmada serves no %s %s: its templates are not read", p.GetKind(), qualified(p), apiVersion, kind), nil
	}
	if p.GetNamespace() != "" {
		namespace = p.GetNamespace()
	}
	var ri dynamic.ResourceInterface = s.client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = s.client.Resource(mapping.Resource).Namespace(namespace)
	}
	opts := metav1.ListOptions{}
	if name != "" {
		opts.FieldSelector = "metadata.name=" + name
	} else if ls, ok := sel["labelSelector"].(map[string]any); ok {
		raw, _ := json.Marshal(ls)
		var parsed metav1.LabelSelector
		if err := json.Unmarshal(raw, &parsed); err != nil {
			return nil, fmt.Sprintf("%s %s: a labelSelector that cannot be read: %v", p.GetKind(), qualified(p), err), nil
		}
		selector, err := metav1.LabelSelectorAsSelector(&parsed)
		if err != nil {
			return nil, fmt.Sprintf("%s %s: a labelSelector that cannot be read: %v", p.GetKind(), qualified(p), err), nil
		}
		if selector != labels.Everything() {
			opts.LabelSelector = selector.String()
		}
	}
	list, err := ri.List(ctx, opts)
	if err != nil {
		return nil, "", fmt.Errorf("listing the %s of %s %s in Karmada: %w", mapping.Resource.Resource, p.GetKind(), qualified(p), err)
	}
	out := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		t := &list.Items[i]
		if strings.HasPrefix(t.GetNamespace(), "kube-") || strings.HasPrefix(t.GetNamespace(), "karmada-") {
			continue // Karmada's own and the cluster's, as Karmada does not propagate them either
		}
		out = append(out, t)
	}
	return out, "", nil
}

// clean drops what the source server wrote on an object: its identity there, its status
// and its field managers.
func clean(u *unstructured.Unstructured) {
	portable.Strip(u)
	annotations := u.GetAnnotations()
	delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
	} else {
		u.SetAnnotations(annotations)
	}
}

// apply applies the objects to the fleet with server-side apply, their namespaces made
// first; with --dry-run=server nothing is stored.
func (o *MigrateOptions) apply(ctx context.Context, objects []*unstructured.Unstructured, left int) error {
	getter := fleet.NewFleetGetter(o.configFlags)
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return err
	}
	mapper, err := getter.ToRESTMapper()
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var dryRun []string
	verb := "applied"
	if o.DryRun == "server" {
		dryRun, verb = []string{metav1.DryRunAll}, "checked by fed-apiserver (dry run)"
	}
	namespaces := map[string]bool{}
	for _, u := range objects {
		if ns := u.GetNamespace(); ns != "" && !namespaces[ns] {
			namespaces[ns] = true
			nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
			objects = append([]*unstructured.Unstructured{nsObj}, objects...)
		}
	}
	var failures []error
	applied := 0
	for _, u := range objects {
		gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
		mapping, err := mapper.RESTMapping(gv.WithKind(u.GetKind()).GroupKind(), gv.Version)
		if err != nil {
			failures = append(failures, fmt.Errorf("%s %s: the fleet serves no %s: %w", u.GetKind(), qualified(u), u.GetAPIVersion(), err))
			continue
		}
		var ri dynamic.ResourceInterface = client.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = client.Resource(mapping.Resource).Namespace(u.GetNamespace())
		}
		data, err := json.Marshal(u.Object)
		if err != nil {
			return err
		}
		_, err = ri.Patch(ctx, u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "kubectl-fed-migrate", DryRun: dryRun})
		if err != nil {
			if u.GetKind() == "Namespace" && apierrors.IsAlreadyExists(err) {
				continue
			}
			failures = append(failures, fmt.Errorf("%s %s: %w", u.GetKind(), qualified(u), err))
			continue
		}
		applied++
		fmt.Fprintf(o.Out, "%s %s %s\n", kindOf(u), qualified(u), verb)
	}
	fmt.Fprintf(o.Out, "%d object(s) %s, %d failed, %d left out\n", applied, verb, len(failures), left)
	return errors.Join(failures...)
}
