package app

import (
	"io"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// NewCommand returns fed-apiserver's command.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	o := NewOptions(stdout, stderr)
	logOptions := logs.NewOptions()
	cmd := &cobra.Command{
		Use:   "fed-apiserver",
		Short: "fed's extension API server: fleet membership, policies and templates, served through the host cluster's aggregation layer",
		Long: `fed-apiserver serves the cluster.fedhq.io, federation.fedhq.io and search.fedhq.io API groups. It runs
beside a host cluster, which forwards these groups to it through an APIService; requests are
authenticated and authorized by the host (delegated authentication and authorization).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := logsapi.ValidateAndApply(logOptions, nil); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			ctx := genericapiserver.SetupSignalContext()
			return o.Run(ctx)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs)
	logsapi.AddFlags(logOptions, fs)
	globalflag.AddGlobalFlags(fs, cmd.Name())
	return cmd
}
