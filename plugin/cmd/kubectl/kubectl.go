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
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/fedhq/fed/plugin/fleet"
)

// exec, attach, logs and describe are kubectl's own commands (k8s.io/kubectl/pkg/cmd/...),
// run with a cmdutil.Factory whose REST config is a member's proxy config: flags,
// behaviour and errors are kubectl's, and the plugin adds -C to choose the member.

// newMemberFactory is a kubectl factory on member cluster.
func newMemberFactory(configFlags *genericclioptions.ConfigFlags, cluster string) cmdutil.Factory {
	return fleet.NewMemberFactory(configFlags, func() string { return cluster })
}

// addMemberFlag adds -C/--clusters for a command working on one member, as the fan-out
// commands spell it; --cluster is accepted too.
func addMemberFlag(cmd *cobra.Command, f *fleet.ClusterFlags) {
	cmd.Flags().StringSliceVarP(&f.Clusters, "clusters", "C", nil, "The member cluster of the pod (kubectl fed get pods lists them).")
	// The same value: -C a --cluster b names a and b.
	cmd.Flags().AddFlag(&pflag.Flag{Name: "cluster", Value: cmd.Flags().Lookup("clusters").Value, Hidden: true,
		Usage: "The member cluster of the pod; the same as -C."})
}

// errNoMember is the usage error of a command on one pod without its member.
const errNoMember = "specify the member cluster of the pod with -C NAME (kubectl fed get pods lists them)"

// oneMember checks that exactly one member was chosen, without asking any server.
func oneMember(f *fleet.ClusterFlags) (string, error) {
	switch {
	case f.All:
		return "", fmt.Errorf("--all-clusters is not supported here: %s", errNoMember)
	case len(f.Clusters) == 0:
		return "", fmt.Errorf("%s", errNoMember)
	case len(f.Clusters) > 1:
		return "", fmt.Errorf("the pod is in one member cluster, got -C %s: %s", strings.Join(f.Clusters, ","), errNoMember)
	case f.Clusters[0] == "":
		return "", fmt.Errorf("%s", errNoMember)
	}
	return f.Clusters[0], nil
}

// fedExamples turns kubectl's examples of verb into kubectl fed's: "kubectl VERB …"
// becomes "kubectl fed VERB -C member1 …".
func fedExamples(examples, verb string) string {
	return strings.ReplaceAll(examples, "kubectl "+verb+" ", "kubectl fed "+verb+" -C member1 ")
}
