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

package version

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/plugin/buildinfo"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// Versions is what `kubectl fed version -o json|yaml` prints.
type Versions struct {
	// ClientVersion is kubectl-fed's.
	ClientVersion *apimachineryversion.Info `json:"clientVersion,omitempty"`
	// ServerVersion is fed-apiserver's, as it answers /version?server=fed-apiserver under
	// the fleet path.
	ServerVersion *apimachineryversion.Info `json:"serverVersion,omitempty"`
	// HostVersion is the host cluster's kube-apiserver's.
	HostVersion *apimachineryversion.Info `json:"hostVersion,omitempty"`
}

// VersionOptions are the inputs of `kubectl fed version`.
type VersionOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	ClientOnly bool
	Output     string

	// serverVersion asks a server at cfg for its version; a test may replace it.
	serverVersion func(cfg *rest.Config) (*apimachineryversion.Info, error)
}

// NewCmdVersion is `kubectl fed version [--client] [-o json|yaml]`.
func NewCmdVersion(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &VersionOptions{IOStreams: streams, ConfigFlags: configFlags, serverVersion: serverVersion}
	cmd := &cobra.Command{
		Use:                   "version [--client] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 "Print the versions of kubectl fed, fed-apiserver and the host cluster",
		Long: `Print the version of kubectl fed and, unless --client is given, those of fed-apiserver
(asked through the fleet API) and of the host cluster's API server.

If a server cannot be reached, the versions known are printed and the command fails.`,
		Example: `  # Every version
  kubectl fed version

  # Only the plugin's, as JSON
  kubectl fed version --client -o json`,
		ValidArgsFunction: cobra.NoFileCompletions,
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
	cmd.Flags().BoolVar(&o.ClientOnly, "client", false, "If true, print the client version only (no server required).")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "One of 'yaml' or 'json'.")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete refuses arguments: the command takes none.
func (o *VersionOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		return cmdline.UsageError(cmd, "unexpected arguments: %s", strings.Join(args, " "))
	}
	return nil
}

// Validate checks the output format.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "yaml" && o.Output != "json" {
		return errors.New(`--output must be 'yaml' or 'json'`)
	}
	return nil
}

// Run asks the servers for their versions and prints them with the client's. The
// versions it got are printed even when a server did not answer; the error then follows.
func (o *VersionOptions) Run(_ context.Context) error {
	client := buildinfo.Version()
	v := Versions{ClientVersion: &client}
	var errs []error
	if !o.ClientOnly {
		v.ServerVersion, v.HostVersion, errs = o.serverVersions()
	}
	switch o.Output {
	case "":
		fmt.Fprintf(o.Out, "Client Version: %s\n", v.ClientVersion.GitVersion)
		if v.ServerVersion != nil {
			fmt.Fprintf(o.Out, "Server Version: %s\n", v.ServerVersion.GitVersion)
		}
		if v.HostVersion != nil {
			fmt.Fprintf(o.Out, "Host Version: %s\n", v.HostVersion.GitVersion)
		}
	case "json":
		data, err := json.MarshalIndent(&v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.Out, string(data))
	case "yaml":
		data, err := yaml.Marshal(&v)
		if err != nil {
			return err
		}
		fmt.Fprint(o.Out, string(data))
	}
	return errors.Join(errs...)
}

// serverVersions asks fed-apiserver (through the fleet path) and the host.
func (o *VersionOptions) serverVersions() (fed, host *apimachineryversion.Info, errs []error) {
	hostCfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, []error{err}
	}
	fleetCfg, err := fleet.FleetConfig(hostCfg)
	if err != nil {
		return nil, nil, []error{err}
	}
	// The host first: when it cannot be reached, neither can fed-apiserver behind it.
	if host, err = o.serverVersion(hostCfg); err != nil {
		return nil, nil, []error{fmt.Errorf("the host cluster's version: %w", err)}
	}
	if fed, err = o.serverVersion(fleetCfg); err != nil {
		fed = nil
		errs = append(errs, fmt.Errorf("fed-apiserver's version, through %s: %w", fleetCfg.Host, err))
	}
	return fed, host, errs
}

// serverVersion is GET /version of the server at cfg; under the fleet path, fed-apiserver's
// own (the fleet's /version is the host's, whose API it serves).
func serverVersion(cfg *rest.Config) (*apimachineryversion.Info, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.TrimSuffix(cfg.Host, "/"), federationv1alpha1.FleetPath) {
		return dc.ServerVersion()
	}
	body, err := dc.RESTClient().Get().AbsPath("/version").Param("server", federationv1alpha1.FleetVersionOfFed).Do(context.TODO()).Raw()
	if err != nil {
		return nil, err
	}
	var info apimachineryversion.Info
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, fmt.Errorf("decoding fed-apiserver's version: %w", err)
	}
	return &info, nil
}
