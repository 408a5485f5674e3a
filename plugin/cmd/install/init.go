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

package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/fedhq/fed/plugin/buildinfo"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/install"
)

// InitOptions are the inputs of `kubectl fed init`.
type InitOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	Storage         string
	EtcdServers     []string
	EtcdCertsSecret string
	Replicas        int
	Image           string
	Set             []string
	RenewCerts      bool
	ForceConflicts  bool
	Wait            bool
	WaitTimeout     time.Duration

	dryRun     cmdutil.DryRunStrategy
	settings   install.Settings
	host       *install.Host
	apiservice apiregistrationclient.APIServiceInterface
	printer    printers.ResourcePrinter // for -o json, yaml, …: one for every object
}

// NewCmdInit is `kubectl fed init`.
func NewCmdInit(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &InitOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags(""),
		Storage: install.StorageBadger, ForceConflicts: true, Wait: true, WaitTimeout: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:                   "init [--storage=badger|etcd3 --etcd-servers URL,...] [--image IMAGE] [--dry-run=server|client]",
		DisableFlagsInUseLine: true,
		Short:                 "Install fed into the host cluster",
		Long: `Install fed into the host cluster: fed-apiserver in the namespace fed-system, its service
account and RBAC, its Service, the Secret of its serving certificate and the APIServices that
register fed's API groups (cluster.fedhq.io, federation.fedhq.io, search.fedhq.io) in the
host's aggregation layer. The objects are those of fed's Helm chart (artifacts/charts/fed,
built into kubectl fed), applied with server-side apply as the field manager kubectl-fed;
init then waits until the host serves fed's APIs and says how to join member clusters.

The serving certificate is made by init: a self-signed CA, which the APIServices trust, and
a certificate for fed-apiserver.fed-system.svc, both valid ten years; the CA's key is not
kept. Run again, init reuses the certificate of the Secret fed-apiserver-serving and changes
nothing that is as it should be; it refuses a Secret whose certificate is not usable (or
expires within 30 days) unless --renew-certs. To bring your own certificate, create that
Secret (tls.crt, tls.key, ca.crt) before init.

Storage is Badger by default: one replica (a StatefulSet) with its database on a
PersistentVolumeClaim, which needs a default StorageClass. --storage=etcd3 runs a Deployment
of --replicas (2 by default) on an existing etcd. Other values of the chart (values.yaml)
are set with --set, as with helm.

Before changing anything, init applies every object with a server-side dry run, so that the
host refuses all or none. --dry-run=server stops there and prints what init would do;
--dry-run=client prints the objects without asking the host.`,
		Example: `  # Install fed with Badger storage and wait until its APIs are served
  kubectl fed init

  # What init would create or change, checked by the host
  kubectl fed init --dry-run=server

  # Two replicas on an existing etcd, with etcd's client certificates in a Secret of fed-system
  kubectl fed init --storage=etcd3 --etcd-servers=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379 \
    --etcd-certs-secret=etcd-client

  # An image of your registry, a StorageClass and a larger volume
  kubectl fed init --image=registry.example.com/fed-apiserver:v0.1.0 \
    --set storage.badger.storageClass=standard --set storage.badger.size=50Gi

  # The objects as YAML, without asking the host
  kubectl fed init --dry-run=client > fed.yaml`,
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
	o.PrintFlags.AddFlags(cmd)
	cmdutil.AddDryRunFlag(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Storage, "storage", o.Storage, "Storage of fed-apiserver: badger (embedded, one replica) or etcd3 (an existing etcd, several replicas).")
	f.StringSliceVar(&o.EtcdServers, "etcd-servers", nil, "Client URLs of the etcd that --storage=etcd3 uses, comma-separated.")
	f.StringVar(&o.EtcdCertsSecret, "etcd-certs-secret", "", "Secret of fed-system with ca.crt, tls.crt and tls.key for etcd's client TLS (--storage=etcd3).")
	f.IntVar(&o.Replicas, "replicas", 0, "Replicas of fed-apiserver: only 1 with Badger; 2 by default with etcd3.")
	f.StringVar(&o.Image, "image", "", "fed-apiserver's image, REPOSITORY[:TAG]. Default: the chart's repository with the tag of this kubectl-fed's release (the chart's appVersion for a build between releases).")
	f.StringArrayVar(&o.Set, "set", nil, "Set a value of the chart, as helm --set does (key=value, comma-separated; repeat for more).")
	f.BoolVar(&o.RenewCerts, "renew-certs", false, "Replace the serving certificate and its CA by new ones even when the Secret's are usable.")
	f.BoolVar(&o.ForceConflicts, "force-conflicts", o.ForceConflicts, "Take over fields of fed's objects that another manager (helm, kubectl, an earlier install) set to other values, warning about each; false refuses them.")
	f.BoolVar(&o.Wait, "wait", o.Wait, "Wait until the host serves fed's APIs (its APIServices are Available).")
	f.DurationVar(&o.WaitTimeout, "wait-timeout", o.WaitTimeout, "How long --wait waits.")
	return cmd
}

// Complete reads the dry-run strategy, sets the chart's settings from the flags and, unless
// a client dry run, makes the host's clients.
func (o *InitOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		return cmdline.UsageError(cmd, "init takes no arguments, got %q", args)
	}
	var err error
	if o.dryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	if o.dryRun == cmdutil.DryRunClient && *o.PrintFlags.OutputFormat == "" {
		*o.PrintFlags.OutputFormat = "yaml" // the objects, ready for kubectl apply -f
	}
	if f := *o.PrintFlags.OutputFormat; f != "" && f != "name" {
		if o.printer, err = o.PrintFlags.ToPrinter(); err != nil {
			return err
		}
	}
	o.settings = install.Settings{Storage: o.Storage, EtcdServers: o.EtcdServers, EtcdCertsSecret: o.EtcdCertsSecret,
		Replicas: o.Replicas, Image: o.Image, DefaultTag: install.ImageTagFor(buildinfo.Version().GitVersion), Set: o.Set}
	if o.dryRun == cmdutil.DryRunClient {
		return nil
	}
	o.host, err = installHost(o.ConfigFlags)
	if err != nil {
		return err
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	agg, err := apiregistrationclient.NewForConfig(withQPS(cfg))
	if err != nil {
		return err
	}
	o.apiservice = agg.APIServices()
	return nil
}

// Validate checks the flags.
func (o *InitOptions) Validate() error {
	if o.Wait && o.WaitTimeout <= 0 {
		return fmt.Errorf("--wait-timeout must be positive")
	}
	return o.settings.Validate()
}

// Run renders the chart, applies it and waits for the APIServices.
func (o *InitOptions) Run(ctx context.Context) error {
	if o.dryRun == cmdutil.DryRunClient {
		certs, err := install.NewCerts()
		if err != nil {
			return err
		}
		o.settings.Certs = certs
		objs, err := install.Render(o.settings)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if err := o.print(obj, install.Created); err != nil {
				return err
			}
		}
		return nil
	}

	what := "Installing fed into"
	if o.dryRun == cmdutil.DryRunServer {
		what = "Checking an install of fed (server dry run) against"
	}
	cmdline.Progress(o.ErrOut, "%s %s", what, describeHost(o.ConfigFlags))
	certs, caBundle, note, err := o.host.ServingCerts(ctx, o.RenewCerts, time.Now())
	if err != nil {
		return err
	}
	cmdline.Progress(o.ErrOut, "%s", note)
	o.settings.Certs, o.settings.CABundle = certs, caBundle
	objs, err := install.Render(o.settings)
	if err != nil {
		return err
	}
	applier := &install.Applier{Host: o.host, ForceConflicts: o.ForceConflicts,
		Warn: func(msg string) { cmdline.Progress(o.ErrOut, "Warning: %s", msg) }}
	results, err := applier.Apply(ctx, objs, o.dryRun == cmdutil.DryRunServer)
	for _, r := range results {
		if perr := o.print(r.Object, r.Operation); perr != nil {
			return perr
		}
	}
	if errors.Is(err, install.ErrConflicts) {
		return fmt.Errorf("%w\nfed's objects were installed by another tool or edited: --force-conflicts takes the fields over", err)
	}
	if err != nil || o.dryRun == cmdutil.DryRunServer {
		return err
	}

	names := install.APIServices(objs)
	if o.Wait {
		w := &install.Waiter{Host: o.host, APIServices: o.apiservice,
			Progress: func(msg string) { cmdline.Progress(o.ErrOut, "%s", msg) }}
		if err := w.Wait(ctx, objs, o.WaitTimeout); err != nil {
			return err
		}
	}
	out := o.Out
	if o.printer != nil {
		out = o.ErrOut // standard output holds the objects
	}
	printNextSteps(out, o.ConfigFlags, names, o.Wait)
	return nil
}

// print prints an object as the -o flags say, reporting operation (with kubectl's dry-run
// suffix) in the default output.
func (o *InitOptions) print(obj *unstructured.Unstructured, operation string) error {
	return printResult(o.PrintFlags, o.printer, o.dryRun, obj, operation, o.Out)
}

func printResult(pf *genericclioptions.PrintFlags, p printers.ResourcePrinter, dryRun cmdutil.DryRunStrategy, obj *unstructured.Unstructured, operation string, out io.Writer) error {
	if p == nil {
		pf.NamePrintFlags.Operation = operation
		cmdutil.PrintFlagsWithDryRunStrategy(pf, dryRun)
		var err error
		if p, err = pf.ToPrinter(); err != nil {
			return err
		}
	}
	return p.PrintObj(obj, out)
}

// printNextSteps says how to join members once fed is installed.
func printNextSteps(out io.Writer, configFlags *genericclioptions.ConfigFlags, apiservices []string, waited bool) {
	flags := hostFlags(configFlags)
	if waited {
		fmt.Fprintf(out, "\nfed is installed: the host cluster serves its APIs.\n")
	} else {
		fmt.Fprintf(out, "\nfed's objects are applied; the host serves its APIs once fed-apiserver runs:\n  kubectl%s get apiservices %s\n",
			flags, strings.Join(apiservices, " "))
	}
	fmt.Fprintf(out, `
Join member clusters in push mode (fed-apiserver reaches each member's API server):
  kubectl fed%s join NAME --cluster-kubeconfig FILE [--cluster-context CONTEXT] [--region REGION --zone ZONE]
  kubectl%s get clusters.cluster.fedhq.io
Or let members register themselves in pull mode (an agent in the member connects to the host):
  kubectl fed%s token create --print-register-command
and run the command it prints against each member.
`, flags, flags, flags)
}

// installHost is what init and deinit reach the host with.
func installHost(configFlags *genericclioptions.ConfigFlags) (*install.Host, error) {
	cfg, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg = withQPS(cfg)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper, err := configFlags.ToRESTMapper()
	if err != nil {
		return nil, err
	}
	return &install.Host{Dynamic: dyn, Mapper: mapper, Client: client}, nil
}

// withQPS is cfg with room for init's requests: two an object, and a server dry run of
// each first.
func withQPS(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	return cfg
}

// describeHost names the host cluster the kubeconfig flags select: its server and context.
func describeHost(configFlags *genericclioptions.ConfigFlags) string {
	s := "the host cluster"
	if cfg, err := configFlags.ToRESTConfig(); err == nil {
		s += " at " + cfg.Host
	}
	ctx := ""
	if configFlags.Context != nil {
		ctx = *configFlags.Context
	}
	if ctx == "" {
		if raw, err := configFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
			ctx = raw.CurrentContext
		}
	}
	if ctx != "" {
		s += " (context " + ctx + ")"
	}
	return s
}

// hostFlags are the kubeconfig flags the command was given, for the commands it prints.
func hostFlags(configFlags *genericclioptions.ConfigFlags) string {
	var s string
	for _, f := range []struct {
		name  string
		value *string
	}{{"kubeconfig", configFlags.KubeConfig}, {"context", configFlags.Context}} {
		if f.value != nil && *f.value != "" {
			s += " --" + f.name + " " + shellQuote(*f.value)
		}
	}
	return s
}

// shellQuote quotes s for a POSIX shell when it holds more than a path's usual characters.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
