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
// member clusters of a fed host cluster, one package per verb or family of verbs below this
// one. Each is cobra glue, Options with Complete(cmd, args), Validate() and Run(ctx); the work
// is in the library packages of plugin/: cmdline (the root and kubectl's command-line
// conventions), fleet (reaching the fleet API and the members), listing (what get and search
// query and print), completing, tables, watching, searching, member, bootstrap, taints,
// install and buildinfo.
package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/fedhq/fed/plugin/cmd/apply"
	"github.com/fedhq/fed/plugin/cmd/completion"
	"github.com/fedhq/fed/plugin/cmd/convert"
	"github.com/fedhq/fed/plugin/cmd/get"
	"github.com/fedhq/fed/plugin/cmd/install"
	"github.com/fedhq/fed/plugin/cmd/interpret"
	"github.com/fedhq/fed/plugin/cmd/kubeconfig"
	"github.com/fedhq/fed/plugin/cmd/kubectl"
	"github.com/fedhq/fed/plugin/cmd/membership"
	"github.com/fedhq/fed/plugin/cmd/promote"
	"github.com/fedhq/fed/plugin/cmd/search"
	"github.com/fedhq/fed/plugin/cmd/taint"
	"github.com/fedhq/fed/plugin/cmd/top"
	"github.com/fedhq/fed/plugin/cmd/version"
	"github.com/fedhq/fed/plugin/cmdline"
)

// NewCmdFed is `kubectl fed`: the root command (cmdline.NewRoot) with every command.
func NewCmdFed(streams genericiooptions.IOStreams) *cobra.Command {
	cmd, configFlags := cmdline.NewRoot(streams)
	cmd.AddCommand(
		install.NewCmdInit(configFlags, streams),
		install.NewCmdDeinit(configFlags, streams),
		membership.NewCmdJoin(configFlags, streams),
		membership.NewCmdUnjoin(configFlags, streams),
		membership.NewCmdToken(configFlags, streams),
		membership.NewCmdRegister(configFlags, streams),
		membership.NewCmdUnregister(configFlags, streams),
		taint.NewCmdTaint(configFlags, streams),
		taint.NewCmdCordon(configFlags, streams),
		taint.NewCmdUncordon(configFlags, streams),
		kubeconfig.NewCmdKubeconfig(configFlags, streams),
		get.NewCmdGet(configFlags, streams),
		search.NewCmdSearch(configFlags, streams),
		kubectl.NewCmdExec(configFlags, streams),
		kubectl.NewCmdLogs(configFlags, streams),
		kubectl.NewCmdAttach(configFlags, streams),
		kubectl.NewCmdDescribe(configFlags, streams),
		top.NewCmdTop(configFlags, streams),
		apply.NewCmdApply(configFlags, streams),
		promote.NewCmdPromote(configFlags, streams),
		interpret.NewCmdInterpret(streams),
		convert.NewCmdConvert(streams),
		convert.NewCmdMigrate(configFlags, streams),
		version.NewCmdVersion(configFlags, streams),
		completion.NewCmdCompletion(streams),
	)
	return cmd
}
