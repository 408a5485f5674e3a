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

package apply

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/cmd/apply"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
)

// NewCmdApply is `kubectl fed apply`: kubectl's own apply, against the fleet API.
func NewCmdApply(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	f := cmdutil.NewFactory(fleet.NewFleetGetter(configFlags))
	cmd := apply.NewCmdApply("kubectl fed", f, streams)
	cmd.Short = "Apply a configuration to templates of the fleet by file name or stdin"
	cmd.Long = fmt.Sprintf(`Apply a configuration to templates of the fleet by file name or stdin.

This is kubectl apply, with every flag of it (-f, -k, -R, --server-side, --dry-run, --prune,
…), against the fleet API: the host cluster's URL followed by

  %s

The objects become templates stored by fed; nothing is created in the host cluster. A
PropagationPolicy then says which member clusters they go to.`, federationv1alpha1.FleetPath)
	cmd.Example = `  # Apply the templates of a file, and a policy placing them
  kubectl fed apply -f nginx.yaml -f nginx-policy.yaml

  # Every manifest of a directory tree, with server-side apply
  kubectl fed apply -R -f manifests/ --server-side

  # What would change, checked by fed-apiserver
  kubectl fed apply -f nginx.yaml --dry-run=server`
	return cmd
}
