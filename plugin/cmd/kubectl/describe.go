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
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	kubectldescribe "k8s.io/kubectl/pkg/cmd/describe"
	"k8s.io/kubectl/pkg/util/completion"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

const describeExamples = `
  # Describe a pod of member1
  kubectl fed describe pod nginx-5869d7778c-x2x7q -C member1

  # Describe the deployment nginx in member1 and member2, each headed by its cluster
  kubectl fed describe deployment nginx -C member1,member2

  # Describe the nodes of every member cluster
  kubectl fed describe nodes --all-clusters`

// DescribeOptions are the inputs of `kubectl fed describe`: kubectl describe's flags and
// the member clusters.
type DescribeOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	Flags       *kubectldescribe.DescribeFlags
	Clusters    fleet.ClusterFlags
	// Parent is the command kubectl's hints name: "kubectl" (kubectl api-resources).
	Parent string
	// Args are kubectl describe's: TYPE [NAME_PREFIX] or TYPE/NAME.
	Args []string
}

// NewCmdDescribe is `kubectl fed describe (TYPE [NAME_PREFIX | -l label] | TYPE/NAME)
// -C CLUSTER[,…] | --all-clusters`.
func NewCmdDescribe(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DescribeOptions{IOStreams: streams, ConfigFlags: configFlags, Flags: kubectldescribe.NewDescribeFlags(nil, streams), Parent: "kubectl"}
	// The factory of the first member named, for completion.
	f := fleet.NewMemberFactory(configFlags, func() string {
		if len(o.Clusters.Clusters) > 0 {
			return o.Clusters.Clusters[0]
		}
		return ""
	})
	kc := kubectldescribe.NewCmdDescribe(o.Parent, f, streams)
	cmd := &cobra.Command{
		Use:                   "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) (-C CLUSTER[,CLUSTER…] | --all-clusters)",
		DisableFlagsInUseLine: true,
		Short:                 "Show details of resources of member clusters",
		Long: kc.Long + `

kubectl fed describe describes the resources in the member clusters -C names, or in every
member with --all-clusters; with more than one member, each member's output is headed by
"Cluster: NAME".`,
		Example:           strings.TrimPrefix(describeExamples, "\n") + "\n\n" + fedExamples(kc.Example, "describe"),
		ValidArgsFunction: completion.ResourceTypeAndNameCompletionFunc(f),
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
	o.Flags.AddFlags(cmd)
	o.Clusters.AddFlags(cmd.Flags(), "Describe in every member cluster.")
	return cmd
}

// Complete takes kubectl describe's arguments.
func (o *DescribeOptions) Complete(_ *cobra.Command, args []string) error {
	o.Args = args
	return nil
}

// Validate needs at least one member.
func (o *DescribeOptions) Validate() error {
	if !o.Clusters.Selected() {
		return fmt.Errorf("specify the member clusters with -C NAME[,NAME…] or --all-clusters (kubectl get clusters lists them)")
	}
	return nil
}

// Run describes in each member: kubectl describe itself with one member, each member's
// output headed by its name with several.
func (o *DescribeOptions) Run(ctx context.Context) error {
	clusters, err := o.Clusters.Resolve(ctx, o.ConfigFlags, false)
	if err != nil {
		return err
	}
	if len(clusters) == 1 && !o.Clusters.All {
		return o.describe(clusters[0], o.IOStreams)
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	type output struct{ out, errOut bytes.Buffer }
	results := fleet.FanOut(ctx, host, clusters, func(_ context.Context, cluster string, _ *rest.Config) (*output, error) {
		var b output
		return &b, o.describe(cluster, genericiooptions.IOStreams{In: o.In, Out: &b.out, ErrOut: &b.errOut})
	})
	var errs []error
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		fmt.Fprintf(o.Out, "Cluster: %s\n", r.Cluster)
		if r.Value != nil {
			_, _ = o.Out.Write(r.Value.out.Bytes())
			if n := r.Value.out.Len(); n > 0 && r.Value.out.Bytes()[n-1] != '\n' {
				fmt.Fprintln(o.Out)
			}
			_, _ = o.ErrOut.Write(r.Value.errOut.Bytes())
		}
		if r.Err != nil {
			fmt.Fprintf(o.ErrOut, "%s: %s\n", r.Cluster, cmdline.ErrorMessage(r.Err))
			errs = append(errs, r.Err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("describe failed in %d of %d member clusters", len(errs), len(clusters))
	}
	return nil
}

// describe runs kubectl describe in one member.
func (o *DescribeOptions) describe(cluster string, streams genericiooptions.IOStreams) error {
	flags := *o.Flags
	flags.DescriberSettings = ptr.To(*o.Flags.DescriberSettings) // a copy: kubectl's Run changes it
	flags.Factory = newMemberFactory(o.ConfigFlags, cluster)
	flags.IOStreams = streams
	opts, err := flags.ToOptions(o.Parent, o.Args)
	if err != nil {
		return err
	}
	opts.CmdParent = o.Parent
	if err := opts.Validate(); err != nil {
		return err
	}
	return utilerrors.Reduce(opts.Run())
}
