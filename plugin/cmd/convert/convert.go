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

// Package convert is `kubectl fed convert`: YAML written for Karmada, rewritten for fed.
package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/scheme"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
)

// groups are Karmada's API groups and fed's for them; "" for a group of which fed serves
// no kind yet.
var groups = map[string]string{
	"policy.karmada.io":      federationv1alpha1.GroupName,
	"work.karmada.io":        federationv1alpha1.GroupName,
	"config.karmada.io":      federationv1alpha1.GroupName,
	"autoscaling.karmada.io": federationv1alpha1.GroupName,
	"networking.karmada.io":  federationv1alpha1.GroupName,
	"cluster.karmada.io":     clusterv1alpha1.GroupName,
	"search.karmada.io":      searchv1alpha1.GroupName,
	"apps.karmada.io":        federationv1alpha1.GroupName,
	"remedy.karmada.io":      clusterv1alpha1.GroupName,
}

// keys are Karmada's labels, annotations and taint keys that users write, and fed's.
var keys = map[string]string{
	"resourcetemplate.karmada.io/retain-replicas":    federationv1alpha1.LabelRetainReplicas,
	"resourcetemplate.karmada.io/deletion-protected": federationv1alpha1.LabelDeletionProtected,
	"work.karmada.io/conflict-resolution":            federationv1alpha1.AnnotationConflictResolution,
	"cluster.karmada.io/not-ready":                   clusterv1alpha1.TaintClusterNotReady,
	"cluster.karmada.io/unreachable":                 clusterv1alpha1.TaintClusterUnreachable,
	"cluster.karmada.io/unschedulable":               clusterv1alpha1.TaintClusterUnschedulable,
}

// written are the prefixes of the labels and annotations Karmada's controllers write on
// the objects they manage (which policy claimed a template, its binding, what was
// applied): a copy of them means nothing to fed and is left out.
var written = []string{
	"propagationpolicy.karmada.io/", "clusterpropagationpolicy.karmada.io/", "resourcebinding.karmada.io/",
	"clusterresourcebinding.karmada.io/", "work.karmada.io/name", "work.karmada.io/namespace", "work.karmada.io/permanent-id",
	"resourcetemplate.karmada.io/claimed-by", "resourcetemplate.karmada.io/generation", "resourcetemplate.karmada.io/uid",
	"resourcetemplate.karmada.io/managed-", "policy.karmada.io/applied-", "karmada.io/managed", "binding.karmada.io/",
}

// ConvertOptions are the inputs of `kubectl fed convert`.
type ConvertOptions struct {
	genericiooptions.IOStreams
	Filenames []string
	Recursive bool
	Output    string
}

// NewCmdConvert returns `kubectl fed convert`.
func NewCmdConvert(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ConvertOptions{IOStreams: streams, Output: "yaml"}
	cmd := &cobra.Command{
		Use:                   "convert -f FILENAME [-o yaml|json]",
		DisableFlagsInUseLine: true,
		Short:                 "Rewrite YAML written for Karmada for fed",
		Long: `Rewrite objects written for Karmada for fed and print them, as kubectl convert does:
Karmada's API groups (policy, work, config, autoscaling, networking, apps .karmada.io become
federation.fedhq.io; cluster.karmada.io cluster.fedhq.io; search.karmada.io
search.fedhq.io), and the labels, annotations and taint keys users write
(resourcetemplate.karmada.io/retain-replicas and deletion-protected,
work.karmada.io/conflict-resolution, cluster.karmada.io/not-ready, unreachable and
unschedulable). Labels and annotations Karmada's controllers write on what they manage are
left out. Objects that are not Karmada's pass unchanged.

What fed cannot carry is said on standard error: a kind fed does not serve (its object is
left out, and the command fails once it printed the rest), a field fed's API does not have,
a Karmada label fed does not act on. Nothing is sent to a server.`,
		Example: `  # Rewrite a Karmada PropagationPolicy and apply it to the fleet
  kubectl fed convert -f propagationpolicy.yaml | kubectl apply -f -

  # Every file of a directory, as JSON
  kubectl fed convert -f ./karmada/ -R -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.Filenames) == 0 {
				return cmdline.UsageError(cmd, "-f FILENAME is required")
			}
			if o.Output != "yaml" && o.Output != "json" {
				return cmdline.UsageError(cmd, "--output must be yaml or json, not %q", o.Output)
			}
			return o.Run()
		},
	}
	cmd.Flags().StringSliceVarP(&o.Filenames, "filename", "f", nil, "Files or directories of objects to convert ('-' for standard input).")
	cmd.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Process the directories of -f recursively.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "One of 'yaml' or 'json'.")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Run reads, converts and prints: one object as itself, several as a List.
func (o *ConvertOptions) Run() error {
	var objects []*unstructured.Unstructured
	for _, f := range o.Filenames {
		read, err := o.read(f)
		if err != nil {
			return err
		}
		objects = append(objects, read...)
	}
	var out []runtime.Object
	var failures []error
	for _, u := range objects {
		warnings, err := Convert(u)
		for _, w := range warnings {
			fmt.Fprintf(o.ErrOut, "Warning: %s %s: %s\n", u.GetKind(), qualified(u), w)
		}
		if err != nil {
			failures = append(failures, fmt.Errorf("%s %s: %w", u.GetKind(), qualified(u), err))
			continue
		}
		out = append(out, u)
	}
	var printer printers.ResourcePrinter = &printers.YAMLPrinter{}
	if o.Output == "json" {
		printer = &printers.JSONPrinter{}
	}
	switch len(out) {
	case 0:
	case 1:
		if err := printer.PrintObj(out[0], o.Out); err != nil {
			return err
		}
	default:
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
		for _, obj := range out {
			list.Items = append(list.Items, *obj.(*unstructured.Unstructured))
		}
		if err := printer.PrintObj(list, o.Out); err != nil {
			return err
		}
	}
	return errors.Join(failures...)
}

func qualified(u *unstructured.Unstructured) string {
	if u.GetNamespace() != "" {
		return u.GetNamespace() + "/" + u.GetName()
	}
	return u.GetName()
}

// read reads the objects of a file, a directory's files (.yaml, .yml, .json) or standard
// input; a List's items are objects of their own.
func (o *ConvertOptions) read(name string) ([]*unstructured.Unstructured, error) {
	if name == "-" {
		data, err := io.ReadAll(o.In)
		if err != nil {
			return nil, err
		}
		return decode("standard input", data)
	}
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return decode(name, data)
	}
	var out []*unstructured.Unstructured
	err = filepath.WalkDir(name, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != name && !o.Recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		objs, err := decode(path, data)
		out = append(out, objs...)
		return err
	})
	return out, err
}

// decode reads the objects of a file, a List's items as objects of their own.
func decode(name string, data []byte) ([]*unstructured.Unstructured, error) {
	objects, err := cmdline.Objects(name, data)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, u := range objects {
		if !u.IsList() {
			out = append(out, u)
			continue
		}
		list, err := u.ToList()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// Convert rewrites one object written for Karmada for fed, in place, and says what it
// could not carry: warnings for what it left as is or out, an error for a kind fed does
// not serve.
func Convert(u *unstructured.Unstructured) (warnings []string, err error) {
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return nil, err
	}
	karmada := strings.HasSuffix(gv.Group, ".karmada.io")
	if karmada {
		fedGroup, known := groups[gv.Group]
		if !known || fedGroup == "" {
			return nil, fmt.Errorf("fed serves no %s %s yet: left out", gv.Group, u.GetKind())
		}
		gvk := schema.GroupVersionKind{Group: fedGroup, Version: "v1alpha1", Kind: u.GetKind()}
		if !scheme.Scheme.Recognizes(gvk) {
			return nil, fmt.Errorf("fed serves no %s (Karmada's %s): left out", u.GetKind(), gv.String())
		}
		u.SetAPIVersion(gvk.GroupVersion().String())
	}
	for _, field := range []string{"labels", "annotations"} {
		m, _, _ := unstructured.NestedStringMap(u.Object, "metadata", field)
		if len(m) == 0 {
			continue
		}
		for k := range m {
			if slices.ContainsFunc(written, func(p string) bool { return strings.HasPrefix(k, p) }) {
				delete(m, k)
				warnings = append(warnings, fmt.Sprintf("%s %s is Karmada's own: left out", strings.TrimSuffix(field, "s"), k))
			}
		}
		if len(m) == 0 {
			unstructured.RemoveNestedField(u.Object, "metadata", field)
		} else {
			_ = unstructured.SetNestedStringMap(u.Object, m, "metadata", field)
		}
	}
	left := map[string]bool{}
	u.Object = rewrite(u.Object, left).(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(left)) {
		warnings = append(warnings, fmt.Sprintf("%s has no counterpart in fed: left as is", k))
	}
	if karmada {
		if w := unknownFields(u); w != "" {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}

// rewrite replaces, in keys and string values, Karmada's keys (keys) and groups (in an
// apiVersion), and notes in left the other strings that name something of Karmada's.
func rewrite(v any, left map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "apiVersion" {
				if s, ok := e.(string); ok {
					out[k] = apiVersion(s, left)
					continue
				}
			}
			out[rewriteString(k, left)] = rewrite(e, left)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = rewrite(e, left)
		}
		return x
	case string:
		return rewriteString(x, left)
	}
	return v
}

func rewriteString(s string, left map[string]bool) string {
	if fed, ok := keys[s]; ok {
		return fed
	}
	if strings.Contains(s, "karmada.io/") && !strings.Contains(s, " ") {
		left[s] = true
	}
	return s
}

func apiVersion(s string, left map[string]bool) string {
	gv, err := schema.ParseGroupVersion(s)
	if err != nil || !strings.HasSuffix(gv.Group, ".karmada.io") {
		return s
	}
	if fed := groups[gv.Group]; fed != "" {
		return fed + "/v1alpha1"
	}
	left[s] = true
	return s
}

// unknownFields says which fields of a converted object fed's API does not have (kubectl
// apply refuses them), or "".
func unknownFields(u *unstructured.Unstructured) string {
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return ""
	}
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return ""
	}
	if err := yaml.UnmarshalStrict(raw, obj); err != nil {
		return fmt.Sprintf("fed's API refuses it as it is (%v): kubectl apply will say so", err)
	}
	return ""
}
