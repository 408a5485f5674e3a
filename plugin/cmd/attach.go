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
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlattach "k8s.io/kubectl/pkg/cmd/attach"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"

	"github.com/fedhq/fed/plugin/fleet"
)

// NewCmdAttach is `kubectl fed attach POD -C CLUSTER [-c CONTAINER] [-it]`: kubectl attach
// in a member cluster.
//
// The command is built from kubectl's AttachOptions with kubectl attach's flags rather than
// taken whole from kubectl, so that the "resume using …" hint names the member.
func NewCmdAttach(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var clusters fleet.ClusterFlags
	f := memberFactory(configFlags, func() string {
		name, _ := oneMember(&clusters)
		return name
	})
	o := kubectlattach.NewAttachOptions(streams)
	// kubectl's own command, for its help texts.
	kc := kubectlattach.NewCmdAttach(f, streams)
	cmd := &cobra.Command{
		Use:                   "attach (POD | TYPE/NAME) -C CLUSTER [-c CONTAINER]",
		DisableFlagsInUseLine: true,
		Short:                 "Attach to a running container of a member cluster",
		Long: `Attach to a process that is already running inside an existing container of a member
cluster, as kubectl attach does. -C names the member; fed's cluster proxy reaches it acting
as you.`,
		Example:           fedExamples(kc.Example, "attach"),
		ValidArgsFunction: completion.PodResourceNameCompletionFunc(f),
		PreRunE:           requireMember(configFlags, &clusters),
		Run: func(cmd *cobra.Command, args []string) {
			name, _ := oneMember(&clusters)
			o.CommandName = cmd.CommandPath() + " -C " + name
			cmdutil.CheckErr(o.Complete(f, cmd, args))
			cmdutil.CheckErr(o.Validate())
			cmdutil.CheckErr(o.Run())
		},
	}
	// kubectl attach's flags.
	cmdutil.AddPodRunningTimeoutFlag(cmd, 60*time.Second)
	cmdutil.AddContainerVarFlags(cmd, &o.ContainerName, o.ContainerName)
	cmdutil.CheckErr(cmd.RegisterFlagCompletionFunc("container", completion.ContainerCompletionFunc(f)))
	cmd.Flags().BoolVarP(&o.Stdin, "stdin", "i", o.Stdin, "Pass stdin to the container")
	cmd.Flags().BoolVarP(&o.TTY, "tty", "t", o.TTY, "Stdin is a TTY")
	cmd.Flags().BoolVarP(&o.Quiet, "quiet", "q", o.Quiet, "Only print output from the remote session")
	cmd.Flags().StringVar(&o.DetachKeys, "detach-keys", "ctrl-p,ctrl-q", "Override the key sequence for detaching a container")
	addMemberFlag(cmd, &clusters)
	return cmd
}
