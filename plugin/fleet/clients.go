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

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterclient "github.com/fedhq/fed/apis/generated/clientset/versioned/typed/cluster/v1alpha1"
)

// FedClient is the clientset of fed's API, served by the host cluster through its
// aggregation layer.
func FedClient(configFlags *genericclioptions.ConfigFlags) (versioned.Interface, error) {
	cfg, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return versioned.NewForConfig(cfg)
}

// HostClients are the clientsets of fed's API and of the host cluster itself.
func HostClients(configFlags *genericclioptions.ConfigFlags) (versioned.Interface, kubernetes.Interface, error) {
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

// UpdateCluster reads the Cluster, lets mutate change it and writes it back with the
// resourceVersion it read, starting again on a conflict. When mutate reports no change
// nothing is written and the Cluster read is returned.
func UpdateCluster(ctx context.Context, clusters clusterclient.ClusterInterface, name string,
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

// MayUseFleet asks the host whether the caller passes the fleet's gate (get on
// fleets/default/proxy in federation.fedhq.io, what every request to the fleet needs); an
// error when the host could not say.
func MayUseFleet(ctx context.Context, host *rest.Config) (bool, error) {
	cs, err := kubernetes.NewForConfig(host)
	if err != nil {
		return false, err
	}
	review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Group: federationv1alpha1.GroupName, Resource: federationv1alpha1.FleetResource, Subresource: "proxy",
			Name: federationv1alpha1.FleetName, Verb: "get"}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}
