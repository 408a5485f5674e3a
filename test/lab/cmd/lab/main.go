// Command lab starts and stops the local lab of real clusters (make up, make down).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fedhq/fed/test/lab"
)

func main() {
	if err := newCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func newCommand() *cobra.Command {
	opts := lab.Options{Dir: ".lab", BinDir: "bin", Detach: true, Out: os.Stdout}
	root := &cobra.Command{
		Use:           "lab",
		Short:         "Run the local lab: one etcd, a host cluster and three member clusters on loopback",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&opts.Dir, "dir", opts.Dir, "the lab's state directory")
	root.PersistentFlags().StringVar(&opts.BinDir, "bin", opts.BinDir, "directory of the lab's binaries (make bin)")
	root.PersistentFlags().DurationVar(&opts.Timeout, "timeout", 0, "how long to wait for the lab to be ready (default 3m)")
	var nodes string

	up := &cobra.Command{
		Use:   "up",
		Short: "Start whatever part of the lab is not running and wait until it is ready",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch nodes {
			case "kwok":
			case "real":
				opts.RealNode = true
			default:
				return fmt.Errorf("--nodes=%s: want kwok (the members' simulated nodes only) or real (a real node too, in the install host)", nodes)
			}
			switch opts.FedStorage {
			case "", lab.StorageBadger, lab.StorageEtcd3:
			default:
				return fmt.Errorf("--fed-storage=%s: want %s or %s", opts.FedStorage, lab.StorageBadger, lab.StorageEtcd3)
			}
			l, err := lab.New(opts)
			if err != nil {
				return err
			}
			ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			if err := l.Up(ctx); err != nil {
				if se := (*lab.StorageError)(nil); errors.As(err, &se) {
					return err
				}
				return fmt.Errorf("%w\nThe lab is partly up: `make down` stops it; logs are in %s/logs", err, l.Dir())
			}
			printUsage(l, opts.BinDir)
			return nil
		},
	}
	up.Flags().IntVar(&opts.Members, "members", 3, "how many member clusters: member1..3 as the tests know them, and light ones past them (a kube-apiserver, kwok and a namespace controller each), for the scale benches")
	up.Flags().StringVar(&opts.FedStorage, "fed-storage", "", "fed-apiserver's storage backend: badger (its data in <dir>/fed/data) or etcd3 (the lab's etcd, under /fed); by default the one the lab last ran with, badger at first")
	up.Flags().StringVar(&nodes, "nodes", "kwok", "kwok, or real to add a real node (a kubelet with containerd, whose pods run) in a cluster of its own, the install host")
	root.AddCommand(up)
	root.AddCommand(&cobra.Command{
		Use:   "down",
		Short: "Stop every process the lab started (its state directory stays)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.New(opts)
			if err != nil {
				return err
			}
			return l.Down()
		},
	})
	root.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Print whether each process of the lab runs",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.New(opts)
			if err != nil {
				return err
			}
			return l.PrintStatus(os.Stdout)
		},
	})
	root.AddCommand(&cobra.Command{
		Use:   "env",
		Short: "Print the lab's addresses an install on the install host needs, as shell assignments (eval \"$(bin/lab env)\")",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.New(opts)
			if err != nil {
				return err
			}
			if !l.RealNode() {
				return fmt.Errorf("the lab has no install host: make up NODES=real")
			}
			fmt.Printf("NODE_IP=%s\nFED_POD_PORT=%d\nINSTALL_API_PORT=%d\nETCD_URL=%s\n", lab.NodeIP, l.FedPodPort(), l.InstallHost.Port, l.EtcdURL())
			return nil
		},
	})
	for _, verb := range []string{"stop", "start"} {
		root.AddCommand(&cobra.Command{
			Use:   verb + " PROCESS",
			Short: verb + " one process of the lab, e.g. member2-apiserver",
			Args:  cobra.ExactArgs(1),
			RunE: func(_ *cobra.Command, args []string) error {
				l, err := lab.New(opts)
				if err != nil {
					return err
				}
				if verb == "stop" {
					return l.StopProcess(args[0])
				}
				return l.StartProcess(args[0])
			},
		})
	}
	root.SetContext(context.Background())
	return root
}

func printUsage(l *lab.Lab, binDir string) {
	fmt.Printf("\nThe lab is up. Its kubeconfigs (admin of each cluster):\n")
	for _, c := range l.Clusters() {
		fmt.Printf("  %-8s %s  (%s)\n", c.Name, c.Kubeconfig, c.URL())
	}
	if l.RealNode() {
		c := l.InstallHost
		fmt.Printf("  %-8s %s  (%s; the real node %s, where fed is installed as users install it)\n", c.Name, c.Kubeconfig, c.URL(), lab.NodeName)
	}
	bin, err := filepath.Abs(binDir)
	if err != nil {
		bin = binDir
	}
	if l.FedStorage() != lab.StorageBadger {
		fmt.Printf("\nfed-apiserver stores the fleet in the lab's etcd (%s); `make down`, then `make up FED_STORAGE=badger`, goes back to Badger.\n", l.FedStorage())
	}
	fmt.Printf("\nmember1..3 are joined to fed (kubectl fed join). Try:\n")
	fmt.Printf("  export PATH=%s:$PATH KUBECONFIG=%s   # the lab's kubectl and kubectl-fed, the host\n", bin, l.Host.Kubeconfig)
	fmt.Printf("  kubectl get clusters                    # the members, their mode and readiness\n")
	fmt.Printf("  kubectl fed cordon member3              # keep new workloads off member3 (kubectl fed uncordon member3)\n")
	fmt.Printf("  kubectl --kubeconfig %s apply -f artifacts/examples/nginx.yaml\n", l.FleetKubeconfig())
	fmt.Printf("  kubectl --kubeconfig %s get deploy -A   # the fleet: templates, never run in the host\n", l.FleetKubeconfig())
	fmt.Printf("  kubectl --kubeconfig %s get nodes -L topology.kubernetes.io/region\n", l.Member("member1").Kubeconfig)
	fmt.Printf("\n`make down` stops the lab.\n")
}
