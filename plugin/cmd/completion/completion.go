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

package completion

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// CompletionScript is kubectl_complete-fed, shipped next to kubectl-fed: kubectl (1.26 and
// later) completes `kubectl fed …` by running it with the words typed so far, and cobra
// answers them in kubectl-fed's hidden __complete command.
const CompletionScript = `#!/bin/sh
# Shell completion of kubectl fed, for kubectl's plugin completion (kubectl 1.26+).
exec kubectl-fed __complete "$@"
`

// NewCmdCompletion is `kubectl fed completion SHELL`: cobra's completion scripts, for when
// kubectl-fed is run by that name, and the way to complete `kubectl fed`.
func NewCmdCompletion(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "completion bash|zsh|fish|powershell",
		DisableFlagsInUseLine: true,
		Short:                 "Print the shell completion script of kubectl-fed",
		Long: `Shell completion.

For "kubectl fed <TAB>": kubectl 1.26 and later complete a plugin by running an executable
named kubectl_complete-fed found on the PATH. The release archives (and krew) install it
next to kubectl-fed; it is the two-line script

` + indent(CompletionScript) + `
so with kubectl's own completion loaded (source <(kubectl completion bash)), nothing else is
needed. Without the archive, save the script above as kubectl_complete-fed somewhere on the
PATH and make it executable.

For "kubectl-fed <TAB>" (the plugin run by its own name), load the script this command
prints, e.g. source <(kubectl fed completion bash).`,
		Example: `  # bash, for the current shell
  source <(kubectl fed completion bash)

  # zsh, once
  kubectl fed completion zsh > "${fpath[1]}/_kubectl-fed"`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
			return fmt.Errorf("unsupported shell %q", args[0])
		},
	}
	return cmd
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
