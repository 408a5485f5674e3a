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

package multiclusterservices

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
)

var columns = []registrykit.Column[*federation.MultiClusterService]{
	{Name: "Types", Type: "string", Description: "How the service is exposed.",
		Cell: func(s *federation.MultiClusterService) any { return types(s.Spec.Types) }},
	{Name: "Providers", Type: "string", Description: "The clusters whose endpoints are imported now.",
		Cell: func(s *federation.MultiClusterService) any { return joined(s.Status.ProviderClusters) }},
	{Name: "Consumers", Type: "string", Description: "The clusters the service is imported into now.",
		Cell: func(s *federation.MultiClusterService) any { return joined(s.Status.ConsumerClusters) }},
	{Name: "Ready", Type: "string", Description: "Whether some provider serves endpoints into the consumers.",
		Cell: func(s *federation.MultiClusterService) any { return ready(s) }},
}

func types(ts []federation.ExposureType) string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, string(t))
	}
	return strings.Join(names, ",")
}

func joined(clusters []string) string {
	if len(clusters) == 0 {
		return "<none>"
	}
	return strings.Join(clusters, ",")
}

// ready is the status of the Ready condition, empty while there is none.
func ready(s *federation.MultiClusterService) string {
	if c := meta.FindStatusCondition(s.Status.Conditions, federation.MultiClusterServiceConditionReady); c != nil {
		return string(c.Status)
	}
	return ""
}

// NewStorage returns the storage of multiclusterservices and
// multiclusterservices/status.
func NewStorage(optsGetter generic.RESTOptionsGetter) (*registrykit.Storage, error) {
	return registrykit.NewStorage(optsGetter, registrykit.Config[*federation.MultiClusterService]{
		Resource:   federation.Resource("multiclusterservices"),
		Singular:   "multiclusterservice",
		NewList:    func() runtime.Object { return &federation.MultiClusterServiceList{} },
		Strategy:   Strategy,
		ShortNames: []string{"mcs"},
		Columns:    columns,
	})
}
