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

package plugin

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// AnnotationCluster names, on an object kubectl fed prints as JSON or YAML, the member
// cluster it comes from.
const AnnotationCluster = "cluster.fedhq.io/cluster"

// The config of a member is the host's, pointed at the member's proxy subresource: the host
// authorizes `clusters/proxy`, fed-apiserver reaches the member acting as the user.

// withPath returns a copy of cfg whose server has path appended.
func withPath(cfg *rest.Config, path string) (*rest.Config, error) {
	c := rest.CopyConfig(cfg)
	u, err := url.Parse(c.Host)
	if err != nil {
		return nil, fmt.Errorf("the server %q of the kubeconfig: %w", c.Host, err)
	}
	if u.Scheme == "" { // host:port, as kubeconfigs may say
		if u, err = url.Parse("https://" + c.Host); err != nil {
			return nil, err
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	c.Host = u.String()
	c.APIPath = ""
	return c, nil
}

// memberConfig reaches member cluster name through the host's cluster proxy.
func memberConfig(host *rest.Config, name string) (*rest.Config, error) {
	return withPath(host, "/apis/"+clusterv1alpha1.GroupName+"/v1alpha1/clusters/"+name+"/proxy")
}

// fleetConfig reaches the fleet API, where templates live.
func fleetConfig(host *rest.Config) (*rest.Config, error) {
	return withPath(host, federationv1alpha1.FleetPath)
}

// clusterFlags select member clusters: --all-clusters or -C/--clusters a,b.
type clusterFlags struct {
	all      bool
	clusters []string
}

func (f *clusterFlags) addFlags(cmd *cobra.Command, allUsage string) {
	cmd.Flags().BoolVar(&f.all, "all-clusters", false, allUsage)
	cmd.Flags().StringSliceVarP(&f.clusters, "clusters", "C", nil, "Comma-separated member clusters to query, e.g. -C member1,member2.")
}

// selected tells whether any member was asked for.
func (f *clusterFlags) selected() bool { return f.all || len(f.clusters) > 0 }

// resolve returns the names of the members to query: those of -C, each checked to exist,
// or every joined member with --all-clusters (or when all is true).
func (f *clusterFlags) resolve(ctx context.Context, configFlags *genericclioptions.ConfigFlags, all bool) ([]string, error) {
	fed, err := fedClient(configFlags)
	if err != nil {
		return nil, err
	}
	list, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var names []string
	for _, c := range list.Items {
		known[c.Name] = true
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if len(f.clusters) == 0 && (f.all || all) {
		return names, nil
	}
	for _, c := range f.clusters {
		if !known[c] {
			return nil, fmt.Errorf("no member cluster %q (kubectl get clusters lists them)", c)
		}
	}
	return f.clusters, nil
}

// memberResult is what one member answered.
type memberResult[T any] struct {
	Cluster string
	Value   T
	Err     error
}

// fanOut runs query on every member in parallel, each with its proxy config, and returns
// the answers in the order of clusters.
func fanOut[T any](ctx context.Context, host *rest.Config, clusters []string, query func(ctx context.Context, cluster string, cfg *rest.Config) (T, error)) []memberResult[T] {
	results := make([]memberResult[T], len(clusters))
	var wg sync.WaitGroup
	for i, name := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].Cluster = name
			cfg, err := memberConfig(host, name)
			if err != nil {
				results[i].Err = err
				return
			}
			results[i].Value, results[i].Err = query(ctx, name, cfg)
		}()
	}
	wg.Wait()
	return results
}

// collect joins the values the members answered and returns apart those that failed.
func collect[T any](results []memberResult[[]T]) ([]T, []memberResult[[]T]) {
	var values []T
	var failed []memberResult[[]T]
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, r)
			continue
		}
		values = append(values, r.Value...)
	}
	return values, failed
}
