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

// Package cmd is `kubectl fed`: the cobra commands, on k8s.io/cli-runtime, that manage the
// member clusters of a fed host cluster. What the commands share lives in the library
// packages beside this one: fleet (reaching the fleet API and the members), tables,
// watching, member and taints.
package cmd

import (
	goflag "flag"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// NewCmdFed is the root command, `kubectl fed`. Its kubeconfig flags (--kubeconfig,
// --context, --server, …) are kubectl's and select the host cluster.
func NewCmdFed(streams genericiooptions.IOStreams) *cobra.Command {
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

	cmd.AddCommand(
		NewCmdInit(configFlags, streams),
		NewCmdDeinit(configFlags, streams),
		NewCmdJoin(configFlags, streams),
		NewCmdUnjoin(configFlags, streams),
		NewCmdToken(configFlags, streams),
		NewCmdRegister(configFlags, streams),
		NewCmdUnregister(configFlags, streams),
		NewCmdTaint(configFlags, streams),
		NewCmdCordon(configFlags, streams),
		NewCmdUncordon(configFlags, streams),
		NewCmdKubeconfig(configFlags, streams),
		NewCmdGet(configFlags, streams),
		NewCmdSearch(configFlags, streams),
		NewCmdExec(configFlags, streams),
		NewCmdLogs(configFlags, streams),
		NewCmdAttach(configFlags, streams),
		NewCmdDescribe(configFlags, streams),
		NewCmdTop(configFlags, streams),
		NewCmdApply(configFlags, streams),
		NewCmdPromote(configFlags, streams),
		NewCmdInterpret(streams),
		NewCmdVersion(configFlags, streams),
		NewCmdCompletion(streams),
	)
	return cmd
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

// usageError is an error about the command line, with kubectl's hint.
func usageError(cmd *cobra.Command, format string, args ...any) error {
	return fmt.Errorf("%s\nSee '%s -h' for help and examples", fmt.Sprintf(format, args...), cmd.CommandPath())
}
