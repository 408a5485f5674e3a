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

package metricsadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	custommetrics "k8s.io/metrics/pkg/apis/custom_metrics"
	cminstall "k8s.io/metrics/pkg/apis/custom_metrics/install"
	externalmetrics "k8s.io/metrics/pkg/apis/external_metrics"
	eminstall "k8s.io/metrics/pkg/apis/external_metrics/install"
)

// Custom and external metrics are passed through from the members that serve
// custom.metrics.k8s.io and external.metrics.k8s.io (a Prometheus adapter, KEDA, ...),
// with the same cache as resource metrics. A member that does not serve the group is left
// out with a warning.

const (
	// CustomGroup and ExternalGroup are the groups passed through.
	CustomGroup   = custommetrics.GroupName
	ExternalGroup = externalmetrics.GroupName
)

const (
	groups    kind = "groups"
	resources kind = "resources"
	custom    kind = "custom"
	external  kind = "external"
)

// customVersions are the versions of custom.metrics.k8s.io fed reads, preferred first;
// external.metrics.k8s.io has v1beta1 only.
var customVersions = []string{"v1beta2", "v1beta1"}

var (
	rawScheme = runtime.NewScheme()
	// rawDecoder decodes any version of the two groups into their internal types.
	rawDecoder runtime.Decoder
)

func init() {
	cminstall.Install(rawScheme)
	eminstall.Install(rawScheme)
	rawDecoder = serializer.NewCodecFactory(rawScheme).UniversalDecoder()
}

// CustomQuery selects custom metrics: the metric Metric of the objects of Resource named
// Name ("*" for those Selector selects) in Namespace ("" for cluster-scoped objects; the
// namespaces themselves are Resource "namespaces" with their name in Name).
type CustomQuery struct {
	Resource  schema.GroupResource
	Namespace string
	Name      string
	Metric    string
	// Selector selects the objects when Name is "*"; nil selects all.
	Selector labels.Selector
	// MetricSelector selects the metric's series; a requirement on LabelCluster picks the
	// members asked instead, and is not passed on.
	MetricSelector labels.Selector
	// Clusters limits the members asked (nil: every Ready one).
	Clusters []string
}

// CustomValue is a member's value of a custom metric.
type CustomValue struct {
	Cluster string
	custommetrics.MetricValue
}

// ExternalQuery selects the external metric Metric in Namespace.
type ExternalQuery struct {
	Namespace string
	Metric    string
	// MetricSelector selects the metric's series by their labels; a requirement on
	// LabelCluster picks the members asked, and is not passed on.
	MetricSelector labels.Selector
	Clusters       []string
}

// ExternalValue is a member's value of an external metric.
type ExternalValue struct {
	Cluster string
	externalmetrics.ExternalMetricValue
}

// CustomMetrics returns the values of the custom metric q asks for in every member it
// allows that serves custom.metrics.k8s.io. A member whose object has no such metric
// (NotFound) has no value and no warning.
func (a *Adapter) CustomMetrics(ctx context.Context, q CustomQuery) (Result[CustomValue], error) {
	var out Result[CustomValue]
	metricSel, clusterQ := splitCluster(q.MetricSelector, q.Clusters)
	params := url.Values{}
	if q.Selector != nil && !q.Selector.Empty() {
		params.Set("labelSelector", q.Selector.String())
	}
	if metricSel != nil && !metricSel.Empty() {
		params.Set("metricLabelSelector", metricSel.String())
	}
	answers, left, err := a.fanOutKeys(ctx, "values of custom metric "+q.Metric, clusterQ, func(c string) cacheKey {
		return cacheKey{cluster: c, kind: custom, path: customPath(q) + "?" + params.Encode()}
	})
	out.Warnings, out.LeftOut = left.warnings, left.clusters
	for _, an := range answers {
		for _, v := range an.answer.custom {
			out.Items = append(out.Items, CustomValue{Cluster: an.cluster, MetricValue: v})
		}
	}
	return out, err
}

// customPath is the path of q under a version of custom.metrics.k8s.io.
func customPath(q CustomQuery) string {
	name := q.Name
	if name == "" {
		name = "*"
	}
	switch {
	case q.Resource == schema.GroupResource{Resource: "namespaces"}:
		return "/namespaces/" + name + "/metrics/" + q.Metric
	case q.Namespace != "":
		return "/namespaces/" + q.Namespace + "/" + q.Resource.String() + "/" + name + "/" + q.Metric
	}
	return "/" + q.Resource.String() + "/" + name + "/" + q.Metric
}

// ExternalMetrics returns the series of the external metric q asks for in every member
// it allows that serves external.metrics.k8s.io, each labelled with its member.
func (a *Adapter) ExternalMetrics(ctx context.Context, q ExternalQuery) (Result[ExternalValue], error) {
	var out Result[ExternalValue]
	metricSel, clusterQ := splitCluster(q.MetricSelector, q.Clusters)
	params := url.Values{}
	if metricSel != nil && !metricSel.Empty() {
		params.Set("labelSelector", metricSel.String())
	}
	ns := q.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	answers, left, err := a.fanOutKeys(ctx, "values of external metric "+q.Metric, clusterQ, func(c string) cacheKey {
		return cacheKey{cluster: c, kind: external, path: "/namespaces/" + ns + "/" + q.Metric + "?" + params.Encode()}
	})
	out.Warnings, out.LeftOut = left.warnings, left.clusters
	for _, an := range answers {
		for _, v := range an.answer.external {
			v := *v.DeepCopy()
			if v.MetricLabels == nil {
				v.MetricLabels = map[string]string{}
			}
			v.MetricLabels[LabelCluster] = an.cluster
			out.Items = append(out.Items, ExternalValue{Cluster: an.cluster, ExternalMetricValue: v})
		}
	}
	return out, err
}

// MetricResources are the resources of group (CustomGroup or ExternalGroup) the members
// list in discovery ("pods/http_requests", or an external metric's name), merged.
func (a *Adapter) MetricResources(ctx context.Context, group string) (Result[metav1.APIResource], error) {
	var out Result[metav1.APIResource]
	answers, left, err := a.fanOutKeys(ctx, "metrics listed in "+group, Query{}, func(c string) cacheKey {
		return cacheKey{cluster: c, kind: resources, path: group}
	})
	out.Warnings, out.LeftOut = left.warnings, left.clusters
	seen := map[string]bool{}
	for _, an := range answers {
		for _, r := range an.answer.resources {
			if !seen[r.Name] {
				seen[r.Name] = true
				out.Items = append(out.Items, r)
			}
		}
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Name < out.Items[j].Name })
	return out, err
}

// splitCluster takes the requirements on LabelCluster out of sel into a query that picks
// the members, with clusters.
func splitCluster(sel labels.Selector, clusters []string) (labels.Selector, Query) {
	q := Query{Clusters: clusters}
	if sel == nil {
		return nil, q
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return sel, q
	}
	rest, onCluster := labels.NewSelector(), labels.NewSelector()
	for _, r := range reqs {
		if r.Key() == LabelCluster {
			onCluster = onCluster.Add(r)
		} else {
			rest = rest.Add(r)
		}
	}
	q.Labels = onCluster
	return rest, q
}

// fetchGroups reads a member's API groups.
func fetchGroups(ctx context.Context, cfg *rest.Config) (*answer, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var list metav1.APIGroupList
	if err := getJSON(ctx, dc.RESTClient(), "/apis", &list); err != nil {
		return nil, err
	}
	return &answer{groups: &list}, nil
}

// getJSON reads path from the member into out.
func getJSON(ctx context.Context, c rest.Interface, path string, out any) error {
	raw, err := c.Get().AbsPath(path).Do(ctx).Raw()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// version is the version of group the member serves that fed reads, or a NotServedError.
func (a *Adapter) version(ctx context.Context, cluster, group string) (string, error) {
	an, err := a.read(ctx, cacheKey{cluster: cluster, kind: groups})
	if err != nil {
		return "", err
	}
	want := customVersions
	if group == ExternalGroup {
		want = []string{"v1beta1"}
	}
	for _, g := range an.groups.Groups {
		if g.Name != group {
			continue
		}
		for _, v := range want {
			if slices.ContainsFunc(g.Versions, func(gv metav1.GroupVersionForDiscovery) bool { return gv.Version == v }) {
				return v, nil
			}
		}
	}
	return "", &NotServedError{Group: group}
}

// fetchMetrics reads the answer of a custom, external or resources key: the member's
// version of the group is found first (from the cached list of its groups). The path is
// passed on as the fleet was asked (k8s.io/metrics' typed clients want a kind and each
// member's RESTMapper to build it again), and the answer decoded with k8s.io/metrics'
// scheme into the internal types, whichever version the member served.
func (a *Adapter) fetchMetrics(ctx context.Context, cfg *rest.Config, key cacheKey) (*answer, error) {
	group := CustomGroup
	switch key.kind {
	case external:
		group = ExternalGroup
	case resources:
		group = key.path
	}
	version, err := a.version(ctx, key.cluster, group)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	base := "/apis/" + group + "/" + version
	if key.kind == resources {
		var list metav1.APIResourceList
		if err := getJSON(ctx, dc.RESTClient(), base, &list); err != nil {
			return nil, err
		}
		return &answer{resources: list.APIResources}, nil
	}
	path, query, _ := strings.Cut(key.path, "?")
	req := dc.RESTClient().Get().AbsPath(base + path)
	if params, err := url.ParseQuery(query); err == nil {
		for k, vs := range params {
			for _, v := range vs {
				req = req.Param(k, v)
			}
		}
	}
	raw, err := req.Do(ctx).Raw()
	switch {
	case apierrors.IsNotFound(err):
		// The object has no such metric in this member (or is not there).
		return &answer{}, nil
	case err != nil:
		return nil, err
	}
	obj, _, err := rawDecoder.Decode(raw, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", base+path, err)
	}
	switch list := obj.(type) {
	case *custommetrics.MetricValueList:
		return &answer{custom: list.Items}, nil
	case *externalmetrics.ExternalMetricValueList:
		return &answer{external: list.Items}, nil
	}
	return nil, fmt.Errorf("%s answered a %T", base+path, obj)
}
