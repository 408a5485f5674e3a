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

// Package cmdline is what every command of kubectl fed keeps of kubectl's command line: the
// root command with kubectl's kubeconfig and -v flags, the error line a failed command
// prints, the usage error with its -h hint, progress lines, and -o for a Cluster.
package cmdline

import (
	goflag "flag"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/scheme"
)

// NewRoot is the root command, kubectl-fed, without its subcommands, and the kubeconfig
// flags (--kubeconfig, --context, --server, …) it adds: kubectl's, selecting the host
// cluster. The subcommands take the flags.
func NewRoot(streams genericiooptions.IOStreams) (*cobra.Command, *genericclioptions.ConfigFlags) {
	configFlags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "kubectl-fed",
		Short: "Manage the member clusters of a fed host cluster",
		Long: `kubectl fed manages the fleet of a fed host cluster: it installs fed into the host
cluster and removes it, joins member clusters (push mode) or lets them register themselves
(pull mode: token, register), removes them, and taints or cordons them so that fed schedules
workloads elsewhere; it shows and searches the objects of every member, and runs kubectl's
commands in them.

The kubeconfig flags select the host cluster, as for kubectl (register alone runs against
the member); -v sets the verbosity of the messages on standard error, as for kubectl.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl fed"},
		SilenceUsage:  true,
		SilenceErrors: true,
		// The servers' warnings as kubectl prints them ("Warning: …", each once): the
		// search cache's, that Secrets listed from it carry no data, among them.
		PersistentPreRun: func(*cobra.Command, []string) {
			rest.SetDefaultWarningHandler(rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true}))
		},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	configFlags.AddFlags(cmd.PersistentFlags())
	addVerbosityFlag(cmd.PersistentFlags())

	return cmd, configFlags
}

// NewCommand makes a command of kubectl fed on the host configFlags select.
type NewCommand func(*genericclioptions.ConfigFlags, genericiooptions.IOStreams) *cobra.Command

// NewRootWith is the root with the commands newCmds make: a command package's tests run
// its command lines under the root, as users do, with that package's commands only.
func NewRootWith(streams genericiooptions.IOStreams, newCmds ...NewCommand) *cobra.Command {
	root, configFlags := NewRoot(streams)
	for _, newCmd := range newCmds {
		root.AddCommand(newCmd(configFlags, streams))
	}
	return root
}

// addVerbosityFlag adds kubectl's -v/--v: klog's verbosity, for the plugin's own messages
// (kubectl fed get -v=1 says whether it reads the search cache or the members) and
// client-go's (-v=6 logs each request, as with kubectl).
func addVerbosityFlag(flags *pflag.FlagSet) {
	klogFlags := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(klogFlags)
	flags.AddGoFlag(klogFlags.Lookup("v")) // -v too: a one-letter Go flag gets the shorthand
}

// ErrorMessage formats an error as kubectl does: "Error from server (Reason): …" for an
// API error, "error: …" otherwise.
func ErrorMessage(err error) string {
	// Only an API error as such; one wrapped in context reads better as "error: …".
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Reason != "" {
		return fmt.Sprintf("Error from server (%s): %s", status.Status().Reason, err.Error())
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "error: ") {
		msg = "error: " + msg
	}
	return msg
}

// UsageError is an error about the command line, with kubectl's hint.
func UsageError(cmd *cobra.Command, format string, args ...any) error {
	return fmt.Errorf("%s\nSee '%s -h' for help and examples", fmt.Sprintf(format, args...), cmd.CommandPath())
}

// Progress prints a line of a long command's progress to w (standard error), unless w is nil.
func Progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// NewPrintFlags are kubectl's -o flags, printing "cluster.cluster.fedhq.io/NAME <operation>"
// by default.
func NewPrintFlags(operation string) *genericclioptions.PrintFlags {
	return genericclioptions.NewPrintFlags(operation).WithTypeSetter(scheme.Scheme)
}

// PrintCluster prints a Cluster with the printer the -o flags chose, reporting operation.
func PrintCluster(pf *genericclioptions.PrintFlags, operation string, c *clusterv1alpha1.Cluster, out io.Writer) error {
	pf.NamePrintFlags.Operation = operation
	p, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(c.DeepCopy(), out)
}
