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
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/util/retry"

	"k8s.io/client-go/kubernetes"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/scheme"
	clusterclient "github.com/fedhq/fed/apis/generated/clientset/versioned/typed/cluster/v1alpha1"
)

// fedClient is the clientset of fed's API, served by the host cluster through its
// aggregation layer.
func fedClient(configFlags *genericclioptions.ConfigFlags) (versioned.Interface, error) {
	cfg, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return versioned.NewForConfig(cfg)
}

// hostClients are the clientsets of fed's API and of the host cluster itself.
func hostClients(configFlags *genericclioptions.ConfigFlags) (versioned.Interface, kubernetes.Interface, error) {
	cfg, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	fed, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	host, err := kubernetes.NewForConfig(cfg)
	return fed, host, err
}

// newPrintFlags are kubectl's -o flags, printing "cluster.cluster.fedhq.io/NAME <operation>"
// by default.
func newPrintFlags(operation string) *genericclioptions.PrintFlags {
	return genericclioptions.NewPrintFlags(operation).WithTypeSetter(scheme.Scheme)
}

// printCluster prints a Cluster with the printer the -o flags chose, reporting operation.
func printCluster(pf *genericclioptions.PrintFlags, operation string, c *clusterv1alpha1.Cluster, out io.Writer) error {
	pf.NamePrintFlags.Operation = operation
	p, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(c.DeepCopy(), out)
}

// updateCluster reads the Cluster, lets mutate change it and writes it back with the
// resourceVersion it read, starting again on a conflict. When mutate reports no change
// nothing is written and the Cluster read is returned.
func updateCluster(ctx context.Context, clusters clusterclient.ClusterInterface, name string,
	mutate func(*clusterv1alpha1.Cluster) (changed bool, err error)) (*clusterv1alpha1.Cluster, error) {
	var result *clusterv1alpha1.Cluster
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := clusters.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		changed, err := mutate(c)
		if err != nil {
			return err
		}
		if !changed {
			result = c
			return nil
		}
		result, err = clusters.Update(ctx, c, metav1.UpdateOptions{})
		return err
	})
	return result, err
}

// ignoreNotFound is nil for a NotFound error.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// completeClusterNames completes the names of the fleet's clusters for shell completion.
func completeClusterNames(configFlags *genericclioptions.ConfigFlags, toComplete string) []string {
	client, err := fedClient(configFlags)
	if err != nil {
		return nil
	}
	list, err := client.ClusterV1alpha1().Clusters().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var names []string
	for _, c := range list.Items {
		if strings.HasPrefix(c.Name, toComplete) {
			names = append(names, c.Name)
		}
	}
	return names
}

// clusterNamesCompletion is a ValidArgsFunction completing any number of cluster names.
func clusterNamesCompletion(configFlags *genericclioptions.ConfigFlags, max int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeClusterNames(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
