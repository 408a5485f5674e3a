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
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/bootstrap"
	"github.com/fedhq/fed/plugin/buildinfo"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/install"
	"github.com/fedhq/fed/plugin/member"
)

// agentRepository is the agent's image repository: fed-apiserver's image, which holds
// fed-agent too (the Dockerfile), run with command fed-agent.
const agentRepository = "ghcr.io/fedhq/fed-apiserver"

// RegisterOptions are the inputs of `kubectl fed register`.
type RegisterOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	Host                   string
	Token                  string
	CAHashes               []string
	SkipCAVerification     bool
	DiscoveryTimeout       time.Duration
	ClusterName            string
	Provider, Region, Zone string
	AgentImage             string
	InstallAgent           bool
	ClusterRole            string
	Wait                   bool
	WaitTimeout            time.Duration
	// CertificateTimeout bounds the wait for fed's answer and the host's certificate.
	CertificateTimeout time.Duration

	token  bootstrap.Token
	member *member.Cluster
}

// NewCmdRegister is `kubectl fed register HOST --token TOKEN --discovery-token-ca-cert-hash sha256:…`.
func NewCmdRegister(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &RegisterOptions{IOStreams: streams, ConfigFlags: configFlags, DiscoveryTimeout: time.Minute, InstallAgent: true,
		ClusterRole: "cluster-admin", Wait: true, WaitTimeout: 2 * time.Minute, CertificateTimeout: time.Minute}
	cmd := &cobra.Command{
		Use:                   "register HOST --token TOKEN --discovery-token-ca-cert-hash sha256:HASH [--cluster-name NAME]",
		DisableFlagsInUseLine: true,
		Short:                 "Register this cluster in a fleet in pull mode (run against the member)",
		Long: `Register the cluster of your current kubeconfig context as a member of the fleet of the host
cluster at HOST, in pull mode: an agent in the member connects out to the host, which holds no
credentials for the member (a member behind NAT or a firewall). Unlike the other commands,
register runs against the member; 'kubectl fed token create --print-register-command' on the
host prints the command.

register reads the host's kube-public/cluster-info anonymously, checks that the host's
bootstrapsigner signed it with the token (so the host knows the token) and that the CA it
carries has the hash given (so it is the host you think; kubeadm's token discovery does the
same), then, as the token, asks the host for the agent's client certificate. fed approves it,
creating the Cluster NAME in pull mode, unless NAME is a cluster joined in push mode or one
another member's agent holds. Registering NAME again from the member that holds it (its
agent's certificate expired while it was down, say) asks with the key of the agent's
certificate in its Secret fed-agent, which is how fed knows it is that member. In the
member it then applies (server-side, so running it again converges) the namespace fed-system,
the service account fed-agent bound to --cluster-role, the Secret fed-agent with the agent's
kubeconfig for the host, and the Deployment fed-agent that runs the agent.`,
		Example: `  # What 'kubectl fed token create --print-register-command' printed, run against the member
  kubectl fed register https://fed-host.example:6443 --token abcdef.0123456789abcdef \
    --discovery-token-ca-cert-hash sha256:1f2e...9a --cluster-name edge-1 --cluster-region eu-west

  # Everything but the agent's Deployment: the agent runs elsewhere with this member's kubeconfig
  kubectl fed register https://fed-host.example:6443 --token abcdef.0123456789abcdef \
    --discovery-token-ca-cert-hash sha256:1f2e...9a --install-agent=false`,
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
	f.StringVar(&o.Token, "token", "", "The bootstrap token (ID.SECRET) of 'kubectl fed token create' (required).")
	f.StringArrayVar(&o.CAHashes, "discovery-token-ca-cert-hash", nil,
		"The hash of the host's CA (sha256:HEX of its SubjectPublicKeyInfo) that the host's cluster-info must carry; repeat to accept several.")
	f.BoolVar(&o.SkipCAVerification, "discovery-token-unsafe-skip-ca-verification", false,
		"Accept any CA of the host without --discovery-token-ca-cert-hash: anyone between you and the host could pose as it.")
	f.DurationVar(&o.DiscoveryTimeout, "discovery-timeout", o.DiscoveryTimeout, "How long to wait for the host's bootstrapsigner to sign cluster-info with the token.")
	f.StringVar(&o.ClusterName, "cluster-name", "", "The member's name in the fleet, a DNS label. Default: the name of the current context.")
	f.StringVar(&o.Provider, "cluster-provider", "", "Cloud provider of the member cluster.")
	f.StringVar(&o.Region, "cluster-region", "", "Region of the member cluster, for placement by region.")
	f.StringVar(&o.Zone, "cluster-zone", "", "Zone of the member cluster, for placement by zone.")
	f.StringVar(&o.AgentImage, "agent-image", "", "The agent's image, REPOSITORY[:TAG]. Default: "+agentRepository+" with the tag of this kubectl-fed's release (the chart's appVersion between releases).")
	f.BoolVar(&o.InstallAgent, "install-agent", o.InstallAgent, "Run the agent in the member (the Deployment fed-agent); false installs everything else, for an agent run elsewhere.")
	f.StringVar(&o.ClusterRole, "cluster-role", o.ClusterRole, "The ClusterRole of the agent's service account in the member.")
	f.BoolVar(&o.Wait, "wait", o.Wait, "Wait until the Cluster is Ready (its agent reports in). Not with --install-agent=false.")
	f.DurationVar(&o.WaitTimeout, "wait-timeout", o.WaitTimeout, "How long --wait waits for the Cluster to be Ready.")
	return cmd
}

// Complete takes HOST, the token and the cluster's name, and loads the member's kubeconfig
// (the current context's).
func (o *RegisterOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return cmdline.UsageError(cmd, "exactly one HOST (the host cluster's API server URL) is required, got %d", len(args))
	}
	var err error
	if o.Host, err = normalizeServer(args[0]); err != nil {
		return cmdline.UsageError(cmd, "%s", err.Error())
	}
	if o.Token == "" {
		return cmdline.UsageError(cmd, "--token is required")
	}
	if o.token, err = bootstrap.ParseToken(o.Token); err != nil {
		return cmdline.UsageError(cmd, "%s", err.Error())
	}
	if !o.InstallAgent {
		if cmd.Flags().Changed("wait") && o.Wait {
			return cmdline.UsageError(cmd, "--wait needs the agent: with --install-agent=false nothing makes the cluster Ready until you run it")
		}
		o.Wait = false
	}
	if o.ClusterName == "" {
		raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return err
		}
		o.ClusterName = raw.CurrentContext
		if o.ConfigFlags.Context != nil && *o.ConfigFlags.Context != "" {
			o.ClusterName = *o.ConfigFlags.Context
		}
	}
	if o.AgentImage == "" {
		o.AgentImage, err = defaultAgentImage()
		if err != nil {
			return err
		}
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	o.member, err = member.FromConfig(cfg)
	return err
}

// Validate checks the name, the CA hashes and the timeouts.
func (o *RegisterOptions) Validate() error {
	if errs := validation.IsDNS1123Label(o.ClusterName); len(errs) > 0 {
		return fmt.Errorf("invalid cluster name %q (the current context's, without --cluster-name): %s", o.ClusterName, strings.Join(errs, "; "))
	}
	if len(o.CAHashes) == 0 && !o.SkipCAVerification {
		return fmt.Errorf("--discovery-token-ca-cert-hash is required (or, unsafe, --discovery-token-unsafe-skip-ca-verification)")
	}
	for _, h := range o.CAHashes {
		if err := bootstrap.ValidatePin(h); err != nil {
			return err
		}
	}
	if o.DiscoveryTimeout <= 0 || (o.Wait && o.WaitTimeout <= 0) {
		return fmt.Errorf("--discovery-timeout and --wait-timeout must be positive")
	}
	if o.ClusterRole == "" {
		return fmt.Errorf("--cluster-role must not be empty")
	}
	return nil
}

// Run registers the member.
func (o *RegisterOptions) Run(ctx context.Context) error {
	m := o.member
	if err := m.Probe(ctx); err != nil {
		return err
	}
	o.progress("member %s answers: Kubernetes %s", m.Endpoint, m.Version)
	registered, err := m.RegisteredAs(ctx)
	if err != nil {
		return err
	}
	if registered.Cluster != "" && registered.Cluster != o.ClusterName {
		return fmt.Errorf("this cluster is registered as %s already (the Secret %s/%s says so); unregister %s first ('kubectl fed unregister %s' against the host)",
			registered.Cluster, clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentSecret, registered.Cluster, registered.Cluster)
	}
	// Registering the same name again asks with the agent's own registration and key,
	// which is how fed knows this member is the one that registered it; a new
	// registration, when there is none or fed says the cluster left the fleet since.
	registration := bootstrap.Registration{Cluster: o.ClusterName, ID: registered.Registration, Key: registered.Key, Again: true}
	if registered.Cluster != o.ClusterName || registered.Key == nil {
		if registration, err = bootstrap.NewRegistration(o.ClusterName); err != nil {
			return err
		}
	}

	d := bootstrap.Discovery{Server: o.Host, Token: o.token, Pins: o.CAHashes, SkipCAVerification: o.SkipCAVerification,
		Timeout: o.DiscoveryTimeout, Interval: time.Second}
	ca, err := d.Discover(ctx)
	if err != nil {
		return err
	}
	if o.SkipCAVerification {
		o.progress("host %s: cluster-info signed with token %s; its CA accepted without verification", o.Host, o.token.ID)
	} else {
		o.progress("host %s: cluster-info signed with token %s, its CA matches the hash", o.Host, o.token.ID)
	}

	tokenClient, err := kubernetes.NewForConfig(bootstrap.TokenConfig(o.Host, ca, o.token))
	if err != nil {
		return err
	}
	annotations := map[string]string{clusterv1alpha1.AnnotationClusterID: m.ID}
	for k, v := range map[string]string{clusterv1alpha1.AnnotationProvider: o.Provider, clusterv1alpha1.AnnotationRegion: o.Region, clusterv1alpha1.AnnotationZone: o.Zone} {
		if v != "" {
			annotations[k] = v
		}
	}
	cert, err := bootstrap.RequestAgentCertificate(ctx, tokenClient, registration, annotations, o.CertificateTimeout)
	var denied *bootstrap.DeniedError
	if registration.Again && errors.As(err, &denied) && denied.Reason == clusterv1alpha1.ReasonNotInFleet {
		o.progress("host: cluster %s is not in the fleet any more (%s denied the registration of this member's agent); registering it anew", o.ClusterName, denied.CSR)
		if registration, err = bootstrap.NewRegistration(o.ClusterName); err != nil {
			return err
		}
		cert, err = bootstrap.RequestAgentCertificate(ctx, tokenClient, registration, annotations, o.CertificateTimeout)
	}
	if err != nil {
		return err
	}
	o.progress("host: certificate signing request %s %s; certificate issued for %s", cert.CSR.Name, approval(cert), clusterv1alpha1.AgentUser(o.ClusterName))

	kubeconfig, err := bootstrap.AgentKubeconfig(o.Host, ca, o.ClusterName, cert)
	if err != nil {
		return err
	}
	spec := member.AgentSpec{Cluster: o.ClusterName, Kubeconfig: kubeconfig, ClusterRole: o.ClusterRole}
	if o.InstallAgent {
		spec.Image = o.AgentImage
	}
	done, err := m.InstallAgent(ctx, spec)
	if err != nil {
		return err
	}
	o.progress("member: %s", strings.Join(done, "; "))

	if o.Wait {
		if err := o.waitReady(ctx, ca, cert); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Out, "cluster.cluster.fedhq.io/%s registered\n", o.ClusterName)
	if !o.InstallAgent {
		o.progress("run the agent with this member's kubeconfig: fed-agent --cluster-name %s --host-secret %s/%s",
			o.ClusterName, clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentSecret)
	}
	o.progress("check it with the host's kubeconfig: kubectl get clusters.cluster.fedhq.io %s", o.ClusterName)
	return nil
}

// approval is how fed answered a CSR: "approved (Reason: message)".
func approval(cert *bootstrap.AgentCertificate) string {
	for _, c := range cert.CSR.Status.Conditions {
		if c.Type == "Approved" {
			return fmt.Sprintf("approved (%s: %s)", c.Reason, c.Message)
		}
	}
	return "approved"
}

// waitReady waits until the Cluster is Ready, read from the host as the agent.
func (o *RegisterOptions) waitReady(ctx context.Context, ca []byte, cert *bootstrap.AgentCertificate) error {
	fed, err := versioned.NewForConfig(&rest.Config{Host: o.Host, Timeout: 30 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca, CertData: cert.CertPEM, KeyData: cert.KeyPEM}})
	if err != nil {
		return err
	}
	o.progress("waiting up to %s for cluster %s to be Ready (its agent reports in)", o.WaitTimeout, o.ClusterName)
	// Read every second rather than watched: the agent's rights may lag its certificate, and
	// a read that fails is tried again.
	state := readyState{progress: o.progress}
	err = wait.PollUntilContextTimeout(ctx, time.Second, o.WaitTimeout, true, func(ctx context.Context) (bool, error) {
		c, err := fed.ClusterV1alpha1().Clusters().Get(ctx, o.ClusterName, metav1.GetOptions{})
		if err != nil {
			return false, nil // the agent's rights may lag its certificate; try again
		}
		return state.ready(c), nil
	})
	if err != nil {
		last := state.last
		if last == "" {
			last = "no Ready condition yet; is the agent running? 'kubectl -n fed-system logs deploy/fed-agent' in the member"
		}
		return fmt.Errorf("cluster %s did not become Ready within %s (%s)", o.ClusterName, o.WaitTimeout, last)
	}
	return nil
}

func (o *RegisterOptions) progress(format string, args ...any) {
	cmdline.Progress(o.ErrOut, format, args...)
}

// normalizeServer makes an https URL of HOST, which may lack the scheme.
func normalizeServer(host string) (string, error) {
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("invalid HOST %q: it must be the host cluster's API server, https://ADDRESS[:PORT]", host)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// defaultAgentImage is the agent's image that goes with this kubectl-fed: its release's
// tag, or the chart's appVersion between releases (as init's fed-apiserver image).
func defaultAgentImage() (string, error) {
	tag := install.ImageTagFor(buildinfo.Version().GitVersion)
	if tag == "" {
		var err error
		if tag, err = install.AppVersion(); err != nil {
			return "", err
		}
	}
	return agentRepository + ":" + tag, nil
}
