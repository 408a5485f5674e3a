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

package interpret

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter"
	"github.com/fedhq/fed/plugin/cmdline"
)

// karmadaOperations are karmadactl interpret's names of the operations, accepted too.
var karmadaOperations = map[string]interpreter.Operation{
	"interpretReplica":    interpreter.OpReplicaResource,
	"reviseReplica":       interpreter.OpReplicaRevision,
	"retain":              interpreter.OpRetention,
	"interpretStatus":     interpreter.OpStatusReflection,
	"aggregateStatus":     interpreter.OpStatusAggregation,
	"interpretHealth":     interpreter.OpHealthInterpretation,
	"interpretDependency": interpreter.OpDependencyInterpretation,
	"interpretComponent":  interpreter.OpComponentResource,
}

// InterpretOptions are the inputs of `kubectl fed interpret`.
type InterpretOptions struct {
	genericiooptions.IOStreams

	Filename  string
	Operation string
	Check     bool
	Observed  string
	Desired   string
	Status    string
	Replicas  int32
	Output    string

	customization *federationv1alpha1.ResourceInterpreterCustomization
	op            interpreter.Operation
}

// NewCmdInterpret is `kubectl fed interpret`.
func NewCmdInterpret(streams genericiooptions.IOStreams) *cobra.Command {
	o := &InterpretOptions{IOStreams: streams}
	var ops []string
	for _, op := range interpreter.Operations {
		ops = append(ops, string(op))
	}
	cmd := &cobra.Command{
		Use:                   "interpret -f CUSTOMIZATION (--check | --operation OPERATION [--observed FILE] [--desired FILE] [--status FILE] [--replicas N]) [-o yaml|json]",
		DisableFlagsInUseLine: true,
		Short:                 "Run a ResourceInterpreterCustomization's script on objects from files, without a server",
		Long: `Run one script of a ResourceInterpreterCustomization locally, as fed-apiserver would run
it, on objects read from files: to see what fed makes of a kind before applying the
customization to the fleet. Nothing is sent to a server.

The operations are the customization's fields (` + strings.Join(ops, ", ") + `); karmadactl's
names (interpretReplica, reviseReplica, retain, interpretStatus, aggregateStatus,
interpretHealth, interpretDependency) work too. They read:

  replicaResource, replicaRevision, dependencyInterpretation   --desired (a template)
  statusReflection, healthInterpretation                        --observed (a member's object)
  retention                                                     --desired and --observed
  statusAggregation                                             --desired and --status

--status is a list of the members' statuses ({clusterName, status, applied, health}), or a
ResourceBinding whose status.aggregatedStatus to use (kubectl get rb NAME -o yaml).
--check compiles every script of the customization and says which function each defines.

An operation the customization has no script for answers with fed's built-in knowledge of
the kind.`,
		Example: `  # How many replicas fed would count, and what each needs
  kubectl fed interpret -f guestbook-interpreter.yaml --operation replicaResource --desired guestbook.yaml

  # Whether a member's object is healthy
  kubectl fed interpret -f guestbook-interpreter.yaml --operation healthInterpretation --observed member-guestbook.yaml

  # The template's status from a binding's per-cluster statuses
  kubectl get rb guestbook-sample-guestbook -o yaml > rb.yaml
  kubectl fed interpret -f guestbook-interpreter.yaml --operation statusAggregation --desired guestbook.yaml --status rb.yaml

  # Check every script
  kubectl fed interpret -f guestbook-interpreter.yaml --check`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return cmdline.UsageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&o.Filename, "filename", "f", "", "The file that holds the ResourceInterpreterCustomization ('-' for standard input).")
	cmd.Flags().StringVar(&o.Operation, "operation", "", "The operation to run: "+strings.Join(ops, ", ")+".")
	cmd.Flags().BoolVar(&o.Check, "check", false, "Compile every script of the customization and say which function each defines.")
	cmd.Flags().StringVar(&o.Observed, "observed", "", "The file that holds a member's object.")
	cmd.Flags().StringVar(&o.Desired, "desired", "", "The file that holds the template (or the manifest fed applies).")
	cmd.Flags().StringVar(&o.Status, "status", "", "The file that holds the members' statuses, or a ResourceBinding.")
	cmd.Flags().Int32Var(&o.Replicas, "replicas", 1, "The replicas to set (replicaRevision).")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "One of 'yaml' or 'json'.")
	_ = cmd.RegisterFlagCompletionFunc("operation", cobra.FixedCompletions(ops, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete refuses arguments: the files are named by flags.
func (o *InterpretOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		return cmdline.UsageError(cmd, "unexpected arguments: %s", strings.Join(args, " "))
	}
	return nil
}

// Validate checks the flags and reads the customization.
func (o *InterpretOptions) Validate() error {
	if o.Filename == "" {
		return errors.New("-f is required: the file that holds the ResourceInterpreterCustomization")
	}
	if o.Output != "yaml" && o.Output != "json" {
		return errors.New(`--output must be 'yaml' or 'json'`)
	}
	switch {
	case o.Check && o.Operation != "":
		return errors.New("--check and --operation exclude each other")
	case !o.Check && o.Operation == "":
		return errors.New("--operation or --check is required")
	case o.Operation != "":
		o.op = interpreter.Operation(o.Operation)
		if op, ok := karmadaOperations[o.Operation]; ok {
			o.op = op
		}
		if !slices.Contains(interpreter.Operations, o.op) {
			return fmt.Errorf("unknown operation %q: one of %v", o.Operation, interpreter.Operations)
		}
		needs := map[interpreter.Operation][]string{
			interpreter.OpReplicaResource: {"desired"}, interpreter.OpReplicaRevision: {"desired"},
			interpreter.OpDependencyInterpretation: {"desired"}, interpreter.OpStatusReflection: {"observed"},
			interpreter.OpComponentResource:    {"desired"},
			interpreter.OpHealthInterpretation: {"observed"}, interpreter.OpRetention: {"desired", "observed"},
			interpreter.OpStatusAggregation: {"desired", "status"},
		}
		given := map[string]string{"desired": o.Desired, "observed": o.Observed, "status": o.Status}
		for _, flag := range needs[o.op] {
			if given[flag] == "" {
				return fmt.Errorf("--operation %s needs --%s", o.op, flag)
			}
		}
	}
	data, err := o.read(o.Filename)
	if err != nil {
		return err
	}
	o.customization, err = readCustomization(data)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Filename, err)
	}
	return nil
}

// read reads a file, or standard input for "-".
func (o *InterpretOptions) read(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(o.In)
	}
	return os.ReadFile(name)
}

// readCustomization reads the one ResourceInterpreterCustomization of a YAML or JSON
// stream.
func readCustomization(data []byte) (*federationv1alpha1.ResourceInterpreterCustomization, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var found []*federationv1alpha1.ResourceInterpreterCustomization
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		if u.GetAPIVersion() != federationv1alpha1.SchemeGroupVersion.String() || u.GetKind() != "ResourceInterpreterCustomization" {
			continue
		}
		c := &federationv1alpha1.ResourceInterpreterCustomization{}
		if err := yaml.UnmarshalStrict(raw, c); err != nil {
			return nil, fmt.Errorf("ResourceInterpreterCustomization %s: %w", u.GetName(), err)
		}
		found = append(found, c)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no %s ResourceInterpreterCustomization in it", federationv1alpha1.SchemeGroupVersion)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%d ResourceInterpreterCustomizations in it: keep the one to run", len(found))
}

// object reads the object of a file, or nil for "".
func (o *InterpretOptions) object(name string) (*unstructured.Unstructured, error) {
	if name == "" {
		return nil, nil
	}
	data, err := o.read(name)
	if err != nil {
		return nil, err
	}
	objects, err := cmdline.Objects(name, data)
	if err != nil {
		return nil, err
	}
	if len(objects) != 1 {
		return nil, fmt.Errorf("%s holds %d objects, want one", name, len(objects))
	}
	return objects[0], nil
}

// statusItems reads --status: a list of items, or a binding's status.aggregatedStatus.
func (o *InterpretOptions) statusItems() ([]federationv1alpha1.AggregatedStatusItem, error) {
	if o.Status == "" {
		return nil, nil
	}
	data, err := o.read(o.Status)
	if err != nil {
		return nil, err
	}
	var items []federationv1alpha1.AggregatedStatusItem
	if err := yaml.UnmarshalStrict(data, &items); err == nil {
		return items, nil
	}
	var binding federationv1alpha1.ResourceBinding
	if err := yaml.Unmarshal(data, &binding); err != nil || binding.Kind != "ResourceBinding" && binding.Kind != "ClusterResourceBinding" {
		return nil, fmt.Errorf("%s: neither a list of {clusterName, status, applied, health} nor a ResourceBinding", o.Status)
	}
	return binding.Status.AggregatedStatus, nil
}

// Run runs the operation, or checks the scripts, and prints what it answers.
func (o *InterpretOptions) Run(_ context.Context) error {
	if o.Check {
		results := interpreter.Check(o.customization)
		if len(results) == 0 {
			return fmt.Errorf("ResourceInterpreterCustomization %s has no script", o.customization.Name)
		}
		var failed []string
		for _, op := range interpreter.Operations {
			err, ok := results[op]
			switch {
			case !ok:
			case err != nil:
				fmt.Fprintf(o.Out, "%s: %v\n", op, err)
				failed = append(failed, string(op))
			default:
				fmt.Fprintf(o.Out, "%s: ok\n", op)
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("%d of the scripts fail: %s", len(failed), strings.Join(failed, ", "))
		}
		return nil
	}
	desired, err := o.object(o.Desired)
	if err != nil {
		return err
	}
	observed, err := o.object(o.Observed)
	if err != nil {
		return err
	}
	items, err := o.statusItems()
	if err != nil {
		return err
	}
	result, err := interpreter.Run(o.customization, o.op, desired, observed, o.Replicas, items)
	if err != nil {
		return err
	}
	if h, ok := result.(federationv1alpha1.ResourceHealth); ok {
		result = map[string]any{"health": h}
	}
	if u, ok := result.(*unstructured.Unstructured); ok {
		result = u.Object
	}
	data, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		return err
	}
	if o.Output == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
		_, err = o.Out.Write(data)
		return err
	}
	fmt.Fprintln(o.Out, string(data))
	return nil
}
