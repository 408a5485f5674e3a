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

package kubectl

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlexec "k8s.io/kubectl/pkg/cmd/exec"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// ExecOptions are the inputs of `kubectl fed exec`: the member, and kubectl exec's own
// command, which keeps its options and flags to itself.
type ExecOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	Clusters    fleet.ClusterFlags

	// kubectlRun is kubectl exec's Run: its Complete, Validate and Run, whose errors it
	// handles as kubectl does, so that the exit code of the command is kubectl fed's.
	kubectlRun func(cmd *cobra.Command, args []string)
	cmd        *cobra.Command
	args       []string
}

// NewCmdExec is `kubectl fed exec POD -C CLUSTER [-c CONTAINER] [-it] -- COMMAND`: kubectl
// exec in a member cluster.
func NewCmdExec(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ExecOptions{IOStreams: streams, ConfigFlags: configFlags}
	f := fleet.NewMemberFactory(configFlags, func() string {
		name, _ := oneMember(&o.Clusters)
		return name
	})
	cmd := kubectlexec.NewCmdExec(f, streams)
	cmd.Use = "exec (POD | TYPE/NAME) -C CLUSTER [-c CONTAINER] [flags] -- COMMAND [args...]"
	cmd.Short = "Execute a command in a container of a member cluster"
	cmd.Long = `Execute a command in a container of a pod of a member cluster, as kubectl exec does. -C
names the member; fed's cluster proxy reaches it acting as you.`
	cmd.Example = fedExamples(cmd.Example, "exec")
	o.kubectlRun, cmd.Run = cmd.Run, nil
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return cmdline.UsageError(cmd, "%s", err.Error())
		}
		return o.Run(cmd.Context())
	}
	addMemberFlag(cmd, &o.Clusters)
	return cmd
}

// Complete keeps the command and its arguments for kubectl exec's Run.
func (o *ExecOptions) Complete(cmd *cobra.Command, args []string) error {
	o.cmd, o.args = cmd, args
	return nil
}

// Validate needs exactly one member, without asking any server.
func (o *ExecOptions) Validate() error {
	_, err := oneMember(&o.Clusters)
	return err
}

// Run checks that the member exists and runs kubectl exec in it.
func (o *ExecOptions) Run(ctx context.Context) error {
	if _, err := o.Clusters.Resolve(ctx, o.ConfigFlags, false); err != nil {
		return err
	}
	o.kubectlRun(o.cmd, o.args)
	return nil
}
