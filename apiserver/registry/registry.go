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

// Package registry assembles the REST storage of fed's API groups for the
// API server.
package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/apiserver/registry/cluster/clusters"
	"github.com/fedhq/fed/apiserver/registry/cluster/remedies"
	"github.com/fedhq/fed/apiserver/registry/federation/clusteroverridepolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/clusterpropagationpolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/clusterresourcebindings"
	"github.com/fedhq/fed/apiserver/registry/federation/clustertaintpolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/cronfederatedhpas"
	"github.com/fedhq/fed/apiserver/registry/federation/federatedhpas"
	"github.com/fedhq/fed/apiserver/registry/federation/federatedresourcequotas"
	"github.com/fedhq/fed/apiserver/registry/federation/multiclusteringresses"
	"github.com/fedhq/fed/apiserver/registry/federation/multiclusterservices"
	"github.com/fedhq/fed/apiserver/registry/federation/overridepolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/propagationpolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/replicaschedulingpolicies"
	"github.com/fedhq/fed/apiserver/registry/federation/resourcebindings"
	"github.com/fedhq/fed/apiserver/registry/federation/resourceinterpretercustomizations"
	"github.com/fedhq/fed/apiserver/registry/federation/resourceinterpreterwebhookconfigurations"
	"github.com/fedhq/fed/apiserver/registry/federation/workloadrebalancers"
	"github.com/fedhq/fed/apiserver/registry/federation/works"
	"github.com/fedhq/fed/apiserver/registry/metrics"
	"github.com/fedhq/fed/apiserver/registry/registrykit"
	"github.com/fedhq/fed/apiserver/registry/search/resourceregistries"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/apiserver/tunnel"
)

// newStorageFunc builds the storage of one resource.
type newStorageFunc func(generic.RESTOptionsGetter) (*registrykit.Storage, error)

// NewClusterGroupInfo returns cluster.fedhq.io with the storage of clusters,
// clusters/status and remedies on the backend optsGetter chooses, clusters/proxy, which reaches the
// members with the configurations of members (the controllers' cache: push members with
// the credentials of their host Secrets, pull members through their tunnels), and
// clusters/attach, where pull members' agents open their tunnels.
func NewClusterGroupInfo(optsGetter generic.RESTOptionsGetter, members clusters.MemberConfigs, tunnels *tunnel.Server) (*genericapiserver.APIGroupInfo, error) {
	info, err := newGroupInfo(clusterv1alpha1.SchemeGroupVersion, optsGetter, clusters.NewStorage, remedies.NewStorage)
	if err != nil {
		return nil, err
	}
	resources := info.VersionedResourcesStorageMap[clusterv1alpha1.SchemeGroupVersion.Version]
	getter := resources["clusters"].(rest.Getter)
	resources["clusters/proxy"] = &clusters.ProxyREST{Clusters: getter, Members: members}
	resources["clusters/attach"] = &clusters.AttachREST{Clusters: getter, Tunnels: tunnels}
	return info, nil
}

// NewFederationGroupInfo returns federation.fedhq.io with the storage of all
// its resources and their status subresources on the backend optsGetter
// chooses.
func NewFederationGroupInfo(optsGetter generic.RESTOptionsGetter) (*genericapiserver.APIGroupInfo, error) {
	return newGroupInfo(federationv1alpha1.SchemeGroupVersion, optsGetter,
		propagationpolicies.NewStorage,
		clusterpropagationpolicies.NewStorage,
		overridepolicies.NewStorage,
		clusteroverridepolicies.NewStorage,
		resourceinterpretercustomizations.NewStorage,
		resourceinterpreterwebhookconfigurations.NewStorage,
		replicaschedulingpolicies.NewStorage,
		federatedresourcequotas.NewStorage,
		clustertaintpolicies.NewStorage,
		workloadrebalancers.NewStorage,
		resourcebindings.NewStorage,
		clusterresourcebindings.NewStorage,
		works.NewStorage,
		federatedhpas.NewStorage,
		cronfederatedhpas.NewStorage,
		multiclusterservices.NewStorage,
		multiclusteringresses.NewStorage,
	)
}

// NewSearchGroupInfo returns search.fedhq.io with the storage of
// resourceregistries and resourceregistries/status on the backend optsGetter
// chooses.
func NewSearchGroupInfo(optsGetter generic.RESTOptionsGetter) (*genericapiserver.APIGroupInfo, error) {
	return newGroupInfo(searchv1alpha1.SchemeGroupVersion, optsGetter, resourceregistries.NewStorage)
}

// NewMetricsGroupInfo is metrics.k8s.io/v1beta1 read from source.
func NewMetricsGroupInfo(source metrics.Source) *genericapiserver.APIGroupInfo {
	info := genericapiserver.NewDefaultAPIGroupInfo(metricsv1beta1.GroupName, scheme.Scheme, scheme.ParameterCodec, scheme.Codecs)
	// The scheme knows metrics.k8s.io/v1 too (and prefers it); what members serve, and
	// kubectl top reads, is v1beta1.
	info.PrioritizedVersions = []schema.GroupVersion{metricsv1beta1.SchemeGroupVersion}
	info.VersionedResourcesStorageMap[metricsv1beta1.SchemeGroupVersion.Version] = metrics.Storages(source, scheme.Scheme)
	return &info
}

// newGroupInfo also registers the field selectors of fed's kinds in
// scheme.Scheme, which the group's handlers use to check them.
func newGroupInfo(gv schema.GroupVersion, optsGetter generic.RESTOptionsGetter, newStorages ...newStorageFunc) (*genericapiserver.APIGroupInfo, error) {
	info := genericapiserver.NewDefaultAPIGroupInfo(gv.Group, scheme.Scheme, scheme.ParameterCodec, scheme.Codecs)
	if err := AddFieldLabelConversionFuncs(info.Scheme); err != nil {
		return nil, err
	}
	resources := map[string]rest.Storage{}
	for _, newStorage := range newStorages {
		s, err := newStorage(optsGetter)
		if err != nil {
			for _, r := range resources {
				r.Destroy()
			}
			return nil, err
		}
		s.AddTo(resources)
	}
	info.VersionedResourcesStorageMap[gv.Version] = resources
	return &info, nil
}

// AddFieldLabelConversionFuncs registers in s the field selectors fed
// resources support beyond metadata.name and metadata.namespace, so that the
// request handlers let them through. The New*GroupInfo functions call it on
// scheme.Scheme; a server serving fed's kinds from another scheme calls it on
// that one, before it serves.
func AddFieldLabelConversionFuncs(s *runtime.Scheme) error {
	conversions := map[schema.GroupVersionKind]runtime.FieldLabelConversionFunc{
		clusterv1alpha1.SchemeGroupVersion.WithKind("Cluster"):                   clusters.SelectableFields.ConvertFieldLabel,
		federationv1alpha1.SchemeGroupVersion.WithKind("ResourceBinding"):        resourcebindings.SelectableFields.ConvertFieldLabel,
		federationv1alpha1.SchemeGroupVersion.WithKind("ClusterResourceBinding"): clusterresourcebindings.SelectableFields.ConvertFieldLabel,
	}
	for gvk, convert := range conversions {
		if err := s.AddFieldLabelConversionFunc(gvk, convert); err != nil {
			return err
		}
	}
	return nil
}
