package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/fedhq/fed/apiserver/storage/badger"
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
	cmd.AddCommand(newBackupCommand(stdout), newRestoreCommand(stdout))
	return cmd
}

// newBackupCommand is fed-apiserver backup: Badger's backup of the database in --data-dir.
func newBackupCommand(stdout io.Writer) *cobra.Command {
	var dataDir, output string
	cmd := &cobra.Command{
		Use:   "backup --data-dir DIR -o FILE",
		Short: "Write a backup of the Badger database in --data-dir to a file, while fed-apiserver runs or not",
		Long: `backup writes every object of fed-apiserver's Badger database (the fleet's templates, fed's
objects, their history and revisions) to FILE, or to standard output with -o -, in Badger's
backup format, as of one revision: the newest when the backup starts.

While fed-apiserver runs, it takes the backup itself (Badger lets one process open a data
directory): backup asks it on the unix socket <data-dir>/backup.sock, and writes go on
meanwhile; those after the backup's revision are not in it. Whoever may use that socket
(mode 0600, the user fed-apiserver runs as) may take a backup. When no fed-apiserver runs,
backup opens the directory itself. Both write the same format, which restore loads.

The search cache (<data-dir>/search-cache) is not backed up: it is filled again from the
members.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || output == "" {
				return errors.New("--data-dir and -o are required")
			}
			w, closeOut, err := createOutput(output, stdout)
			if err != nil {
				return err
			}
			rev, err := badger.Backup(dataDir, w)
			if err = errors.Join(err, closeOut()); err != nil {
				if output != "-" {
					_ = os.Remove(output)
				}
				return err
			}
			if output != "-" {
				fmt.Fprintf(stdout, "backed up %s at revision %d to %s\n", dataDir, rev, output)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "Directory of the Badger database, as given to fed-apiserver.")
	cmd.Flags().StringVarP(&output, "output", "o", "", "The backup file to write (it must not exist), or - for standard output.")
	return cmd
}

// createOutput opens the backup's file (never one that exists) or standard output.
func createOutput(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	return bw, func() error { return errors.Join(bw.Flush(), f.Sync(), f.Close()) }, nil
}

// newRestoreCommand is fed-apiserver restore: a backup loaded into a new --data-dir.
func newRestoreCommand(stdout io.Writer) *cobra.Command {
	var dataDir, file string
	cmd := &cobra.Command{
		Use:   "restore --data-dir DIR -f FILE",
		Short: "Load a backup into a new data directory for fed-apiserver",
		Long: `restore loads a file that fed-apiserver backup wrote into --data-dir, which must be empty or
not exist yet (restore never writes over a database). Start fed-apiserver on that directory
afterwards. Its history before the backup is compacted: clients watching from an older
resourceVersion get 410 Gone and list again, as after an etcd restore.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || file == "" {
				return errors.New("--data-dir and -f are required")
			}
			var in io.Reader = os.Stdin
			if file != "-" {
				f, err := os.Open(file)
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			rev, err := badger.Restore(dataDir, in)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "restored %s into %s at revision %d\n", file, dataDir, rev)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "The new data directory (empty or absent).")
	cmd.Flags().StringVarP(&file, "filename", "f", "", "The backup file; - reads it from standard input (e.g. through kubectl exec -i).")
	return cmd
}
