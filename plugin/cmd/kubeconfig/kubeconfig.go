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

package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

// defaultFleetContextName names the cluster, user and context of a fleet kubeconfig.
const defaultFleetContextName = "fed-fleet"

// KubeconfigOptions are the inputs of `kubectl fed kubeconfig`.
type KubeconfigOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	// Output is the file to write; empty prints the kubeconfig on standard output.
	Output string
	// Overwrite allows replacing an existing Output.
	Overwrite bool
	// ContextName names the cluster, the user and the context of the kubeconfig.
	ContextName string
	// Proxy makes the kubeconfig's server the fleet proxy instead of the fleet API.
	Proxy bool
}

// NewCmdKubeconfig is `kubectl fed kubeconfig [-o FILE]`.
func NewCmdKubeconfig(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &KubeconfigOptions{IOStreams: streams, ConfigFlags: configFlags}
	cmd := &cobra.Command{
		Use:                   "kubeconfig [-o FILE] [--context-name NAME]",
		DisableFlagsInUseLine: true,
		Short:                 "Print a kubeconfig for the fleet API",
		Long: fmt.Sprintf(`Print a kubeconfig for the fleet API. Its server is the host cluster's URL followed by

  %s

where fed-apiserver serves a whole Kubernetes API whose objects are templates stored by
fed: nothing created through it runs in the host cluster.

The kubeconfig is self-contained: one cluster, one user and one context, all named
%s unless --context-name says otherwise. The cluster keeps the host's CA, TLS server
name, proxy and insecure settings; the user carries the credentials of the current context
(certificates and keys referenced by file are embedded, tokens, exec plugins and auth
providers are kept as they are); the context keeps its namespace.

With --proxy, the server is the fleet proxy instead,

  %s

one Kubernetes API made of every member: lists and watches of the kinds a
ResourceRegistry caches are answered from the search cache across all members (a
CLUSTER column first), and a request for one object (get, edit, delete, logs, exec)
goes to the member that holds it.`, federationv1alpha1.FleetPath, defaultFleetContextName, searchv1alpha1.ProxyPath),
		Example: `  # Print the fleet's kubeconfig for the current context of the host cluster
  kubectl fed kubeconfig

  # Write it to a file, then use kubectl against the fleet
  kubectl fed kubeconfig -o ~/.kube/fleet
  kubectl --kubeconfig ~/.kube/fleet get deploy -A

  # One cluster made of all members, for plain kubectl
  kubectl fed kubeconfig --proxy -o ~/.kube/fleet-proxy
  kubectl --kubeconfig ~/.kube/fleet-proxy get pods -A

  # From another context of the host's kubeconfig, replacing an existing file
  kubectl fed kubeconfig --context prod-host -o prod-fleet.kubeconfig --overwrite --context-name prod-fleet`,
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
	f.StringVarP(&o.Output, "output-file", "o", "", "Write the kubeconfig to this file (mode 0600) instead of standard output.")
	f.BoolVar(&o.Overwrite, "overwrite", false, "Replace the file of -o if it exists.")
	f.StringVar(&o.ContextName, "context-name", o.ContextName, "Name of the cluster, user and context of the kubeconfig (default fed-fleet, or fed-fleet-proxy with --proxy).")
	f.BoolVar(&o.Proxy, "proxy", false, "Point the kubeconfig at the fleet proxy (every member's objects, from the search cache) instead of the fleet API (templates).")
	return cmd
}

// Complete refuses arguments: the command takes none.
func (o *KubeconfigOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 0 {
		return cmdline.UsageError(cmd, "unexpected arguments: %s", strings.Join(args, " "))
	}
	if !cmd.Flags().Changed("context-name") {
		o.ContextName = defaultFleetContextName
		if o.Proxy {
			o.ContextName += "-proxy"
		}
	}
	return nil
}

// Validate checks the context name and that --overwrite comes with a file.
func (o *KubeconfigOptions) Validate() error {
	if o.ContextName == "" {
		return fmt.Errorf("--context-name must not be empty")
	}
	if o.Overwrite && o.Output == "" {
		return fmt.Errorf("--overwrite needs -o FILE")
	}
	return nil
}

// Run builds the fleet's kubeconfig and prints or writes it.
func (o *KubeconfigOptions) Run(_ context.Context) error {
	raw, err := o.hostConfig()
	if err != nil {
		return err
	}
	path, what := federationv1alpha1.FleetPath, "the fleet"
	if o.Proxy {
		path, what = searchv1alpha1.ProxyPath, "the fleet proxy"
	}
	kubeconfig, err := fleet.Kubeconfig(raw, o.ContextName, path)
	if err != nil {
		return err
	}
	data, err := clientcmd.Write(*kubeconfig)
	if err != nil {
		return err
	}
	if o.Output == "" {
		_, err = o.Out.Write(data)
		return err
	}
	if err := writeKubeconfigFile(o.Output, data, o.Overwrite); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "kubeconfig for %s written to %s\n", what, o.Output)
	example := "get deploy -A"
	if o.Proxy {
		example = "get pods -A"
	}
	fmt.Fprintf(o.Out, "use it as any kubeconfig, e.g.: kubectl --kubeconfig %s %s\n", o.Output, example)
	return nil
}

// hostConfig is the host's kubeconfig as the kubeconfig flags select it: the merged files
// with --context, --cluster, --user, --server, --token, … applied, its current context the
// selected one.
func (o *KubeconfigOptions) hostConfig() (*clientcmdapi.Config, error) {
	loader := o.ConfigFlags.ToRawKubeConfigLoader()
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, err
	}
	overrides, err := configOverrides(o.ConfigFlags)
	if err != nil {
		return nil, err
	}
	merged, err := clientcmd.NewNonInteractiveClientConfig(raw, overrides.CurrentContext, overrides, loader.ConfigAccess()).MergedRawConfig()
	if err != nil {
		return nil, err
	}
	return &merged, nil
}

// configOverrides are the overrides the kubeconfig flags make, as cli-runtime builds them
// for its clients, except that a server is never defaulted: a kubeconfig for localhost:8080
// helps nobody. Files named by flags are made absolute, since flattening resolves relative
// paths against the kubeconfig's directory.
func configOverrides(f *genericclioptions.ConfigFlags) (*clientcmd.ConfigOverrides, error) {
	o := &clientcmd.ConfigOverrides{}
	abs := func(p *string) (string, error) {
		if p == nil || *p == "" {
			return "", nil
		}
		return filepath.Abs(*p)
	}
	var err error
	set := func(dst *string, p *string) {
		if err == nil && p != nil {
			*dst, err = abs(p)
		}
	}
	set(&o.AuthInfo.ClientCertificate, f.CertFile)
	set(&o.AuthInfo.ClientKey, f.KeyFile)
	set(&o.ClusterInfo.CertificateAuthority, f.CAFile)
	if err != nil {
		return nil, err
	}
	str := func(dst *string, p *string) {
		if p != nil {
			*dst = *p
		}
	}
	str(&o.AuthInfo.Token, f.BearerToken)
	str(&o.AuthInfo.Impersonate, f.Impersonate)
	str(&o.AuthInfo.ImpersonateUID, f.ImpersonateUID)
	str(&o.AuthInfo.Username, f.Username)
	str(&o.AuthInfo.Password, f.Password)
	if f.ImpersonateGroup != nil {
		o.AuthInfo.ImpersonateGroups = *f.ImpersonateGroup
	}
	if f.ImpersonateUserExtra != nil && len(*f.ImpersonateUserExtra) > 0 {
		o.AuthInfo.ImpersonateUserExtra = map[string][]string{}
		for _, extra := range *f.ImpersonateUserExtra {
			if k, v, ok := strings.Cut(extra, "="); ok {
				o.AuthInfo.ImpersonateUserExtra[k] = append(o.AuthInfo.ImpersonateUserExtra[k], v)
			}
		}
	}
	str(&o.ClusterInfo.Server, f.APIServer)
	str(&o.ClusterInfo.TLSServerName, f.TLSServerName)
	str(&o.ClusterInfo.ProxyURL, f.ProxyURL)
	if f.Insecure != nil {
		o.ClusterInfo.InsecureSkipTLSVerify = *f.Insecure
	}
	if f.DisableCompression != nil {
		o.ClusterInfo.DisableCompression = *f.DisableCompression
	}
	str(&o.CurrentContext, f.Context)
	str(&o.Context.Cluster, f.ClusterName)
	str(&o.Context.AuthInfo, f.AuthInfoName)
	str(&o.Context.Namespace, f.Namespace)
	return o, nil
}

// writeKubeconfigFile writes data to path with mode 0600, creating its directory. An
// existing file is an error unless overwrite is set; then it is replaced at once, so that a
// reader never sees half a kubeconfig.
func writeKubeconfigFile(path string, data []byte, overwrite bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !overwrite {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; use --overwrite to replace it", path)
		}
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(path)
			return err
		}
		return f.Close()
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
