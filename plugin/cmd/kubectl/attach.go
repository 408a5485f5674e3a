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
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlattach "k8s.io/kubectl/pkg/cmd/attach"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// AttachOptions are the inputs of `kubectl fed attach`: the member, and kubectl attach's
// options, bound to kubectl attach's flags.
type AttachOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	Clusters    fleet.ClusterFlags
	Attach      *kubectlattach.AttachOptions

	factory cmdutil.Factory
	cmd     *cobra.Command
	args    []string
}

// NewCmdAttach is `kubectl fed attach POD -C CLUSTER [-c CONTAINER] [-it]`: kubectl attach
// in a member cluster.
//
// The command is built from kubectl's AttachOptions with kubectl attach's flags rather than
// taken whole from kubectl, so that the "resume using …" hint names the member.
func NewCmdAttach(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &AttachOptions{IOStreams: streams, ConfigFlags: configFlags, Attach: kubectlattach.NewAttachOptions(streams)}
	o.factory = fleet.NewMemberFactory(configFlags, func() string {
		name, _ := oneMember(&o.Clusters)
		return name
	})
	// kubectl's own command, for its help texts.
	kc := kubectlattach.NewCmdAttach(o.factory, streams)
	cmd := &cobra.Command{
		Use:                   "attach (POD | TYPE/NAME) -C CLUSTER [-c CONTAINER]",
		DisableFlagsInUseLine: true,
		Short:                 "Attach to a running container of a member cluster",
		Long: `Attach to a process that is already running inside an existing container of a member
cluster, as kubectl attach does. -C names the member; fed's cluster proxy reaches it acting
as you.`,
		Example:           fedExamples(kc.Example, "attach"),
		ValidArgsFunction: completion.PodResourceNameCompletionFunc(o.factory),
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
	// kubectl attach's flags.
	a := o.Attach
	cmdutil.AddPodRunningTimeoutFlag(cmd, 60*time.Second)
	cmdutil.AddContainerVarFlags(cmd, &a.ContainerName, a.ContainerName)
	cmdutil.CheckErr(cmd.RegisterFlagCompletionFunc("container", completion.ContainerCompletionFunc(o.factory)))
	cmd.Flags().BoolVarP(&a.Stdin, "stdin", "i", a.Stdin, "Pass stdin to the container")
	cmd.Flags().BoolVarP(&a.TTY, "tty", "t", a.TTY, "Stdin is a TTY")
	cmd.Flags().BoolVarP(&a.Quiet, "quiet", "q", a.Quiet, "Only print output from the remote session")
	cmd.Flags().StringVar(&a.DetachKeys, "detach-keys", "ctrl-p,ctrl-q", "Override the key sequence for detaching a container")
	addMemberFlag(cmd, &o.Clusters)
	return cmd
}

// Complete keeps the command and its arguments for kubectl attach's Complete, which reads
// the pod and so runs once the member is known.
func (o *AttachOptions) Complete(cmd *cobra.Command, args []string) error {
	o.cmd, o.args = cmd, args
	return nil
}

// Validate needs exactly one member, without asking any server.
func (o *AttachOptions) Validate() error {
	_, err := oneMember(&o.Clusters)
	return err
}

// Run checks that the member exists and attaches there: kubectl attach's Complete,
// Validate and Run, their errors handled as kubectl handles them, so that the exit code of
// the container's process is kubectl fed's.
func (o *AttachOptions) Run(ctx context.Context) error {
	if _, err := o.Clusters.Resolve(ctx, o.ConfigFlags, false); err != nil {
		return err
	}
	name, _ := oneMember(&o.Clusters)
	o.Attach.CommandName = o.cmd.CommandPath() + " -C " + name
	cmdutil.CheckErr(o.Attach.Complete(o.factory, o.cmd, o.args))
	cmdutil.CheckErr(o.Attach.Validate())
	cmdutil.CheckErr(o.Attach.Run())
	return nil
}
