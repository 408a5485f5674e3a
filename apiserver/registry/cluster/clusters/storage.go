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

package clusters

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/cluster"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

// SelectableFields are the spec fields of a Cluster that field selectors can
// match, for example `kubectl get clusters --field-selector spec.region=eu-west-1`.
var SelectableFields = registrykit.Fields[*cluster.Cluster]{
	{Label: "spec.syncMode", Value: func(c *cluster.Cluster) string { return string(c.Spec.SyncMode) }},
	{Label: "spec.provider", Value: func(c *cluster.Cluster) string { return c.Spec.Provider }},
	{Label: "spec.region", Value: func(c *cluster.Cluster) string { return c.Spec.Region }},
	{Label: "spec.zone", Value: func(c *cluster.Cluster) string { return c.Spec.Zone }},
}

var columns = []registrykit.Column[*cluster.Cluster]{
	{Name: "Version", Type: "string", Description: "The Kubernetes version of the member.",
		Cell: func(c *cluster.Cluster) any { return c.Status.KubernetesVersion }},
	{Name: "Mode", Type: "string", Description: "Push: fed dials the member; Pull: an agent in the member dials fed.",
		Cell: func(c *cluster.Cluster) any { return string(c.Spec.SyncMode) }},
	{Name: "Ready", Type: "string", Description: "The status of the Ready condition.",
		Cell: func(c *cluster.Cluster) any {
			return registrykit.ConditionStatus(c.Status.Conditions, cluster.ClusterConditionReady)
		}},
	{Name: "API-Endpoint", Type: "string", Wide: true, Description: "The URL of the member's API server.",
		Cell: func(c *cluster.Cluster) any { return registrykit.OrNone(c.Spec.APIEndpoint) }},
	{Name: "Region", Type: "string", Wide: true, Description: "The region the member runs in.",
		Cell: func(c *cluster.Cluster) any { return registrykit.OrNone(c.Spec.Region) }},
	{Name: "Zone", Type: "string", Wide: true, Description: "The zone the member runs in.",
		Cell: func(c *cluster.Cluster) any { return registrykit.OrNone(c.Spec.Zone) }},
	{Name: "Provider", Type: "string", Wide: true, Description: "The cloud or platform that runs the member.",
		Cell: func(c *cluster.Cluster) any { return registrykit.OrNone(c.Spec.Provider) }},
}

// NewStorage returns the storage of clusters and clusters/status. The proxy
// subresource, clusters/proxy, has its own storage beside these.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*cluster.Cluster]{
		Resource: cluster.Resource("clusters"),
		Singular: "cluster",
		NewList:  func() runtime.Object { return &cluster.ClusterList{} },
		Strategy: Strategy,
		Columns:  columns,
		Fields:   SelectableFields,
	})
}
