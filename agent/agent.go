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

// Package agent is fed-agent, which runs in a pull cluster: it reaches the host with the
// client certificate `kubectl fed register` obtained (kept in a Secret in its cluster and
// renewed before it expires), and runs the controllers of a pull cluster
// (pullagent.StartAgent): it applies the Works of its cluster, reports their status and
// its cluster's health, and renews its Lease in the host. It holds a tunnel open to
// fed-apiserver, through which fed reaches the cluster's API server (the cluster proxy,
// kubectl fed get/logs/exec, search, metrics). The host holds no credentials for the
// cluster.
package agent

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/pullagent"
)

// Options are fed-agent's flags.
type Options struct {
	// Kubeconfig reaches the agent's own cluster; empty: the in-cluster configuration.
	Kubeconfig string
	// HostSecret is the agent's Secret in its cluster (namespace/name): its kubeconfig for
	// the host and its cluster's name.
	HostSecret string
	// ClusterName, when set, must be the name in the Secret.
	ClusterName string
	// ProbeInterval and LeaseDuration tune the probes of the cluster and the renewal of
	// the Lease (pullagent.AgentConfig).
	ProbeInterval, LeaseDuration time.Duration
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{HostSecret: clusterv1alpha1.FedNamespace + "/" + clusterv1alpha1.AgentSecret}
}

// AddFlags adds the options' flags to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig of the agent's own cluster; empty: the in-cluster configuration of its pod")
	fs.StringVar(&o.HostSecret, "host-secret", o.HostSecret,
		"namespace/name of the Secret in the agent's cluster that kubectl fed register wrote: the agent's kubeconfig for the host and its cluster's name")
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "the cluster's name in the fleet; when set, it must be the one the Secret names")
	fs.DurationVar(&o.ProbeInterval, "probe-interval", o.ProbeInterval, "how often the agent probes its cluster (0: 5s)")
	fs.DurationVar(&o.LeaseDuration, "lease-duration", o.LeaseDuration,
		"the duration the agent writes in its Lease; it renews it every quarter of that (0: 40s)")
}

// Validate checks the flags.
func (o *Options) Validate() error {
	ns, name, ok := strings.Cut(o.HostSecret, "/")
	if !ok || ns == "" || name == "" {
		return fmt.Errorf("--host-secret %q: want namespace/name", o.HostSecret)
	}
	if o.ClusterName != "" {
		if errs := validation.IsDNS1123Label(o.ClusterName); len(errs) > 0 {
			return fmt.Errorf("--cluster-name %q: %s", o.ClusterName, strings.Join(errs, "; "))
		}
	}
	return nil
}

// Run runs the agent until ctx is done.
func (o *Options) Run(ctx context.Context) error {
	member, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return fmt.Errorf("reaching the agent's own cluster: %w", err)
	}
	memberClient, err := kubernetes.NewForConfig(member)
	if err != nil {
		return err
	}
	ns, name, _ := strings.Cut(o.HostSecret, "/")
	store := &secretStore{client: memberClient, namespace: ns, name: name}
	id, err := store.load(ctx)
	if err != nil {
		return err
	}
	switch {
	case id.Cluster == "":
		return fmt.Errorf("the agent's Secret %s names no cluster (key %s)", o.HostSecret, clusterv1alpha1.AgentSecretClusterKey)
	case o.ClusterName != "" && o.ClusterName != id.Cluster:
		return fmt.Errorf("--cluster-name %s, but the agent's Secret %s is cluster %s's", o.ClusterName, o.HostSecret, id.Cluster)
	}
	certs, err := newCertificateManager(id, store)
	if err != nil {
		return err
	}
	certs.Start()
	defer certs.Stop()
	host, err := hostConfig(ctx, id, certs)
	if err != nil {
		return err
	}
	host.UserAgent = "fed-agent/" + id.Cluster
	if err := holdTunnel(ctx, id, certs, member); err != nil {
		return err
	}
	if err := pullagent.StartAgent(ctx, pullagent.AgentConfig{Cluster: id.Cluster, Host: host, Member: member,
		ProbeInterval: o.ProbeInterval, LeaseDuration: o.LeaseDuration}); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("fed-agent runs", "cluster", id.Cluster, "host", id.Server)
	<-ctx.Done()
	return nil
}

// NewCommand returns fed-agent's command.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	o := NewOptions()
	logOptions := logs.NewOptions()
	cmd := &cobra.Command{
		Use:   "fed-agent",
		Short: "fed's agent in a pull cluster: applies its cluster's Works and reports its status to the host",
		Long: `fed-agent runs in a member cluster registered in pull mode (kubectl fed register). It connects
out to the host with the client certificate kept in its Secret (renewed before it expires), applies
the Works fed scheduled to its cluster, reports their status and the cluster's health, and renews
its Lease in the host, which marks the cluster not Ready when the agent stops. The host holds no
credentials for the cluster. While the host cannot be reached, what the agent applied stays as it is.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := logsapi.ValidateAndApply(logOptions, nil); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(signalContext())
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	fs := cmd.Flags()
	o.AddFlags(fs)
	logsapi.AddFlags(logOptions, fs)
	globalflag.AddGlobalFlags(fs, cmd.Name())
	return cmd
}

// signalContext is done at the first SIGTERM or interrupt; a second one ends the process at
// once, as the signals' default does.
func signalContext() context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx
}
