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

package membership

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/fedhq/fed/plugin/bootstrap"
	"github.com/fedhq/fed/plugin/cmdline"
)

// NewCmdToken is `kubectl fed token create|list|delete`.
func NewCmdToken(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage the bootstrap tokens that register member clusters in pull mode",
		Long: `Manage fed's bootstrap tokens in the host cluster.

A member cluster behind NAT or a firewall registers itself in pull mode with one
('kubectl fed register'): an agent in the member connects out to the host, which holds no
credentials for the member. A token is a kube-system Secret of type
bootstrap.kubernetes.io/token, as kubeadm makes them; it authenticates in the group
system:bootstrappers:fed:register, which may only ask for an agent's certificate, and fed
decides what it gets.`,
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	cmd.AddCommand(newCmdTokenCreate(configFlags, streams), newCmdTokenList(configFlags, streams), newCmdTokenDelete(configFlags, streams))
	return cmd
}

// TokenCreateOptions are the inputs of `kubectl fed token create`.
type TokenCreateOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	TTL                  time.Duration
	Description          string
	PrintRegisterCommand bool

	host   kubernetes.Interface
	server string
	ca     []byte
}

func newCmdTokenCreate(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TokenCreateOptions{IOStreams: streams, ConfigFlags: configFlags, TTL: 24 * time.Hour, Description: bootstrap.DefaultDescription}
	cmd := &cobra.Command{
		Use:                   "create [--ttl DURATION] [--description TEXT] [--print-register-command]",
		DisableFlagsInUseLine: true,
		Short:                 "Create a bootstrap token and print it",
		Long: `Create a bootstrap token in the host cluster and print it.

The host's kube-controller-manager must run the bootstrapsigner controller
(--controllers=*,bootstrapsigner,tokencleaner, as kubeadm sets it): it signs the ConfigMap
kube-public/cluster-info with each token, which is how 'kubectl fed register' checks the
host. token create makes that ConfigMap (the server and CA of your kubeconfig) unless it
exists, and lets anonymous users read it.`,
		Example: `  # A token valid for 24 hours, and the command that registers a member with it
  kubectl fed token create --print-register-command

  # A token that never expires
  kubectl fed token create --ttl 0 --description "registers the edge clusters"`,
		Args:              cobra.NoArgs,
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
	f := cmd.Flags()
	f.DurationVar(&o.TTL, "ttl", o.TTL, "How long the token is valid; 0 never expires.")
	f.StringVar(&o.Description, "description", o.Description, "What the token is for, shown by 'kubectl fed token list'.")
	f.BoolVar(&o.PrintRegisterCommand, "print-register-command", false, "Print the whole 'kubectl fed register' command instead of the token alone.")
	return cmd
}

// Complete makes the host's client and reads its server and CA from the kubeconfig.
func (o *TokenCreateOptions) Complete(_ *cobra.Command, _ []string) error {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	o.server, o.ca = cfg.Host, cfg.CAData
	if len(o.ca) == 0 && cfg.CAFile != "" {
		if o.ca, err = os.ReadFile(cfg.CAFile); err != nil {
			return fmt.Errorf("reading the host's CA: %w", err)
		}
	}
	o.host, err = kubernetes.NewForConfig(cfg)
	return err
}

// Validate checks the TTL.
func (o *TokenCreateOptions) Validate() error {
	if o.TTL < 0 {
		return fmt.Errorf("--ttl must not be negative")
	}
	return nil
}

// Run makes sure members can discover the host, creates the token and prints it.
func (o *TokenCreateOptions) Run(ctx context.Context) error {
	ca, created, err := bootstrap.EnsureClusterInfo(ctx, o.host, o.server, o.ca)
	if err != nil {
		return err
	}
	if created {
		cmdline.Progress(o.ErrOut, "host: created kube-public/cluster-info (server %s and its CA) for members to discover the host", o.server)
	}
	t, err := bootstrap.CreateToken(ctx, o.host, o.Description, o.TTL)
	if err != nil {
		return err
	}
	if !o.PrintRegisterCommand {
		fmt.Fprintln(o.Out, t)
		return nil
	}
	hashes, err := bootstrap.CAHashes(ca)
	if err != nil {
		return fmt.Errorf("the CA of kube-public/cluster-info: %w", err)
	}
	fmt.Fprintln(o.Out, registerCommand(o.server, t, hashes))
	return nil
}

// registerCommand is the register command line for a token.
func registerCommand(server string, t bootstrap.Token, hashes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kubectl fed register %s --token %s", server, t)
	for _, h := range hashes {
		fmt.Fprintf(&b, " --discovery-token-ca-cert-hash %s", h)
	}
	return b.String()
}

// TokenListOptions are the inputs of `kubectl fed token list`.
type TokenListOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	host kubernetes.Interface
}

func newCmdTokenList(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TokenListOptions{IOStreams: streams, ConfigFlags: configFlags,
		PrintFlags: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme)}
	cmd := &cobra.Command{
		Use:                   "list [-o yaml|json|name]",
		DisableFlagsInUseLine: true,
		Short:                 "List fed's bootstrap tokens",
		Long: `List fed's bootstrap tokens in the host cluster (not kubeadm's or others'): their ID, the
time left, when they expire and their description. -o prints their Secrets.`,
		Args:              cobra.NoArgs,
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
	return cmd
}

// Complete makes the host's client.
func (o *TokenListOptions) Complete(_ *cobra.Command, _ []string) error {
	var err error
	o.host, err = hostClient(o.ConfigFlags)
	return err
}

// Validate checks the output format.
func (o *TokenListOptions) Validate() error {
	if f := o.PrintFlags.OutputFormat; f != nil && *f != "" {
		_, err := o.PrintFlags.ToPrinter()
		return err
	}
	return nil
}

// Run lists the tokens.
func (o *TokenListOptions) Run(ctx context.Context) error {
	secrets, err := bootstrap.ListTokens(ctx, o.host)
	if err != nil {
		return err
	}
	if f := o.PrintFlags.OutputFormat; f != nil && *f != "" {
		p, err := o.PrintFlags.ToPrinter()
		if err != nil {
			return err
		}
		if *f == "name" {
			for i := range secrets {
				if err := p.PrintObj(&secrets[i], o.Out); err != nil {
					return err
				}
			}
			return nil
		}
		return p.PrintObj(&corev1.SecretList{Items: secrets}, o.Out)
	}
	if len(secrets) == 0 {
		fmt.Fprintln(o.ErrOut, "No fed bootstrap tokens found in the host cluster.")
		return nil
	}
	return printTokens(o.Out, secrets, time.Now())
}

// printTokens writes the table of token list.
func printTokens(out io.Writer, secrets []corev1.Secret, now time.Time) error {
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "TOKEN ID\tTTL\tEXPIRES\tDESCRIPTION")
	for i := range secrets {
		r := bootstrap.Row(&secrets[i], now)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.TTL, r.Expires, r.Description)
	}
	return w.Flush()
}

// TokenDeleteOptions are the inputs of `kubectl fed token delete`.
type TokenDeleteOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	IDs  []string
	host kubernetes.Interface
}

func newCmdTokenDelete(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TokenDeleteOptions{IOStreams: streams, ConfigFlags: configFlags}
	cmd := &cobra.Command{
		Use:                   "delete TOKEN_ID|TOKEN [...]",
		DisableFlagsInUseLine: true,
		Short:                 "Delete bootstrap tokens",
		Long: `Delete fed's bootstrap tokens, given by ID or whole. Clusters registered with a token keep
their agents' certificates; the token can register no more.`,
		Example:           `  kubectl fed token delete abcdef`,
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
	return cmd
}

// Complete takes the tokens' IDs and makes the host's client.
func (o *TokenDeleteOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmdline.UsageError(cmd, "at least one TOKEN_ID or TOKEN is required")
	}
	for _, a := range args {
		id, err := bootstrap.ParseTokenID(a)
		if err != nil {
			return cmdline.UsageError(cmd, "%s", err.Error())
		}
		o.IDs = append(o.IDs, id)
	}
	var err error
	o.host, err = hostClient(o.ConfigFlags)
	return err
}

// Validate has nothing to check beyond Complete.
func (o *TokenDeleteOptions) Validate() error { return nil }

// Run deletes the tokens.
func (o *TokenDeleteOptions) Run(ctx context.Context) error {
	for _, id := range o.IDs {
		if err := bootstrap.DeleteToken(ctx, o.host, id); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "bootstrap token %q deleted\n", id)
	}
	return nil
}

func hostClient(configFlags *genericclioptions.ConfigFlags) (kubernetes.Interface, error) {
	cfg, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
