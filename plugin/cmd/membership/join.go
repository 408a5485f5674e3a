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
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/member"
)

// JoinOptions are the inputs of `kubectl fed join`.
type JoinOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags

	Name              string
	ClusterKubeconfig string
	ClusterContext    string
	Region            string
	Zone              string
	Provider          string
	Labels            []string
	Wait              bool
	Timeout           time.Duration
	// ClusterRole is the member's ClusterRole fed's service account is bound to.
	ClusterRole string
	// TokenTTL is the lifetime join asks the member's TokenRequest API for; fed renews the
	// token with the same lifetime.
	TokenTTL time.Duration

	labels map[string]string
	fed    versioned.Interface
	host   kubernetes.Interface
	member *member.Cluster
}

// NewCmdJoin is `kubectl fed join NAME --cluster-kubeconfig FILE`.
func NewCmdJoin(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &JoinOptions{IOStreams: streams, ConfigFlags: configFlags, PrintFlags: cmdline.NewPrintFlags("joined"),
		Wait: true, Timeout: 60 * time.Second, ClusterRole: member.DefaultClusterRole, TokenTTL: 24 * time.Hour}
	cmd := &cobra.Command{
		Use:                   "join NAME --cluster-kubeconfig FILE [--cluster-context CONTEXT]",
		DisableFlagsInUseLine: true,
		Short:                 "Join a member cluster to the fleet (push mode)",
		Long: `Join a member cluster to the fleet in push mode: fed's server reaches the member's API server.

In the member, join creates the namespace fed-system and the service account fed, bound to
the ClusterRole --cluster-role (cluster-admin by default: fed may apply any object there and
impersonate users for the proxy; artifacts/examples/member-clusterrole.yaml is a narrower one
with what fed uses) and allowed to request tokens of itself (the Role fed:token-renewal in
fed-system), and it asks the member's TokenRequest API for a token of fed that lasts
--token-ttl (the member may cap it). In the host cluster it stores the token, its expiry
(annotation cluster.fedhq.io/token-expiration) and the member's CA in the Secret
fed-system/NAME and creates the Cluster NAME; fed renews the token before it expires. The
member's kube-system namespace UID becomes the Cluster's spec.id, so one member cannot be
joined twice under different names. Joining again under the same name updates everything
and replaces the token.`,
		Example: `  # Join the cluster of member1.kubeconfig as member1 and wait until it is Ready
  kubectl fed join member1 --cluster-kubeconfig member1.kubeconfig --region eu-west --zone eu-west-1a

  # Use a context of a kubeconfig and do not wait
  kubectl fed join prod-eu --cluster-kubeconfig ~/.kube/config --cluster-context prod-eu --wait=false

  # Bind fed to a narrower ClusterRole applied in the member first, with tokens of 8 hours
  kubectl --kubeconfig member1.kubeconfig apply -f artifacts/examples/member-clusterrole.yaml
  kubectl fed join member1 --cluster-kubeconfig member1.kubeconfig --cluster-role fed:member --token-ttl 8h`,
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
	f := cmd.Flags()
	f.StringVar(&o.ClusterKubeconfig, "cluster-kubeconfig", "", "Path to the kubeconfig of the member cluster (required).")
	f.StringVar(&o.ClusterContext, "cluster-context", "", "Context of --cluster-kubeconfig to use; its current context by default.")
	f.StringVar(&o.Region, "region", "", "Region of the member cluster, for placement by region.")
	f.StringVar(&o.Zone, "zone", "", "Zone of the member cluster, for placement by zone.")
	f.StringVar(&o.Provider, "provider", "", "Cloud provider of the member cluster.")
	f.StringArrayVar(&o.Labels, "label", nil, "A label key=value for the Cluster; repeat for more.")
	f.BoolVar(&o.Wait, "wait", o.Wait, "Wait until the Cluster is Ready.")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long --wait waits for the Cluster to be Ready.")
	f.StringVar(&o.ClusterRole, "cluster-role", o.ClusterRole, "The member's ClusterRole that fed's service account is bound to; it must exist in the member.")
	f.DurationVar(&o.TokenTTL, "token-ttl", o.TokenTTL, "How long fed's token lasts (the member may cap it); fed renews it before it expires. At least 10m.")
	return cmd
}

// Complete takes the name, parses the labels and loads the member's kubeconfig and the
// host's clients.
func (o *JoinOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return cmdline.UsageError(cmd, "exactly one NAME is required, got %d", len(args))
	}
	o.Name = args[0]
	var err error
	if o.labels, err = parseLabels(o.Labels); err != nil {
		return cmdline.UsageError(cmd, "%s", err.Error())
	}
	if o.ClusterKubeconfig == "" {
		return cmdline.UsageError(cmd, "--cluster-kubeconfig is required")
	}
	if o.member, err = member.Load(o.ClusterKubeconfig, o.ClusterContext); err != nil {
		return err
	}
	o.fed, o.host, err = fleet.HostClients(o.ConfigFlags)
	return err
}

// Validate checks the name and the timeout.
func (o *JoinOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("invalid cluster name %q: %s", o.Name, strings.Join(errs, "; "))
	}
	if o.Wait && o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive")
	}
	if o.ClusterRole == "" {
		return fmt.Errorf("--cluster-role must name a ClusterRole")
	}
	if o.TokenTTL < member.MinTokenTTL {
		return fmt.Errorf("--token-ttl must be at least %s (the shortest token the TokenRequest API gives), got %s", member.MinTokenTTL, o.TokenTTL)
	}
	return nil
}

// Run joins the member.
func (o *JoinOptions) Run(ctx context.Context) error {
	m := o.member
	if err := m.Probe(ctx); err != nil {
		return err
	}
	o.progress("member %s answers: Kubernetes %s, id %s", m.Endpoint, m.Version, m.ID)

	clusters := o.fed.ClusterV1alpha1().Clusters()
	list, err := clusters.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the fleet's clusters (is fed's API served by the host cluster?): %w", err)
	}
	if err := checkJoinable(list.Items, o.Name, m.ID, m.Endpoint); err != nil {
		return err
	}
	if err := o.waitLeft(ctx, list.Items); err != nil {
		return err
	}

	token, err := m.Install(ctx, o.ClusterRole, o.TokenTTL)
	if err != nil {
		return err
	}
	o.progress("member: namespace %s, serviceaccount %s bound to clusterrole %s, token expires at %s",
		clusterv1alpha1.FedNamespace, clusterv1alpha1.MemberServiceAccount, o.ClusterRole, token.Expiration.UTC().Format(time.RFC3339))
	if lifetime := time.Until(token.Expiration); lifetime < o.TokenTTL-time.Minute {
		o.progress("member: the member gave a token of %s, less than the %s asked for", lifetime.Round(time.Minute), o.TokenTTL)
	}

	if err := member.EnsureHostSecret(ctx, o.host, member.NewHostSecret(o.Name, token, m.CABundle)); err != nil {
		return fmt.Errorf("in the host: %w", err)
	}
	o.progress("host: secret %s/%s holds the member's token and CA", clusterv1alpha1.FedNamespace, o.Name)
	// The host now holds the new token: a non-expiring one of an older join is revoked.
	if err := m.RemoveLegacyToken(ctx); err != nil {
		return err
	}

	spec := joinSpec{ID: m.ID, Endpoint: m.Endpoint, Insecure: m.Insecure, Region: o.Region, Zone: o.Zone, Provider: o.Provider, Labels: o.labels}
	c, err := clusters.Get(ctx, o.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		c = &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: o.Name}}
		spec.apply(c)
		c, err = clusters.Create(ctx, c, metav1.CreateOptions{})
	case err == nil:
		c, err = fleet.UpdateCluster(ctx, clusters, o.Name, func(c *clusterv1alpha1.Cluster) (bool, error) {
			return spec.apply(c), nil
		})
	}
	if err != nil {
		return err
	}

	if o.Wait {
		if c, err = o.waitReady(ctx, c); err != nil {
			return err
		}
	}
	return cmdline.PrintCluster(o.PrintFlags, "joined", c, o.Out)
}

// waitLeft waits until a Cluster of the name that is being deleted (unjoined: fed removes
// its objects from the member first) is gone, so that the join makes a new one.
func (o *JoinOptions) waitLeft(ctx context.Context, items []clusterv1alpha1.Cluster) error {
	i := slices.IndexFunc(items, func(c clusterv1alpha1.Cluster) bool { return c.Name == o.Name && c.DeletionTimestamp != nil })
	if i < 0 {
		return nil
	}
	o.progress("cluster %s is still leaving the fleet (fed is removing its objects from the member); waiting up to %s for it to go", o.Name, o.Timeout)
	if err := waitGone(ctx, o.fed, o.Name, items[i].UID, o.Timeout); err != nil {
		return fmt.Errorf("cluster %s is still being deleted after %s; join it again once it is gone: %w", o.Name, o.Timeout, err)
	}
	return nil
}

// waitGone waits up to timeout until the Cluster of the name and uid is gone (none of the
// name, or one of another uid).
func waitGone(ctx context.Context, fed versioned.Interface, name string, uid types.UID, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		c, err := fed.ClusterV1alpha1().Clusters().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && c.UID != uid, err
	})
}

// waitReady waits until the Cluster's Ready condition is True, reporting its changes. It
// watches the Cluster, as kubectl wait does, so it returns as soon as the status says so.
func (o *JoinOptions) waitReady(ctx context.Context, c *clusterv1alpha1.Cluster) (*clusterv1alpha1.Cluster, error) {
	o.progress("waiting up to %s for cluster %s to be Ready", o.Timeout, o.Name)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	// The watch's reflector retries what fails; a refusal (no right to list or watch
	// Clusters) ends the wait at once instead, with the server's answer.
	ctx, refused := context.WithCancelCause(ctx)
	defer refused(nil)
	unless := func(err error) error {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsBadRequest(err) {
			refused(err)
		}
		return err
	}
	clusters := o.fed.ClusterV1alpha1().Clusters()
	byName := fields.OneTermEqualSelector("metadata.name", o.Name).String()
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = byName
			list, err := clusters.List(ctx, opts)
			return list, unless(err)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = byName
			w, err := clusters.Watch(ctx, opts)
			return w, unless(err)
		},
	}, o.fed)
	state := readyState{progress: o.progress}
	_, err := watchtools.UntilWithSync(ctx, lw, &clusterv1alpha1.Cluster{}, nil, func(ev watch.Event) (bool, error) {
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("cluster %s was deleted while waiting for it to be Ready", o.Name)
		}
		got, ok := ev.Object.(*clusterv1alpha1.Cluster)
		if !ok {
			return false, nil
		}
		c = got
		return state.ready(got), nil
	})
	cause := context.Cause(ctx)
	switch {
	case err == nil:
		return c, nil
	case cause == nil: // the condition's own error: the Cluster was deleted
		return nil, err
	case !errors.Is(cause, context.DeadlineExceeded) && !errors.Is(cause, context.Canceled):
		return nil, fmt.Errorf("watching cluster %s until it is Ready: %w", o.Name, cause)
	}
	last := state.last
	if last == "" {
		last = "no Ready condition yet; is fed's cluster controller running?"
	}
	return nil, fmt.Errorf("cluster %s did not become Ready within %s (%s); see 'kubectl get clusters.cluster.fedhq.io %s -o yaml'", o.Name, o.Timeout, last, o.Name)
}

// readyState follows a Cluster's Ready condition and prints each new state of it with
// progress.
type readyState struct {
	progress func(format string, args ...any)
	last     string // the last state seen, "" for none
}

// ready says whether c's Ready condition is True, printing it if it changed.
func (r *readyState) ready(c *clusterv1alpha1.Cluster) bool {
	cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	if cond == nil {
		return false
	}
	if s := readyString(cond); s != r.last {
		r.last = s
		r.progress("cluster %s: %s", c.Name, s)
	}
	return cond.Status == metav1.ConditionTrue
}

func readyString(c *metav1.Condition) string {
	s := "Ready=" + string(c.Status)
	if c.Reason != "" {
		s += ", " + c.Reason
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// progress writes a progress line on standard error; standard output keeps only the result.
func (o *JoinOptions) progress(format string, args ...any) {
	cmdline.Progress(o.ErrOut, format, args...)
}

// checkJoinable refuses to join a member that is in the fleet under another name, or to
// reuse a name that belongs to another member. Re-joining under the same name is fine.
func checkJoinable(existing []clusterv1alpha1.Cluster, name, id, endpoint string) error {
	for _, c := range existing {
		if c.Name != name && c.Spec.ID == id {
			return fmt.Errorf("the cluster at %s (kube-system UID %s) is already joined as %s; unjoin %s first ('kubectl fed unjoin %s')",
				endpoint, id, c.Name, c.Name, c.Name)
		}
	}
	for _, c := range existing {
		if c.Name == name && c.Spec.ID != "" && c.Spec.ID != id {
			return fmt.Errorf("cluster %s already exists for another member (id %s, the cluster at %s has id %s); unjoin %s first or choose another name",
				name, c.Spec.ID, endpoint, id, name)
		}
	}
	return nil
}

// joinSpec is what join sets on a Cluster.
type joinSpec struct {
	ID, Endpoint, Region, Zone, Provider string
	Insecure                             bool
	Labels                               map[string]string
}

// apply sets the spec and labels join owns on c, keeping the rest (taints, other labels),
// and reports whether anything changed.
func (j joinSpec) apply(c *clusterv1alpha1.Cluster) bool {
	before := c.DeepCopy()
	s := &c.Spec
	s.ID = j.ID
	s.SyncMode = clusterv1alpha1.Push
	s.APIEndpoint = j.Endpoint
	s.SecretRef = &clusterv1alpha1.LocalSecretReference{Namespace: clusterv1alpha1.FedNamespace, Name: c.Name}
	s.InsecureSkipTLSVerification = j.Insecure
	s.Region, s.Zone, s.Provider = j.Region, j.Zone, j.Provider
	if len(j.Labels) > 0 {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		maps.Copy(c.Labels, j.Labels)
	}
	return !apiequality.Semantic.DeepEqual(before.Spec, c.Spec) || !apiequality.Semantic.DeepEqual(before.Labels, c.Labels)
}

// parseLabels parses key=value pairs as kubectl label does.
func parseLabels(specs []string) (map[string]string, error) {
	labels := map[string]string{}
	for _, spec := range specs {
		k, v, ok := strings.Cut(spec, "=")
		if !ok {
			return nil, fmt.Errorf("invalid label %q: must be key=value", spec)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("invalid label key %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("invalid label value %q: %s", v, strings.Join(errs, "; "))
		}
		labels[k] = v
	}
	return labels, nil
}
