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

package fleet

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// ClusterFlags select member clusters: --all-clusters or -C/--clusters a,b.
type ClusterFlags struct {
	All      bool
	Clusters []string
}

// AddFlags adds --all-clusters, described by allUsage, and -C/--clusters to flags.
func (f *ClusterFlags) AddFlags(flags *pflag.FlagSet, allUsage string) {
	flags.BoolVar(&f.All, "all-clusters", false, allUsage)
	flags.StringSliceVarP(&f.Clusters, "clusters", "C", nil, "Comma-separated member clusters to query, e.g. -C member1,member2.")
}

// Selected tells whether any member was asked for.
func (f *ClusterFlags) Selected() bool { return f.All || len(f.Clusters) > 0 }

// Resolve returns the names of the members to query: those of -C, each checked to exist,
// or every joined member with --all-clusters (or when all is true).
func (f *ClusterFlags) Resolve(ctx context.Context, configFlags *genericclioptions.ConfigFlags, all bool) ([]string, error) {
	names, err := Members(ctx, configFlags)
	if err != nil {
		return nil, err
	}
	if len(f.Clusters) == 0 && (f.All || all) {
		return names, nil
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	for _, c := range f.Clusters {
		if !known[c] {
			return nil, fmt.Errorf("no member cluster %q (kubectl get clusters lists them)", c)
		}
	}
	return f.Clusters, nil
}

// Members returns the names of the fleet's member clusters, sorted.
func Members(ctx context.Context, configFlags *genericclioptions.ConfigFlags) ([]string, error) {
	fed, err := FedClient(configFlags)
	if err != nil {
		return nil, err
	}
	list, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, c := range list.Items {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	return names, nil
}
