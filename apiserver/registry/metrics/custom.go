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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	genericapi "k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	custommetrics "k8s.io/metrics/pkg/apis/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/apis/external_metrics"
	cmapiserver "sigs.k8s.io/custom-metrics-apiserver/pkg/apiserver"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/apiserver/installer"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
	cmstorage "sigs.k8s.io/custom-metrics-apiserver/pkg/registry/custom_metrics"
	emstorage "sigs.k8s.io/custom-metrics-apiserver/pkg/registry/external_metrics"

	"github.com/fedhq/fed/metricsadapter"
)

// The fleet's custom.metrics.k8s.io and external.metrics.k8s.io are served by the handlers
// of sigs.k8s.io/custom-metrics-apiserver (its URL forms, versions and conversions) over a
// provider that passes each request through to the members that serve the group
// (metricsadapter): values of several members are listed each with its member, an
// object's value named by name is the sum of its members' values (a Deployment's requests
// per second in the fleet are its copies' total), and the members left out are named in
// warnings.

// CustomSource is what the provider reads (metricsadapter.Adapter).
type CustomSource interface {
	CustomMetrics(ctx context.Context, q metricsadapter.CustomQuery) (metricsadapter.Result[metricsadapter.CustomValue], error)
	ExternalMetrics(ctx context.Context, q metricsadapter.ExternalQuery) (metricsadapter.Result[metricsadapter.ExternalValue], error)
	MetricResources(ctx context.Context, group string) (metricsadapter.Result[metav1.APIResource], error)
}

// InstallCustomMetrics serves custom.metrics.k8s.io (v1beta2 preferred, and v1beta1) and
// external.metrics.k8s.io (v1beta1) of the fleet in s, read from source.
func InstallCustomMetrics(s *genericapiserver.GenericAPIServer, source CustomSource) error {
	p := &customProvider{source: source}
	container := s.Handler.GoRestfulContainer
	install := func(group string, params runtime.ParameterCodec, storage installer.MetricsAPIGroupVersion) error {
		info := genericapiserver.NewDefaultAPIGroupInfo(group, cmapiserver.Scheme, params, cmapiserver.Codecs)
		var versions []metav1.GroupVersionForDiscovery
		for _, gv := range info.PrioritizedVersions {
			versions = append(versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version})
			storage := storage
			storage.APIGroupVersion = &genericapi.APIGroupVersion{
				Root:             genericapiserver.APIGroupPrefix,
				GroupVersion:     gv,
				MetaGroupVersion: info.MetaGroupVersion,
				ParameterCodec:   info.ParameterCodec,
				Serializer:       info.NegotiatedSerializer,
				Creater:          info.Scheme,
				Convertor:        info.Scheme,
				UnsafeConvertor:  runtime.UnsafeObjectConvertor(info.Scheme),
				Typer:            info.Scheme,
				Namer:            runtime.Namer(meta.NewAccessor()),
			}
			if err := storage.InstallREST(container); err != nil {
				return fmt.Errorf("%s: %w", gv, err)
			}
		}
		apiGroup := metav1.APIGroup{Name: group, Versions: versions, PreferredVersion: versions[0]}
		s.DiscoveryGroupManager.AddGroup(apiGroup)
		// Aggregated discovery lists the group and its versions; which metrics the members
		// have changes, and is listed at /apis/GROUP/VERSION only.
		if s.AggregatedDiscoveryGroupManager != nil {
			for _, v := range versions {
				s.AggregatedDiscoveryGroupManager.AddGroupVersion(group, apidiscoveryv2.APIVersionDiscovery{
					Version: v.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent})
			}
		}
		container.Add(discovery.NewAPIGroupHandler(s.Serializer, apiGroup).WebService())
		return nil
	}
	// Custom metrics take their own list options (metricLabelSelector); external metrics
	// take meta's.
	if err := install(custommetrics.GroupName, runtime.NewParameterCodec(cmapiserver.Scheme), installer.MetricsAPIGroupVersion{
		DynamicStorage: cmstorage.NewREST(p),
		ResourceLister: provider.NewCustomMetricResourceLister(p),
		Handlers:       &installer.CMHandlers{},
	}); err != nil {
		return err
	}
	return install(externalmetrics.GroupName, metav1.ParameterCodec, installer.MetricsAPIGroupVersion{
		DynamicStorage: emstorage.NewREST(p),
		ResourceLister: provider.NewExternalMetricResourceLister(p),
		Handlers:       &installer.EMHandlers{},
	})
}

// customProvider answers the library's handlers from the members.
type customProvider struct {
	source CustomSource
}

var (
	_ provider.CustomMetricsProvider   = &customProvider{}
	_ provider.ExternalMetricsProvider = &customProvider{}
)

// GetMetricByName is an object's metric: the sum of its members' values.
func (p *customProvider) GetMetricByName(ctx context.Context, name types.NamespacedName, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custommetrics.MetricValue, error) {
	res, err := p.source.CustomMetrics(ctx, metricsadapter.CustomQuery{
		Resource: info.GroupResource, Namespace: name.Namespace, Name: name.Name, Metric: info.Metric, MetricSelector: metricSelector,
	})
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, customError(err, info.String())
	}
	if len(res.Items) == 0 {
		return nil, provider.NewMetricNotFoundForError(info.GroupResource, info.Metric, name.Name)
	}
	sum := res.Items[0].MetricValue.DeepCopy()
	sum.Metric.Selector = nil
	if sel := metricSelector; sel != nil && !sel.Empty() {
		sum.Metric.Selector, _ = metav1.ParseToLabelSelector(sel.String())
	}
	for _, v := range res.Items[1:] {
		sum.Value.Add(v.Value)
		if v.Timestamp.After(sum.Timestamp.Time) {
			sum.Timestamp = v.Timestamp
		}
	}
	return sum, nil
}

// GetMetricBySelector lists the selected objects' values in every member, each with its
// member in its metric selector (cluster.fedhq.io/cluster).
func (p *customProvider) GetMetricBySelector(ctx context.Context, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custommetrics.MetricValueList, error) {
	res, err := p.source.CustomMetrics(ctx, metricsadapter.CustomQuery{
		Resource: info.GroupResource, Namespace: namespace, Name: "*", Metric: info.Metric, Selector: selector, MetricSelector: metricSelector,
	})
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, customError(err, info.String())
	}
	out := &custommetrics.MetricValueList{Items: make([]custommetrics.MetricValue, 0, len(res.Items))}
	for _, v := range res.Items {
		item := *v.MetricValue.DeepCopy()
		item.Metric.Selector = withCluster(item.Metric.Selector, v.Cluster)
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// withCluster is sel with the member's label added.
func withCluster(sel *metav1.LabelSelector, cluster string) *metav1.LabelSelector {
	out := &metav1.LabelSelector{}
	if sel != nil {
		out = sel.DeepCopy()
	}
	if out.MatchLabels == nil {
		out.MatchLabels = map[string]string{}
	}
	out.MatchLabels[metricsadapter.LabelCluster] = cluster
	return out
}

// GetExternalMetric lists the metric's series of every member, each labelled with its member.
func (p *customProvider) GetExternalMetric(ctx context.Context, namespace string, metricSelector labels.Selector, info provider.ExternalMetricInfo) (*externalmetrics.ExternalMetricValueList, error) {
	res, err := p.source.ExternalMetrics(ctx, metricsadapter.ExternalQuery{Namespace: namespace, Metric: info.Metric, MetricSelector: metricSelector})
	warn(ctx, res.Warnings)
	if err != nil {
		return nil, customError(err, "external metric "+info.Metric)
	}
	out := &externalmetrics.ExternalMetricValueList{Items: make([]externalmetrics.ExternalMetricValue, 0, len(res.Items))}
	for _, v := range res.Items {
		out.Items = append(out.Items, v.ExternalMetricValue)
	}
	return out, nil
}

// listTimeout bounds discovery's read of the members' metric names (the library's lister
// has no context).
const listTimeout = 5 * time.Second

// ListAllMetrics are the custom metrics the members list, merged.
func (p *customProvider) ListAllMetrics() []provider.CustomMetricInfo {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	res, err := p.source.MetricResources(ctx, custommetrics.GroupName)
	if err != nil {
		klog.V(2).InfoS("Listing the members' custom metrics", "err", err)
	}
	var out []provider.CustomMetricInfo
	for _, r := range res.Items {
		// RESOURCE[.GROUP]/METRIC, as the library lists them.
		resource, metric, ok := strings.Cut(r.Name, "/")
		if !ok || metric == "" {
			continue
		}
		out = append(out, provider.CustomMetricInfo{GroupResource: schema.ParseGroupResource(resource), Namespaced: r.Namespaced, Metric: metric})
	}
	return out
}

// ListAllExternalMetrics are the external metrics the members list, merged.
func (p *customProvider) ListAllExternalMetrics() []provider.ExternalMetricInfo {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	res, err := p.source.MetricResources(ctx, externalmetrics.GroupName)
	if err != nil {
		klog.V(2).InfoS("Listing the members' external metrics", "err", err)
	}
	var out []provider.ExternalMetricInfo
	for _, r := range res.Items {
		out = append(out, provider.ExternalMetricInfo{Metric: r.Name})
	}
	return out
}

// customError is the API error of a query no member could answer.
func customError(err error, what string) error {
	var notServed *metricsadapter.NotServedError
	if errors.As(err, &notServed) {
		return apierrors.NewServiceUnavailable(fmt.Sprintf("%v: add an adapter serving %s to a member (the Prometheus adapter, KEDA, ...)", err, notServed.Group))
	}
	return apierrors.NewServiceUnavailable(fmt.Sprintf("%s: %v", what, err))
}
